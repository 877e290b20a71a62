"""The ISMCTS agent's results table and strength-versus-budget curve (docs/results.md).

Plays ``uno-env evaluate``-style matches (every deal twice, seats swapped, 95% Wilson
intervals) and writes ``OUT/ismcts_results.json`` and ``OUT/ismcts_budget_curve.png``:

- the table: ``ismcts:BUDGET`` (``--budget``, default ``time_per_move=0.25``) with
  ``prior=rule`` against ``rule`` and with ``prior=ppo:VARIANT`` against the shipped PPO
  agent (at the table it was trained at);
- the curve: win rate against ``rule`` at each simulation budget, without a prior (UCT),
  with the default-policy prior and with the policy network's prior and value.

``--search pimc`` makes the table's rows the network playouts (``search=pimc;prior=ppo:V``
against both opponents), ``--curve-search pimc`` the curve's lines PIMC with default-policy
playouts (no prior) and with the network's playouts; ``--table-rules trained`` plays the
rows against ``rule`` at the table the PPO agent was trained at (else the variant's defaults).

Each row records the search agent's measured seconds per searched move (a decision with more
than one legal action; with ``--workers 1``). A ``simulations=N`` budget plays the same games
whatever the machine's load, and its measured time on a loaded machine bounds the time on a
free core from above. ``--workers`` splits the games over processes, one per core. Usage::

    python examples/ismcts_strength.py [--games 2000] [--curve-games 500] [--workers 1]
        [--budget simulations=500] [--table-priors rule,ppo] [--budgets 10,100,1000]
        [--variant classic] [--search tree|pimc] [--curve-search tree|pimc]
        [--table-rules default|trained] [--json NAME] [--png NAME]
        [--no-table | --no-curve] [--out docs/results]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from uno_env import agents
from uno_env.training.evaluate import evaluate


class Timed:
    """An agent that records the wall time of its searched moves (more than one legal)."""

    def __init__(self, spec: str, variant: str, options: dict[str, Any]) -> None:
        self.name = spec
        self.agent = agents.load(spec, variant=variant, num_players=2, **options)
        self.moves, self.seconds = 0, 0.0

    def act(self, observation: Any, action_mask: Any) -> int:
        t = time.perf_counter()
        a = int(self.agent.act(observation, action_mask))
        if int(action_mask.sum()) > 1:
            self.moves += 1
            self.seconds += time.perf_counter() - t
        return a

    def reset(self) -> None:
        self.agent.reset()

    def seed(self, seed: int | None) -> None:
        self.agent.seed(seed)


def row(spec: str, opponent: str, games: int, variant: str, workers: int,
        seed: int, table: dict[str, Any] | None = None) -> dict[str, Any]:
    """One match; against a PPO agent at the table of rules it was trained at, against
    others at ``table`` (default: the variant's default rules)."""
    t = time.perf_counter()
    opts = agents.trained_options(opponent) or dict(table or {})
    timed = Timed(spec, variant, opts) if workers == 1 else None
    r = evaluate(timed or spec, opponent, games, variant=variant, seed=seed, workers=workers,
                 options=opts)
    a = r.agents[0]
    out = {"agent": spec, "opponent": opponent, "games": games, "wins": a.wins,
           "win_rate": a.win_rate, "ci95": [a.ci_low, a.ci_high],
           "seconds": round(time.perf_counter() - t, 1), "options": opts, "seed": seed,
           "seconds_per_search_move": (round(timed.seconds / timed.moves, 4)
                                       if timed and timed.moves else None),
           "command": f"uno-env evaluate --agents '{spec},{opponent}' --variant {variant} "
                      f"--games {games} --seed {seed}"
                      + "".join(f" --option {k}={v}" for k, v in opts.items())}
    print(f"{spec:45s} vs {opponent:12s} {a.win_rate:6.1%} [{a.ci_low:.1%}, {a.ci_high:.1%}]"
          f"  ({games} games, {out['seconds']} s, "
          f"{out['seconds_per_search_move']} s per search move)", flush=True)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=2000, help="games per row of the table")
    p.add_argument("--curve-games", type=int, default=None,
                   help="games per point of the curve (default: --games)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--budget", default="time_per_move=0.25", help="the table's budget")
    p.add_argument("--table-priors", default="rule,ppo",
                   help="the table's rows: rule (against rule), ppo (against the PPO agent)")
    p.add_argument("--budgets", default="10,100,1000", help="simulations for the curve")
    p.add_argument("--curve-search", default="tree", choices=("tree", "pimc"),
                   help="the curve's lines: tree (UCT, default-policy prior, network prior "
                        "and value) or pimc (default-policy playouts, network playouts)")
    p.add_argument("--png", default="ismcts_budget_curve.png", help="the curve's file name")
    p.add_argument("--variant", default="classic")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="docs/results")
    p.add_argument("--search", default="tree", choices=("tree", "pimc"),
                   help="the table's search: tree (prior=rule against rule, the network's "
                        "against PPO) or pimc (the network's playouts, both rows)")
    p.add_argument("--table-rules", default="default", choices=("default", "trained"),
                   help="rules of the rows against rule: the variant's defaults or the "
                        "table the PPO agent was trained at")
    p.add_argument("--json", default=None, help="output file name (in --out)")
    p.add_argument("--no-table", action="store_true", help="only the curve")
    p.add_argument("--no-curve", action="store_true", help="only the table")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    v = a.variant
    results: dict[str, Any] = {"variant": v, "num_players": 2, "table": [], "curve": []}
    priors: tuple[str | None, ...] = (None, "rule", f"ppo:{v}")
    if a.curve_search == "pimc":
        priors = (None, f"ppo:{v}")
    name = a.json or ("ismcts_results.json" if not (a.no_table or a.no_curve) else (
        "ismcts_curve.json" if a.no_table else "ismcts_table.json"))
    table = agents.trained_options(f"ppo:{v}") if a.table_rules == "trained" else {}
    if not a.no_table:
        for which in a.table_priors.split(","):
            opponent = "rule" if which == "rule" else f"ppo:{v}"
            spec = (f"ismcts:{a.budget};prior={opponent}" if a.search == "tree" else
                    f"ismcts:search=pimc;prior=ppo:{v};{a.budget}")
            results["table"].append(row(spec, opponent, a.games, v, a.workers, a.seed, table))
            (out / name).write_text(json.dumps(results, indent=2) + "\n")
    if not a.no_curve:
        budgets = [int(x) for x in a.budgets.split(",")]
        for prior in priors:
            for sims in budgets:
                spec = (f"ismcts:simulations={sims}" + (f";prior={prior}" if prior else "")
                        + (";search=pimc" if a.curve_search == "pimc" else ""))
                r = row(spec, "rule", a.curve_games or a.games, v, a.workers, a.seed, table)
                r.update(simulations=sims, prior=prior, search=a.curve_search)
                results["curve"].append(r)
                (out / name).write_text(json.dumps(results, indent=2) + "\n")
        plot(results["curve"], out / a.png, v)
    print(f"wrote {out / name}" + ("" if a.no_curve else f" and {out / a.png}"))


def plot(curve: list[dict[str, Any]], path: Path, variant: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    labels = {None: "UCT, rollouts", "rule": "PUCT, default-policy prior"}
    pimc = curve[0].get("search") == "pimc"
    if pimc:
        labels = {None: "PIMC, default-policy playouts"}
    for prior in dict.fromkeys(r["prior"] for r in curve):
        label = labels.get(prior, f"PIMC, {prior} playouts" if pimc else
                           f"PUCT, {prior} prior and value")
        pts = [r for r in curve if r["prior"] == prior]
        if not pts:
            continue
        xs = [r["simulations"] for r in pts]
        ys = [100 * r["win_rate"] for r in pts]
        lo = [100 * (r["win_rate"] - r["ci95"][0]) for r in pts]
        hi = [100 * (r["ci95"][1] - r["win_rate"]) for r in pts]
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=label)
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("samples per move" if pimc else "simulations per move")
    ax.set_ylabel("win rate vs rule (%), 95% CI")
    rules = curve[0].get("options") or {}
    ax.set_title(f"ismcts, {variant}, 2 players"
                 + (f" ({', '.join(f'{k}={v}' for k, v in rules.items())})" if rules else ""),
                 fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
