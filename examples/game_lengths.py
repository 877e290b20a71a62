"""Measure how many decisions UNO episodes take, to size ``uno_env.aec.DEFAULT_MAX_STEPS``.

Plays random and rule agents in every variant at 2, 4 and the most players, with the
default rules and with every house rule on, one round and one whole match per episode, and
prints the longest episode and the 99.9th percentile per configuration. Usage::

    python examples/game_lengths.py [--rounds 300] [--matches 20] [--variant classic]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from uno_env import list_variants, raw_env
from uno_env.agents import RandomAgent, RuleAgent
from uno_env.play import play_episode
from uno_env.variants import find_variant

HOUSE = {"classic": {"stacking": True, "double_play": True, "jump_in": True,
                     "uno_catch": "decision", "voluntary_draw": True},
         "express": {"uno_catch": "decision", "wd_challenge": True},
         "flip": {"uno_catch": "decision"}, "flex": {"uno_catch": "decision"}}


def lengths(variant: str, n: int, who: str, episodes: int, **options: Any) -> list[int]:
    env = raw_env(variant, n, max_steps=None, **options)
    if who == "random":
        players: list[Any] = [RandomAgent(seed=s) for s in range(n)]
    else:
        players = [RuleAgent(variant, n, seed=s, **options) for s in range(n)]
    out = []
    for ep in range(episodes):
        env.reset(seed=ep)
        play_episode(env, players)
        out.append(env.num_steps)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--matches", type=int, default=20)
    p.add_argument("--variant", action="append", help="only these variants (repeatable)")
    args = p.parse_args()
    worst = 0
    for variant in args.variant or list_variants():
        top = find_variant(variant).player_range({})[1]
        for n in sorted({2, 4, top}):
            for rules in ("default", "house"):
                opts = {} if rules == "default" else HOUSE.get(variant, {})
                for episode, count in (("round", args.rounds), ("match", args.matches)):
                    for who in ("random", "rule"):
                        t = time.process_time()
                        ls = lengths(variant, n, who, count, episode=episode, **opts)
                        worst = max(worst, max(ls))
                        print(f"{variant:8s} n={n:2d} {rules:7s} {episode:5s} {who:6s} "
                              f"episodes={count:4d} mean={np.mean(ls):8.0f} "
                              f"p99.9={np.percentile(ls, 99.9):8.0f} max={max(ls):7d} "
                              f"({time.process_time() - t:.0f}s)", flush=True)
    print(f"longest episode: {worst} decisions")


if __name__ == "__main__":
    main()
