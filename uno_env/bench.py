"""Side-by-side speed measurement: RLCard's UNO against ours, in one process, alternately.

Each contender plays uniformly random legal actions for ``seconds`` per round; rounds
alternate so that machine load affects all of them alike. Printed: decisions/s, games/s and
the ratios. Note that games differ in length (RLCard's UNO has no voluntary draw and no UNO
call), so steps/s is the comparable figure and games/s is reported beside it.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from uno_env.aec import env as wrapped_env
from uno_env.aec import raw_env

Runner = Callable[[float], tuple[int, int, float]]


def _ours(make: Callable[[], Any], seed: int) -> Runner:
    e = make()
    e.reset(seed=seed)
    rnd = random.Random(seed)

    def run(seconds: float) -> tuple[int, int, float]:
        steps = games = 0
        t0 = time.process_time()
        end = t0 + seconds
        # own loop, not play_episode: the timed loop spans games and checks the clock per step
        while True:
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                if not e.agents:
                    games += 1
                    e.reset()
                    if time.process_time() > end:
                        break
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(int(legal[rnd.randrange(len(legal))]))
            steps += 1
            if steps & 1023 == 0 and time.process_time() > end:
                break
        return steps, games, time.process_time() - t0

    return run


def _rlcard(seed: int) -> Runner:
    import rlcard  # the `bench` extra

    e = rlcard.make("uno", config={"seed": seed})
    rnd = random.Random(seed)

    def run(seconds: float) -> tuple[int, int, float]:
        steps = games = 0
        t0 = time.process_time()
        end = t0 + seconds
        while time.process_time() < end:
            state, _ = e.reset()
            while not e.is_over():
                legal = list(state["legal_actions"])
                state, _ = e.step(legal[rnd.randrange(len(legal))])
                steps += 1
            games += 1
        return steps, games, time.process_time() - t0

    return run


def contenders(variant: str = "classic", num_players: int = 2,
               include_rlcard: bool = True, seed: int = 0,
               options: dict[str, Any] | None = None, vector: int = 0) -> dict[str, Runner]:
    """``vector``: also the batch engine with that many games, without and with
    observations."""
    out: dict[str, Runner] = {}
    opts = dict(options or {})
    if include_rlcard:
        out["rlcard uno (env.step)"] = _rlcard(seed)
    out[f"uno-env raw_env ({variant})"] = _ours(lambda: raw_env(variant, num_players, **opts),
                                                seed)
    out[f"uno-env env() ({variant})"] = _ours(
        lambda: wrapped_env(variant, num_players, **opts), seed)
    if vector:
        from uno_env.batch.bench import vector_runner

        for obs in (False, True):
            name = f"vector_env B={vector} {'masks+obs' if obs else 'masks'}"
            out[name] = vector_runner(variant, num_players, vector, obs, seed, opts)
        import numba

        for obs in (False, True):
            name = (f"vector_env B={vector} {'masks+obs' if obs else 'masks'} "
                    f"{numba.get_num_threads()} threads (wall)")
            out[name] = vector_runner(variant, num_players, vector, obs, seed, opts,
                                      parallel=True)
    return out


def bench(variant: str = "classic", num_players: int = 2, seconds: float = 2.0,
          rounds: int = 3, include_rlcard: bool = True, seed: int = 0,
          options: dict[str, Any] | None = None,
          vector: int = 0) -> dict[str, dict[str, float]]:
    """Median steps/s and games/s of each contender over ``rounds`` alternating rounds
    (ours at the rule ``options``, default: the variant's defaults)."""
    runs = contenders(variant, num_players, include_rlcard, seed, options, vector)
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            steps, games, dt = run(seconds)
            samples[name].append((steps / dt, games / dt))
    return {name: {"steps_per_s": statistics.median(s for s, _ in v),
                   "games_per_s": statistics.median(g for _, g in v)}
            for name, v in samples.items()}


def report(results: dict[str, dict[str, float]]) -> str:
    names = list(results)
    lines = [f"{'contender':50} {'decisions/s':>12} {'games/s':>10}"]
    for name in names:
        r = results[name]
        lines.append(f"{name:50} {r['steps_per_s']:12,.0f} {r['games_per_s']:10,.1f}")
    base = next((n for n in names if n.startswith("rlcard")), None)
    if base is not None:
        for name in names:
            if name != base:
                ratio = results[name]["steps_per_s"] / results[base]["steps_per_s"]
                lines.append(f"ratio {name} / rlcard: {ratio:.2f}x decisions/s")
    return "\n".join(lines)
