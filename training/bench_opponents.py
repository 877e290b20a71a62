"""Compiled opponents against the Python agents, side by side in one run (a noisy machine
makes separate runs incomparable).

1. Rule decisions per second: the compiled kernel (``opponent_act`` on the states of a batch,
   the engine not counted) and ``RuleAgent.act`` (on the same states' observations).
2. ``evaluate`` on the batch engine against the Python loop: the new path plays all
   ``--games``; the Python loop plays the first ``--python-games`` of the same games
   (same seeds) and its time is scaled to ``--games`` (said in the output).

``python -m uno_env.training.bench_opponents [--games 20000] [--python-games 1000]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from numba import njit

from uno_env.batch.borrow import as_ref, borrow_batch, borrow_tables
from uno_env.batch.opponents import OPP_RULE, borrow_opponents, opponent_act


@njit(cache=False)
def _rule_decisions(s: Any, t: Any, ot: Any, om: Any, seats: np.ndarray, reps: int) -> int:
    """``reps`` decisions of the rule agent on every game's current state (the sum of the
    actions, so that nothing is optimised away)."""
    s = as_ref(borrow_batch(s))  # as a fused kernel would hold them (uno_env.batch.borrow)
    t = as_ref(borrow_tables(t))
    ot, om = borrow_opponents(ot, om)
    ot, om = as_ref(ot), as_ref(om)
    total = 0
    for _ in range(reps):
        for i in range(seats.shape[0]):
            total += opponent_act(s, t, ot, om, i, seats[i], OPP_RULE)
    return total


def rule_speed(variant: str, num_players: int, games: int = 512, reps: int = 200,
               **options: Any) -> tuple[float, float]:
    """(compiled, Python) rule decisions per second on ``games`` states of a batch."""
    from uno_env import agents
    from uno_env.batch.opponents import (
        allocate_opponent_memory,
        build_opponent_tables,
        opponent_reset,
    )
    from uno_env.batch.vector import VectorEnv

    v = VectorEnv(variant, num_players, games, **options)
    obs, info = v.reset(seed=0)
    for _ in range(20):  # states from the middle of games
        obs, _, _, _, info = v.step(v.sample_actions(0))
    ot = build_opponent_tables(v._game, v.layout, v._t)
    om = allocate_opponent_memory(games, num_players, v._t.nf)
    for i in range(games):
        for q in range(num_players):
            opponent_reset(om, i, q, i)
    seats = info["current_player"].astype(np.int64)
    _rule_decisions(v._s, v._t, ot, om, seats, 1)  # compile
    t0 = time.perf_counter()
    _rule_decisions(v._s, v._t, ot, om, seats, reps)
    compiled = games * reps / (time.perf_counter() - t0)
    agent = agents.load("rule", variant=variant, num_players=num_players, **options)
    masks = info["action_mask"]
    t0 = time.perf_counter()
    for _ in range(3):
        for i in range(games):
            agent.act(obs[i], masks[i])
    python = games * 3 / (time.perf_counter() - t0)
    return compiled, python


def arena_speed(variant: str, num_players: int, games: int, **options: Any) -> float:
    """Decisions per second of whole games with the compiled rule agent in every seat."""
    from uno_env.batch.arena import Arena
    from uno_env.batch.opponents import OPP_RULE

    arena = Arena(variant, num_players, slots=1024, **options)
    shape = (games, num_players)
    seeds = np.arange(games * num_players, dtype=np.int64).reshape(shape)
    kinds = np.full(shape, OPP_RULE, np.int64)
    none = np.full(shape, -1, np.int64)
    arena.play(range(8), seeds[:8], kinds[:8], none[:8], [])  # compile / load
    t0 = time.perf_counter()
    out = arena.play(range(games), seeds, kinds, none, [])
    return float(out.steps.sum()) / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    from uno_env import agents
    from uno_env.training.evaluate import play_games
    from uno_env.training.evaluate_batch import play_games_batch

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", default="ppo:classic,rule")
    p.add_argument("--games", type=int, default=20_000)
    p.add_argument("--python-games", type=int, default=1_000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    specs = a.agents.split(",")
    opts: dict[str, Any] = {}
    for s in specs:
        opts.update(agents.trained_options(s))
    compiled, python = rule_speed("classic", 2, **opts)
    print(f"rule decisions/s, classic 2p: compiled {compiled:,.0f}, Python {python:,.0f} "
          f"({compiled / python:,.0f}x)")
    rate = arena_speed("classic", 2, 4000, **opts)
    print(f"whole games, rule in every seat, on the batch engine (deals, engine steps and "
          f"compiled decisions; seeds made beforehand): {rate:,.0f} decisions/s")
    play_games_batch(specs, "classic", 2, opts, a.seed, 0, 2, None)  # compile / load
    t0 = time.perf_counter()
    new = play_games_batch(specs, "classic", 2, opts, a.seed, 0, a.games, None)
    t_new = time.perf_counter() - t0
    t0 = time.perf_counter()
    old = play_games(specs, "classic", 2, opts, a.seed, 0, a.python_games, None)
    t_old = (time.perf_counter() - t0) * a.games / a.python_games
    same = new["outcomes"][:a.python_games] == old["outcomes"]
    print(f"evaluate {a.agents}, {a.games:,} games of classic 2p {opts}:")
    print(f"  batch engine {t_new:8.1f} s   Python loop {t_old:8.1f} s (timed on the first "
          f"{a.python_games:,} games, scaled)   {t_old / t_new:.1f}x; those "
          f"{a.python_games:,} games identical: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
