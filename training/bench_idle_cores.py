"""The all-core trainer's ratio to one core on idle cores, estimated from CPU times: for a
machine whose cores are busy with other work, where ``bench_selfplay``'s wall-clock ratio
only says that busy cores have nothing to give.

``python -m uno_env.training.bench_idle_cores [--iterations 15]``

Both trainers (``bench_selfplay``'s ``batch-config-mix`` and ``all-cores-mix``: the workers
sharing the update) run whole iterations alternately. One core's wall time on an idle core
is its CPU time; the all-core trainer's is its critical path: per phase, the slowest
worker's CPU time plus the learner's own (the rollout; each minibatch's shards; the
learner's sums and steps). It leaves out what idle cores add or take away beyond that
(memory bandwidth, the operating system's scheduling), so confirm it with
``bench_selfplay`` on idle cores.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from typing import Any

import numpy as np
import torch

from uno_env.training.bench_selfplay import proc_cpu_seconds, started_trainer


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=15, help="per trainer")
    a = p.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="bench_idle_")
    one = started_trainer({"workers": 1, "policy_lag": 0, "threads": 1}, f"{tmp}/1")
    every: Any = started_trainer(  # the phases below are patched on its internals
        {"workers": "auto", "policy_lag": "auto", "threads": "auto"}, f"{tmp}/a")
    if not every.sharded:
        raise SystemExit(f"{every.cfg.workers} usable CPU(s): no workers to share the update")
    pool = every.workers.workers
    pids = [int(q.pid) for q in pool.procs]
    phases = {"rollout": 0.0, "shards": 0.0, "learner": 0.0}

    def cpus() -> list[float]:
        return [proc_cpu_seconds([pid]) for pid in pids]

    runner, collect, update = pool.shard_runner, every.workers.collect, every._update

    def timed_runner(net: torch.nn.Module) -> Any:
        run = runner(net)

        def timed(parts: list[np.ndarray], mb: Any) -> Any:
            w0 = cpus()
            out = run(parts, mb)
            phases["shards"] += max(w - v for w, v in zip(cpus(), w0, strict=True))
            return out
        return timed

    def timed_collect(*args: Any) -> Any:
        w0, c0 = cpus(), time.process_time()
        out = collect(*args)
        phases["rollout"] += (max(w - v for w, v in zip(cpus(), w0, strict=True))
                              + time.process_time() - c0)
        return out

    def timed_update(*args: Any) -> Any:
        c0 = time.process_time()
        out = update(*args)
        phases["learner"] += time.process_time() - c0  # the learner's own: sums and steps
        return out

    pool.shard_runner, every.workers.collect, every._update = (
        timed_runner, timed_collect, timed_update)
    torch.set_num_threads(1)  # this program's choice: both trainers' learners on one thread
    one.iteration()
    every.iteration()  # warm-up
    phases.update(rollout=0.0, shards=0.0, learner=0.0)
    one_cpu = 0.0
    for _ in range(a.iterations):
        c0 = time.process_time()
        one.iteration()
        one_cpu += time.process_time() - c0
        every.iteration()
    every.workers.close()
    n = a.iterations
    per = one.cfg.num_envs * one.cfg.rollout_ticks
    path = sum(phases.values())
    load = os.getloadavg()
    print(f"{n} iterations of {per} decisions per trainer; load average {load[0]:.2f}")
    print(f"one core: {n * per / one_cpu:9.0f} decisions per CPU-second ({one_cpu / n * 1e3:.0f} "
          f"ms an iteration)")
    print(f"{every.cfg.workers} workers sharing the update: critical path "
          f"{path / n * 1e3:.0f} ms an iteration (rollout {phases['rollout'] / n * 1e3:.0f}, "
          f"slowest shards {phases['shards'] / n * 1e3:.0f}, learner's sums and steps "
          f"{phases['learner'] / n * 1e3:.0f})")
    print(f"estimated on idle cores: all cores vs one core x{one_cpu / path:.2f} decisions/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
