"""Speed of the batch engine: the contender for ``uno-env bench --vector`` (measured beside
RLCard and raw_env in one run) and the table over variants, player counts and batch sizes.
Random legal actions are drawn by a kernel (``VectorEnv.sample_actions``), never by a Python
loop over games; times are CPU time of this process (one core), wall time for the
threaded kernel."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

Runner = Callable[[float], tuple[int, int, float]]


def vector_runner(variant: str, num_players: int, num_envs: int, observations: bool,
                  seed: int = 0, options: dict[str, Any] | None = None,
                  parallel: bool = False) -> Runner:
    """``parallel``: the threaded step kernel, timed by the wall clock (CPU time would add
    up the threads); otherwise CPU time of this process (one core)."""
    from uno_env.batch.vector import vector_env

    v = vector_env(variant, num_players, num_envs, observations=observations,
                   parallel=parallel, **(options or {}))
    clock = time.perf_counter if parallel else time.process_time
    v.reset(seed=seed)
    v.step(v.sample_actions(seed))  # compiled (or loaded from the cache) before timing

    def run(seconds: float) -> tuple[int, int, float]:
        steps = games = 0
        t0 = clock()
        end = t0 + seconds
        while clock() < end:
            for _ in range(8):
                _, _, term, trunc, _ = v.step(v.sample_actions())
                games += int(term.sum() + trunc.sum())
            steps += 8 * num_envs
        return steps, games, clock() - t0

    return run


def vector_table(variants: list[str], players: list[int], sizes: list[int],
                 seconds: float = 1.0) -> str:
    """decisions/s (masks only, and with observations) for every combination."""
    from uno_env.batch.vector import vector_env
    from uno_env.variants import find_variant

    lines = [f"{'variant':8} {'players':>7} {'batch':>6} {'masks dec/s':>13} "
             f"{'+obs dec/s':>13} {'bytes/game':>10}"]
    for var in variants:
        for n in players:
            if n > find_variant(var).max_players:
                continue
            for b in sizes:
                rates = []
                for obs in (False, True):
                    steps, _, dt = vector_runner(var, n, b, obs)(seconds)
                    rates.append(steps / dt)
                mem = vector_env(var, n, 1).bytes_per_game
                lines.append(f"{var:8} {n:7} {b:6} {rates[0]:13,.0f} {rates[1]:13,.0f} "
                             f"{mem:10,}")
    return "\n".join(lines)


_START = ("import time; t = time.perf_counter(); from uno_env.batch.vector import vector_env; "
          "v = vector_env('classic', 2, 64); v.reset(seed=0); v.step(v.sample_actions()); "
          "print(time.perf_counter() - t)")


def start_times() -> tuple[float, float]:
    """Seconds to the first step in a new process: with an empty numba cache (compiling
    every kernel), then with the cache that run left (numba ``cache=True``)."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = []
        for _ in range(2):
            r = subprocess.run([sys.executable, "-c", _START], env=env, check=True,
                               capture_output=True, text=True)
            out.append(float(r.stdout.strip().splitlines()[-1]))
    return out[0], out[1]


def vector_report(variants: list[str] | None = None, seconds: float = 1.0) -> str:
    """The table of ``uno-env bench --vector`` plus the start times."""
    from uno_env.variants import list_variants

    table = vector_table(variants or list_variants(), [2, 4, 10], [1, 64, 1024, 8192],
                         seconds=seconds)
    compile_s, cached_s = start_times()
    return (f"{table}\nfirst call in a new process: {compile_s:.1f} s with an empty numba "
            f"cache (compiling), {cached_s:.1f} s with the cache")
