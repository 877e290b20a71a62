"""Rollouts for the ISMCTS agent: Python engine versus the batch engine (uno_env.batch).

From one position, 256 determinizations are played out (a) one by one on the Python engine
with the agent's default policy, (b) one by one with uniformly random moves, (c) all at once
on ``vector_env`` (loaded with ``from_state``, uniformly random moves drawn by the kernel,
stepped in lockstep until every game has ended once). Prints milliseconds per rollout.
Usage::

    python examples/ismcts_batch_rollouts.py [--n 256]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from uno_env import raw_env
from uno_env.agents.ismcts import playout
from uno_env.batch.convert import from_state
from uno_env.batch.vector import vector_env
from uno_env.determinize import determinize


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=256)
    n = p.parse_args().n
    env = raw_env("classic", 2)
    env.reset(seed=3)
    s, g = env.engine, env.game
    obs = env.layout.build(s, s.current)
    mask = np.zeros(g.num_actions)
    mask[s.legal] = 1
    rng = random.Random(0)

    def sample() -> list:
        return [determinize(g, obs, mask, rng, seat=0) for _ in range(n)]

    t = time.perf_counter()
    for d in sample():
        playout(d, rng)
    heuristic = (time.perf_counter() - t) / n
    steps = 0
    dets = sample()
    t = time.perf_counter()
    for d in dets:
        while not d.is_over:
            d.step(rng.choice(d.legal))
            steps += 1
    rand = (time.perf_counter() - t) / n
    v = vector_env("classic", 2, num_envs=n, observations=False)
    v.reset(seed=0)
    for _ in range(3):  # compile the kernels first
        v.step(v.sample_actions())
    dets = sample()
    t = time.perf_counter()
    for i, d in enumerate(dets):
        from_state(v._s, v._t, d, i)
    load = (time.perf_counter() - t) / n
    done = np.zeros(n, bool)
    t = time.perf_counter()
    k = 0
    while not done.all() and k < 20000:
        _, _, term, trunc, _ = v.step(v.sample_actions())
        done |= term | trunc
        k += 1
    batch = (time.perf_counter() - t) / n
    print(f"python, default policy: {heuristic * 1e3:.2f} ms per rollout")
    print(f"python, random moves:   {rand * 1e3:.2f} ms per rollout ({steps / n:.0f} steps)")
    print(f"batch, random moves:    {batch * 1e3:.2f} ms per rollout + {load * 1e3:.3f} ms to "
          f"load ({k} lockstep steps until all {n} ended)")


if __name__ == "__main__":
    main()
