"""Rollouts for the ISMCTS agent: the Python engine against the batch engine (uno_env.batch).

From one position, ``--n`` determinizations are played out with the agent's default policy
(a) one by one on the Python engine (``uno_env.agents.default_policy.playout``), (b) by
``uno_env.batch.rollout.Rollouts``, as the agent does: each state loaded, copied ``--copies``
times with the draw pile reshuffled, and every copy played to the end by one kernel call.
Prints microseconds per rollout and the mean win share of the player to act (the two
policies are the same, so the shares agree within sampling error). Usage::

    python examples/ismcts_batch_rollouts.py [--n 512] [--copies 8]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from uno_env import raw_env
from uno_env.agents.default_policy import playout
from uno_env.batch.rollout import Rollouts
from uno_env.determinize import determinize


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--copies", type=int, default=8)
    a = p.parse_args()
    env = raw_env("classic", 2)
    env.reset(seed=3)
    s, g = env.engine, env.game
    obs = env.layout.build(s, s.current)
    mask = np.zeros(g.num_actions, np.int8)
    mask[s.legal] = 1
    rng = random.Random(0)
    dets = [determinize(g, obs, mask, rng, seat=0) for _ in range(a.n)]
    t = time.perf_counter()
    python = [playout(d.clone(), rng)[s.current] for d in dets]
    py_us = (time.perf_counter() - t) / a.n * 1e6
    r = Rollouts("classic", 2, leaves=64, per_leaf=a.copies)
    batch = []
    t = time.perf_counter()
    for k in range(0, a.n, 64):
        for d in dets[k:k + 64]:
            r.add(d)
        batch.append(r.run(seed=k)[:, s.current])
    batch_us = (time.perf_counter() - t) / (a.n * a.copies) * 1e6
    print(f"python engine: {py_us:7.1f} us per rollout, win share {np.mean(python):.3f}")
    print(f"batch engine:  {batch_us:7.1f} us per rollout (load and copies included, "
          f"{a.copies} per state), win share {np.mean(np.concatenate(batch)):.3f}")
    print(f"ratio: {py_us / batch_us:.1f}x")


if __name__ == "__main__":
    main()
