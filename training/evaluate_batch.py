"""Evaluation games on the batch engine: the same games as ``evaluate.play_games``.

When both agents are ``random``, ``rule`` or a greedy ``ppo:`` policy, the games run on the
batch engine (``uno_env.batch.arena``): ``random`` and ``rule`` seats as compiled kernels
that choose exactly what the Python agents choose, a policy's seats of all games in play
answered by one forward per tick (``PPOAgent``'s choice, see ``PPOBatch``). Deals, seats
and agent seeds are ``evaluate``'s (``deal_seed``, ``seat_owner``, ``agent_seed``), so the
tallies are those of the Python loop, game for game (``tests/test_evaluate_batch.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

SLOTS = 1024  # games in play at once: the batch a policy's forward sees


def batch_unsupported(specs: Sequence[Any], variant: str, num_players: int,
                      options: dict[str, Any]) -> str | None:
    """Why these agents cannot play on the batch engine, or None when they can."""
    from uno_env.batch.opponents import KINDS
    from uno_env.batch.support import problems
    from uno_env.variants import find_variant

    lacking = problems(find_variant(variant))
    if lacking:
        return f"the batch engine does not play {variant}: {'; '.join(lacking)}"
    for spec in specs:
        if not isinstance(spec, str):
            return f"agent {spec!r} is an object, not a spec"
        s = spec.strip()
        if s.lower() in KINDS:
            continue
        if not s.lower().startswith("ppo:"):
            return f"agent {spec!r} has no batch version (random, rule and ppo:... have)"
        from uno_env.training.seating import agent_instance

        if not getattr(agent_instance(s, variant, num_players, options, 0), "greedy", False):
            return f"agent {spec!r} samples its actions (only greedy policies batch)"
    return None


def play_games_batch(specs: Sequence[str], variant: str, num_players: int,
                     options: dict[str, Any], seed: int, start: int, stop: int,
                     max_steps: int | None, on_game: Callable[[], None] | None = None,
                     seating: str = "alternate") -> dict[str, Any]:
    """``evaluate.play_games`` on the batch engine (same arguments, same tallies)."""
    from uno_env.agents.ppo import PPOBatch
    from uno_env.batch.arena import Arena, ExternalPolicy
    from uno_env.batch.opponents import KINDS, OPP_EXTERNAL
    from uno_env.training.seating import (
        Tally,
        agent_instance,
        agent_seed,
        deal_group,
        deal_seed,
        seat_owner,
    )

    n = num_players
    games = list(range(start, stop))
    group = deal_group(n, seating)
    owner = np.array([[seat_owner(k, q, n, seating) for q in range(n)] for k in games],
                     np.int64).reshape(len(games), n)
    agent_seeds = np.array([[agent_seed(seed, k, q) for q in range(n)] for k in games],
                           np.int64).reshape(len(games), n)
    kind_of = np.zeros(2, np.int64)
    policy_index = np.full(2, -1, np.int64)
    policies: list[ExternalPolicy] = []
    for i, spec in enumerate(specs):
        kind_of[i] = KINDS.get(spec.strip().lower(), OPP_EXTERNAL)
        if kind_of[i] == OPP_EXTERNAL:
            policy_index[i] = len(policies)
            policies.append(PPOBatch(agent_instance(spec, variant, n, options, 0)).act_batch)
    arena = Arena(variant, n, max_steps=max_steps, slots=max(1, min(SLOTS, len(games))),
                  **options)

    def tick(k: int) -> None:
        for _ in range(k):
            on_game()  # type: ignore[misc]  # only passed when on_game is given

    out = arena.play([deal_seed(seed, k, group) for k in games], agent_seeds, kind_of[owner],
                     policy_index[owner], policies,
                     None if on_game is None else tick)
    tally = Tally()
    for g in range(len(games)):
        tally.add(owner[g], [int(x) for x in out.scores[g]],
                  [q for q in range(n) if out.winners[g] >> q & 1], bool(out.truncated[g]),
                  int(out.steps[g]))
    return tally.as_dict()
