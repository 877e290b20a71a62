"""Statistics and reports of a tournament: win rates with honest intervals, ratings, tables.

Win rates count seats: an agent's *games* are the seats it filled, its *wins* the seats that
won. Games of one duplicate deal are not independent (they share the cards), so the 95%
interval is the deal-clustered one of :func:`uno_env.stats.clustered_rate` (with one game per
deal, the plain Wilson interval).

Ratings are openskill's Plackett-Luce model, updated game by game in game-index order: the
agent(s) holding a winning seat rank first, the others tie second; games without a winner
(a blocked tie or ``max_steps`` reached) leave ratings unchanged.
"""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from uno_env.stats import clustered_rate


def ratings(records: Sequence[dict[str, Any]], names: Sequence[str]) -> list[tuple[float, float]]:
    """Plackett-Luce ``(mu, sigma)`` per agent after every game, in game-index order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = [model.rating(name=n) for n in names]
    for rec in sorted(records, key=lambda r: r["game"]):
        winners = set(rec["result"]["winners"])
        if not winners:
            continue
        seated = list(dict.fromkeys(rec["seats"]))
        ranks = [1.0 if any(rec["seats"][s] == a for s in winners) else 2.0 for a in seated]
        if len(set(ranks)) < 2:
            continue  # every agent holds a winning seat: nothing to learn
        new = model.rate([[current[a]] for a in seated], ranks=ranks)
        for a, team in zip(seated, new, strict=True):
            current[a] = team[0]
    return [(float(r.mu), float(r.sigma)) for r in current]


def summarize(records: Sequence[dict[str, Any]], names: Sequence[str],
              meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything the reports show, as JSON-ready data."""
    k = len(names)
    n_players = records[0]["num_players"] if records else 0
    wins = [0] * k
    games = [0] * k
    points = [0.0] * k
    forfeits = [0] * k
    faults: list[dict[str, int]] = [{} for _ in range(k)]
    per_deal: list[dict[int, list[int]]] = [defaultdict(lambda: [0, 0]) for _ in range(k)]
    seat_games = [0] * n_players
    seat_wins = [0] * n_players
    h2h: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    forfeit_list = []
    truncated = no_winner = 0
    for rec in records:
        res = rec["result"]
        winners = set(res["winners"])
        if res["truncated"]:
            truncated += 1
        if not winners:
            no_winner += 1
        if res["forfeit"] is not None:
            f = res["forfeit"]
            forfeits[rec["seats"][f["seat"]]] += 1
            status = f.get("status", "crash")  # records before statuses: raised or illegal
            by = faults[rec["seats"][f["seat"]]]
            by[status] = by.get(status, 0) + 1
            forfeit_list.append({"game": rec["game"], "seat": f["seat"],
                                 "agent": names[rec["seats"][f["seat"]]],
                                 "status": status, "reason": f["reason"]})
        for s, a in enumerate(rec["seats"]):
            won = s in winners
            games[a] += 1
            wins[a] += won
            points[a] += res["points"][s]
            cell = per_deal[a][rec["deal"]]
            cell[0] += won
            cell[1] += 1
            seat_games[s] += 1
            seat_wins[s] += won
        if n_players == 2 and rec["seats"][0] != rec["seats"][1]:
            a, b = rec["seats"]
            h2h[(a, b)][0] += 0 in winners
            h2h[(a, b)][1] += 1
            h2h[(b, a)][0] += 1 in winners
            h2h[(b, a)][1] += 1
    rated = ratings(records, names)
    agents = []
    for a, name in enumerate(names):
        p, se, lo, hi = clustered_rate([(w, g) for w, g in per_deal[a].values()])
        mu, sigma = rated[a]
        agents.append({
            "agent": name, "games": games[a], "wins": wins[a], "win_rate": p,
            "win_rate_se": se, "ci_low": lo, "ci_high": hi,
            "mean_points": points[a] / games[a] if games[a] else 0.0,
            "mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma, "forfeits": forfeits[a],
            **{status: faults[a].get(status, 0) for status in ("timeout", "crash", "invalid")},
        })
    out: dict[str, Any] = {
        **(meta or {}),
        "games": len(records),
        "deals": len({r["deal"] for r in records}),
        "truncated": truncated,
        "no_winner": no_winner,
        "agents": agents,
        "seats": [{"seat": s, "games": seat_games[s], "wins": seat_wins[s],
                   "win_rate": seat_wins[s] / seat_games[s] if seat_games[s] else 0.0}
                  for s in range(n_players)],
        "forfeits": forfeit_list,
    }
    if n_players == 2:
        out["head_to_head"] = {
            names[a]: {names[b]: {"games": g, "wins": w, "win_rate": w / g}
                       for (aa, b), (w, g) in sorted(h2h.items()) if aa == a}
            for a in range(k)}
    return out


def format_table(summary: dict[str, Any]) -> str:
    """The printed report: agents (best rating first), seats, head to head, forfeits."""
    lines = []
    head = f"{summary['games']} games, {summary['deals']} deals"
    if "variant" in summary:
        dup = "duplicate deals" if summary.get("duplicate", True) else "random deals"
        head = (f"{summary['variant']}, {summary['players']} players: {head} ({dup}), "
                f"seed {summary['seed']}")
    lines.append(head)
    width = max([len(a["agent"]) for a in summary["agents"]] + [5])
    lines.append(f"{'agent':<{width}}  {'games':>6} {'wins':>6} {'win%':>6}  {'95% CI':>13}  "
                 f"{'mean pts':>8}  {'rating μ ± σ':>14}  {'forfeits':>8}")
    for a in sorted(summary["agents"], key=lambda a: -a["mu"]):
        ci = f"[{100 * a['ci_low']:.1f}, {100 * a['ci_high']:.1f}]"
        lines.append(
            f"{a['agent']:<{width}}  {a['games']:6d} {a['wins']:6d} {100 * a['win_rate']:6.1f}"
            f"  {ci:>13}  {a['mean_points']:8.1f}  {a['mu']:6.2f} ± {a['sigma']:5.2f}"
            f"  {a['forfeits']:8d}")
    seats = "  ".join(f"{s['seat']}: {100 * s['win_rate']:.1f}%" for s in summary["seats"])
    lines.append(f"win rate by seat: {seats}")
    if summary["no_winner"]:
        lines.append(f"games without a winner: {summary['no_winner']} "
                     f"({summary['truncated']} cut at max_steps)")
    h2h = summary.get("head_to_head")
    if h2h:
        names = [a["agent"] for a in summary["agents"]]
        cw = max(width, 9)
        lines.append("head to head (row's win% against column, games):")
        lines.append(" " * width + "".join(f"  {n:>{cw}}" for n in names))
        for r in names:
            cells = []
            for c in names:
                cell = h2h[r].get(c)
                text = "-" if cell is None else f"{100 * cell['win_rate']:.1f} ({cell['games']})"
                cells.append(f"  {text:>{cw}}")
            lines.append(f"{r:<{width}}" + "".join(cells))
    if summary["forfeits"]:
        by = Counter(f.get("status", "crash") for f in summary["forfeits"])
        lines.append(f"forfeits: {len(summary['forfeits'])} ("
                     + ", ".join(f"{n} {s}" for s, n in sorted(by.items())) + ")")
        for f in summary["forfeits"][:10]:
            lines.append(f"  game {f['game']}: {f['agent']} (seat {f['seat']}) "
                         f"{f.get('status', 'crash')}: {f['reason']}")
        if len(summary["forfeits"]) > 10:
            lines.append(f"  ... and {len(summary['forfeits']) - 10} more (results.json)")
    return "\n".join(lines)


CSV_FIELDS = ("agent", "games", "wins", "win_rate", "ci_low", "ci_high", "win_rate_se",
              "mean_points", "mu", "sigma", "ordinal", "forfeits", "timeout", "crash",
              "invalid")


def write_reports(out: Path, summary: dict[str, Any]) -> list[str]:
    """``results.json``, ``results.csv`` and ``ratings.png`` in ``out``. Each is written on
    its own: one that fails does not stop the others, and the failures come back as
    ``"NAME: error"`` lines (empty when all were written) for the caller to report."""
    out.mkdir(parents=True, exist_ok=True)
    failed = []
    for name, write in (("results.json", _write_json), ("results.csv", _write_csv),
                        ("ratings.png", plot_ratings)):
        try:
            write(summary, out / name)
        except Exception as err:  # noqa: BLE001 - a report must never lose the results
            failed.append(f"{name}: {type(err).__name__}: {err}")
    return failed


def _write_json(summary: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(summary, indent=2) + "\n")


def _write_csv(summary: dict[str, Any], path: Path) -> None:
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for a in summary["agents"]:
            w.writerow(a)


def plot_ratings(summary: dict[str, Any], path: Path) -> None:
    """Ratings μ ± 2σ and win rates with their 95% intervals, one row per agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = sorted(summary["agents"], key=lambda a: a["mu"])
    names = [a["agent"] for a in agents]
    ys = range(len(agents))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 1.2 + 0.5 * len(agents)), sharey=True)
    ax1.errorbar([a["mu"] for a in agents], ys, xerr=[2 * a["sigma"] for a in agents],
                 fmt="o", capsize=4)
    ax1.set_yticks(list(ys), names)
    ax1.set_xlabel("openskill Plackett-Luce rating (μ ± 2σ)")
    rates = [100 * a["win_rate"] for a in agents]
    # the intervals contain their estimate; max() keeps a bar from going negative regardless
    below = [max(0.0, r - 100 * a["ci_low"]) for r, a in zip(rates, agents, strict=True)]
    above = [max(0.0, 100 * a["ci_high"] - r) for r, a in zip(rates, agents, strict=True)]
    ax2.errorbar(rates, ys, xerr=[below, above], fmt="o", capsize=4, color="tab:green")
    if summary.get("players"):
        ax2.axvline(100 / summary["players"], color="grey", ls=":", lw=1)
    ax2.set_xlabel("win rate % (95% CI)")
    title = f"{summary.get('variant', '')} {summary.get('players', '')}p, {summary['games']} games"
    fig.suptitle(title.strip())
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
