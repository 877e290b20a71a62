"""Who sits where in an evaluation, and the seeds of its deals and agents: shared by the
Python loop (``evaluate``) and the batch engine (``evaluate_batch``), so both play the same
games."""

from __future__ import annotations

from typing import Any

from uno_env.seeding import derive_seed


def deal_group(num_players: int, seating: str) -> int:
    """How many games share one deal: 2 (seats swapped), or one per seat for ``"one"``."""
    return num_players if seating == "one" else 2


def seat_owner(game_index: int, seat: int, num_players: int = 2,
               seating: str = "alternate") -> int:
    """Which agent (0 = A, 1 = B) sits at ``seat`` in game ``game_index``."""
    if seating == "one":
        return 0 if seat == game_index % num_players else 1
    return (seat + game_index) % 2


def deal_seed(seed: int, game_index: int, group: int = 2) -> int:
    """The env seed of a game: the same for every game of its group (``deal_group``)."""
    return derive_seed(seed, game_index // group)


def agent_seed(seed: int, game_index: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in a game (stochastic agents are reseeded per game,
    so results do not depend on how games are split between processes)."""
    return derive_seed(seed, game_index, seat, 1)


def agent_instance(spec: Any, variant: str, num_players: int, options: dict[str, Any],
              seat: int) -> Any:
    """An agent object as given, or a fresh one loaded from its spec."""
    if not isinstance(spec, str):
        return spec
    from uno_env import agents

    return agents.load(spec, variant=variant, num_players=num_players, seed=seat, **options)
