"""Who sits where in an evaluation, and the seeds of its deals and agents: shared by the
Python loop (``evaluate``) and the batch engine (``evaluate_batch``), so both play the same
games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
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


@dataclass
class Tally:
    """What a run of games adds up to, by agent (0 = A, 1 = B): the same bookkeeping for the
    Python loop and the batch engine, so their results compare field for field."""

    wins: list[int] = field(default_factory=lambda: [0, 0])
    points: list[float] = field(default_factory=lambda: [0.0, 0.0])
    shared: int = 0  # games both agents won (tied match winners)
    no_winner: int = 0
    truncated: int = 0
    decisions: int = 0
    outcomes: list[tuple[Any, ...]] = field(default_factory=list)

    def add(self, owner: Sequence[int], scores: Sequence[int], winners: Sequence[int],
            truncated: bool, steps: int) -> None:
        """One game: ``owner[seat]`` is the agent at each seat, ``winners`` the seats."""
        for s, sc in enumerate(scores):
            self.points[int(owner[s])] += sc
        won = {int(owner[s]) for s in winners}
        self.truncated += truncated
        self.decisions += steps
        if len(won) == 1:
            self.wins[won.pop()] += 1
        elif won:
            self.shared += 1
        else:
            self.no_winner += 1
        self.outcomes.append((tuple(scores), tuple(winners), truncated, steps))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
