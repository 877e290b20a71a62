"""A tournament's ``index.html``: standings, head to head, the ratings plot, every replay.

Written beside ``results.json``; the replays go to ``replays/game-N.html`` and share one
copy of the page assets in ``replays/assets/`` (a tournament may hold thousands of games).
Everything is local files: the folder opens in a browser without a network.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from uno_env.tournament.web.pages import asset, replay_html, write_assets

REPLAYS = "replays"


def replay_name(record: dict[str, Any], i: int) -> str:
    return f"game-{int(record.get('game', i)):05d}.html"


def write_index(out: Path, summary: dict[str, Any], records: Sequence[dict[str, Any]],
                replays: bool = True) -> Path:
    """Write ``index.html`` (and, with ``replays``, every game's replay page) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    if replays:
        folder = out / REPLAYS
        write_assets(folder / "assets")
        for i, rec in enumerate(records):
            (folder / replay_name(rec, i)).write_text(replay_html(rec, assets="assets"),
                                                      encoding="utf-8")
    path = out / "index.html"
    path.write_text(index_html(summary, records, replays, plot=(out / "ratings.png").exists()),
                    encoding="utf-8")
    return path


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def index_html(summary: dict[str, Any], records: Sequence[dict[str, Any]], replays: bool,
               plot: bool = True) -> str:
    e = html.escape
    s = summary
    title = f"{s.get('variant', 'UNO')} tournament, {s.get('players', '?')} players"
    parts = [f"<p class='meta'>{s['games']} games, {s['deals']} deals"
             + (f" ({'duplicate' if s.get('duplicate', True) else 'random'} deals, seed "
                f"{e(str(s.get('seed')))})" if "seed" in s else "")
             + (f"; options {e(str(s['options']))}" if s.get("options") else "")
             + (f"; {s['no_winner']} without a winner ({s['truncated']} cut at max_steps)"
                if s.get("no_winner") else "") + "</p>"]
    parts.append("<h2>standings</h2><table class='grid' id='standings'><tr><th>#</th>"
                 "<th>agent</th><th class='num'>games</th><th class='num'>wins</th>"
                 "<th class='num'>win %</th><th class='num'>95% interval</th>"
                 "<th class='num'>mean points</th><th class='num'>rating μ ± σ</th>"
                 "<th class='num'>ordinal</th><th class='num'>forfeits</th></tr>")
    for rank, a in enumerate(sorted(s["agents"], key=lambda a: -a["mu"]), 1):
        parts.append(
            f"<tr><td>{rank}</td><td>{e(a['agent'])}</td><td class='num'>{a['games']}</td>"
            f"<td class='num'>{a['wins']}</td><td class='num'>{_pct(a['win_rate'])}</td>"
            f"<td class='num'>[{_pct(a['ci_low'])}, {_pct(a['ci_high'])}]</td>"
            f"<td class='num'>{a['mean_points']:.1f}</td>"
            f"<td class='num'>{a['mu']:.2f} ± {a['sigma']:.2f}</td>"
            f"<td class='num'>{a['ordinal']:.2f}</td><td class='num'>{a['forfeits']}</td></tr>")
    parts.append("</table>")
    seats = " · ".join(f"seat {x['seat']}: {_pct(x['win_rate'])}%" for x in s["seats"])
    parts.append(f"<p class='meta'>win rate by seat: {seats}</p>")
    h2h = s.get("head_to_head")
    note = "the row agent's win % against the column agent (games)"
    if not h2h and records and records[0]["num_players"] > 2:
        h2h = shared_tables(records, [a["agent"] for a in s["agents"]])
        note = ("the row agent's win % in the games where the column agent sat at the same "
                "table (games)")
    if h2h:
        names = [a["agent"] for a in s["agents"]]
        parts.append(f"<h2>head to head</h2><p class='meta'>{note}</p>"
                     "<table class='grid' id='h2h'><tr><th></th>"
                     + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr>")
        for r in names:
            cells = []
            for c in names:
                cell = h2h.get(r, {}).get(c)
                if cell is None:
                    cells.append("<td class='num'>–</td>")
                else:
                    shade = int(255 - 90 * abs(cell["win_rate"] - 0.5) * 2)
                    bg = (f"rgb({shade},255,{shade})" if cell["win_rate"] >= 0.5
                          else f"rgb(255,{shade},{shade})")
                    cells.append(f"<td class='num' style='background:{bg}'>"
                                 f"{_pct(cell['win_rate'])} ({cell['games']})</td>")
            parts.append(f"<tr><th>{e(r)}</th>{''.join(cells)}</tr>")
        parts.append("</table>")
    if plot:
        parts.append("<h2>ratings</h2><img id='ratings' src='ratings.png' "
                     "alt='ratings (μ ± 2σ) and win rates with 95% intervals'>")
    if s.get("forfeits"):
        parts.append("<h2>forfeits</h2><ul>" + "".join(
            f"<li>game {f['game']}: {e(f['agent'])} (seat {f['seat']}) {e(f['reason'])}</li>"
            for f in s["forfeits"]) + "</ul>")
    parts.append(_games(records, replays))
    parts.append("<p class='meta'>also here: results.json, results.csv, games.jsonl "
                 "(replay one in a terminal with <code>uno-env replay games.jsonl --game N"
                 "</code>)</p>")
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{e(title)}</title><style>{asset('uno.css')}</style></head>"
            f"<body><header class='top'><h1>{e(title)}</h1><div class='sub'>uno-env "
            "tournament report: standings, head to head, ratings, every game's replay</div>"
            f"</header><main class='report'>{''.join(parts)}</main></body></html>\n")


def shared_tables(records: Sequence[dict[str, Any]],
                  names: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """For more than 2 players: per pair of agents, how often the first won the games both
    played in (what the 2-player head-to-head table shows, at a bigger table)."""
    counts: dict[tuple[int, int], list[int]] = {}
    for rec in records:
        winners = set((rec.get("result") or {}).get("winners", []))
        seats = rec.get("seats", [])
        for s, a in enumerate(seats):
            for b in set(seats) - {a}:
                cell = counts.setdefault((a, b), [0, 0])
                cell[0] += s in winners
                cell[1] += 1
    out: dict[str, dict[str, dict[str, Any]]] = {n: {} for n in names}
    for (a, b), (w, g) in counts.items():
        out[names[a]][names[b]] = {"games": g, "wins": w, "win_rate": w / g}
    return out


def _games(records: Sequence[dict[str, Any]], replays: bool) -> str:
    e = html.escape
    rows = []
    for i, rec in enumerate(records):
        res = rec.get("result") or {}
        agents = rec.get("agents") or []
        winners = res.get("winners", [])
        won = ", ".join(f"{e(agents[w])} (seat {w})" for w in winners if w < len(agents)) or "–"
        note = ""
        if res.get("forfeit"):
            note = f"forfeit: {e(res['forfeit']['agent'])}"
        elif res.get("truncated"):
            note = "cut at max_steps"
        game = rec.get("game", i)
        link = (f"<a href='{REPLAYS}/{replay_name(rec, i)}'>replay</a>" if replays else "")
        rows.append(f"<tr><td class='num'>{game}</td><td class='num'>{rec.get('deal', '')}</td>"
                    f"<td>{e(' · '.join(agents))}</td><td>{won}</td>"
                    f"<td class='num'>{len(rec['actions'])}</td><td>{note}</td>"
                    f"<td>{link}</td></tr>")
    return ("<h2>games</h2><table class='grid' id='games'><tr><th class='num'>game</th>"
            "<th class='num'>deal</th><th>seats 0, 1, …</th><th>winner</th>"
            "<th class='num'>decisions</th><th></th><th></th></tr>" + "".join(rows) + "</table>")
