"""How much duplicate deals narrow the win-rate intervals, measured.

Plays ``reps`` independent tournaments (seeds ``0..reps-1``) of ``games`` games in each
mode, duplicate deals and plain random deals, with the same agents and seat rotation, and
reports for the first agent: the spread (standard deviation) of its win-rate estimate
across the tournaments, the mean half-width of the reported 95% interval, and how often
that interval holds the pooled win rate (coverage). The ratio of the spreads is the real
narrowing; its square says how many random-deal games one duplicate game is worth.

    python -m uno_env.tournament.variance --agents rule,random --games 200 --reps 100 --workers 2
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from uno_env.tournament.results import summarize
from uno_env.tournament.runner import TournamentConfig, run_tournament


class NoisyRule:
    """The rule agent, except that with probability ``eps`` it takes a uniformly random
    legal action: a slightly weaker opponent for measurements
    (``--agents rule,py:uno_env.tournament.variance:NoisyRule``)."""

    def __init__(self, variant: str = "classic", num_players: int = 2, seed: int | None = None,
                 eps: float = 0.2, **options: Any) -> None:
        from uno_env.agents import RuleAgent

        self.rule = RuleAgent(variant, num_players, seed=seed, **options)
        self.eps = eps
        self.rng = random.Random(seed)

    def seed(self, seed: int | None) -> None:
        self.rng.seed(seed)
        self.rule.seed(seed)

    def reset(self) -> None:
        self.rule.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        choice = self.rule.act(observation, action_mask)  # keeps the rule agent's memory
        if self.rng.random() < self.eps:
            legal = np.flatnonzero(action_mask)
            return int(legal[self.rng.randrange(len(legal))])
        return choice


def one(args: tuple[TournamentConfig, int]) -> tuple[float, float, float, float, float]:
    """(win rate, CI low, CI high, binomial SE, deal-clustered SE) of agent 0 in one
    tournament."""
    base, seed = args
    cfg = TournamentConfig(**{**base.identity(), "seed": seed})
    a = summarize(run_tournament(cfg, progress=False), cfg.names)["agents"][0]
    naive = math.sqrt(a["win_rate"] * (1 - a["win_rate"]) / a["games"])
    return a["win_rate"], a["ci_low"], a["ci_high"], naive, a["win_rate_se"]


def measure(base: TournamentConfig, reps: int, workers: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    runs: dict[str, list[tuple[float, float, float, float, float]]] = {}
    for mode, dup in (("duplicate", True), ("random", False)):
        cfg = TournamentConfig(**{**base.identity(), "duplicate": dup})
        jobs = [(cfg, seed) for seed in range(reps)]
        if workers > 1:
            with ProcessPoolExecutor(workers) as pool:
                runs[mode] = list(pool.map(one, jobs, chunksize=4))
        else:
            runs[mode] = [one(j) for j in jobs]
    pooled = statistics.fmean(r[0] for rs in runs.values() for r in rs)
    for mode, rs in runs.items():
        rates = [r[0] for r in rs]
        out[mode] = {
            "mean": statistics.fmean(rates),
            "sd": statistics.stdev(rates),
            "ci_half_width": statistics.fmean((r[2] - r[1]) / 2 for r in rs),
            "coverage": sum(r[1] <= pooled <= r[2] for r in rs) / len(rs),
            "naive_se": statistics.fmean(r[3] for r in rs),
            # variance of the clustered estimate over the binomial one, per tournament
            "design_effect": statistics.fmean(r[4] ** 2 for r in rs)
            / statistics.fmean(r[3] ** 2 for r in rs),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m uno_env.tournament.variance", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agents", default="rule,random")
    p.add_argument("--variant", default="classic")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--max-steps", type=int, default=None)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--option", action="append", default=[], metavar="K=V")
    a = p.parse_args(argv)
    from uno_env.tournament.cli import parse_options

    base = TournamentConfig(agents=a.agents.split(","), variant=a.variant, players=a.players,
                            games=a.games, options=parse_options(a.variant, a.option),
                            max_steps=a.max_steps)
    base.validate()
    res = measure(base, a.reps, a.workers)
    d, r = res["duplicate"], res["random"]
    games = len(base.schedule())
    print(f"{base.agents[0]} in {','.join(base.agents)}, {a.variant} {a.players}p, {games} "
          f"games per tournament, {a.reps} tournaments per mode")
    print(f"{'deals':<10} {'mean win%':>9} {'sd of estimate':>15} {'mean CI ±':>10} "
          f"{'coverage':>9} {'SE²/binomial':>13}")
    for mode, x in res.items():
        print(f"{mode:<10} {100 * x['mean']:9.2f} {100 * x['sd']:15.2f} "
              f"{100 * x['ci_half_width']:10.2f} {100 * x['coverage']:8.0f}% "
              f"{x['design_effect']:13.2f}")
    if d["sd"] > 0:
        print(f"duplicate deals: spread x{d['sd'] / r['sd']:.2f} of random deals (a duplicate "
              f"game is worth {(r['sd'] / d['sd']) ** 2:.1f} random-deal games); reported "
              f"interval x{d['ci_half_width'] / r['ci_half_width']:.2f}")
    else:
        print("duplicate deals: the estimate does not vary at all across seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

