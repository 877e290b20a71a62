"""Determinizations per second: the Python ``uno_env.determinize.determinize`` and the
compiled :class:`~uno_env.batch.determinize.Determinizer`, side by side in one run, per
variant (a script, not a test: the machine is noisy, only the ratio in one run means much).

    python -m uno_env.batch.bench_determinize [--players 2] [--positions 40] [--samples 64]

Positions come from random play (every decision phase); each is sampled ``--samples``
times, as a search samples one position many times. The compiled side fills all
``positions x samples`` rows in one call (the first call, which compiles, is not timed).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from uno_env.aec import raw_env
from uno_env.batch.determinize import Determinizer, generators
from uno_env.determinize import Recall, determinize

VARIANTS = ("classic", "flip", "flex", "express")


def positions(variant: str, n: int, count: int, seed: int = 1) -> list[tuple]:
    """(obs, mask, seat, recall) at ``count`` random decision points of random games."""
    env = raw_env(variant, num_players=n)
    rng = random.Random(seed)
    out: list[tuple] = []
    game = 0
    while len(out) < count:
        env.reset(seed=seed + game)
        game += 1
        recall: dict[int, Recall] = {}
        while not env.engine.is_over and len(out) < count:
            s = env.engine
            if rng.random() < 0.2:
                mask = np.zeros(env.game.num_actions, np.uint8)
                mask[s.legal] = 1
                out.append((env.layout.build(s, s.current), mask, s.current,
                            recall.get(s.current)))
            a = rng.choice(s.legal)
            recall[s.current] = Recall(a, s.active_color)
            s.step(a)
    return out


def bench(variant: str, n: int, count: int, samples: int) -> tuple[float, float]:
    """(Python, compiled) determinizations per second."""
    pos = positions(variant, n, count)
    det = Determinizer(variant, n)
    game = det.game
    k = count * samples
    of = np.repeat(np.arange(count), samples)
    obs = np.stack([p[0] for p in pos])
    mask = np.stack([p[1] for p in pos])
    seats = [p[2] for p in pos]
    recall = [p[3] for p in pos]
    batch = det.allocate(k)
    rows = np.arange(k)
    mt, mti = generators([random.Random(j) for j in range(k)])
    det.fill(batch, rows, obs, mask, mt, mti, of=of, seats=seats, recall=recall)  # compile
    start = time.perf_counter()
    det.fill(batch, rows, obs, mask, mt, mti, of=of, seats=seats, recall=recall)
    compiled = k / (time.perf_counter() - start)
    per = max(1, samples // 8)  # the Python side: fewer samples of each position
    rng = random.Random(0)
    start = time.perf_counter()
    for obs_p, mask_p, seat, rec in pos:
        for _ in range(per):
            determinize(game, obs_p, mask_p, rng, seat=seat, recall=rec)
    python = count * per / (time.perf_counter() - start)
    return python, compiled


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS))
    args = ap.parse_args(argv)
    print(f"{'variant':<10}{'python/s':>12}{'compiled/s':>14}{'ratio':>9}"
          f"   ({args.players} players, {args.positions} positions x {args.samples} samples)")
    for v in args.variants:
        py, nb = bench(v, args.players, args.positions, args.samples)
        print(f"{v:<10}{py:>12.0f}{nb:>14.0f}{nb / py:>8.1f}x", flush=True)


if __name__ == "__main__":
    main()
