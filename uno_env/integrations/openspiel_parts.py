"""What an OpenSpiel UNO state holds (:mod:`uno_env.integrations.openspiel`), each with its
copy and pickle rules.

OpenSpiel clones a Python state by deep-copying every attribute and serialises it by pickling
them, so each part says how: the configuration (:class:`Table`) is shared and pickled by its
key, the engine (:class:`Play`) is copied with its own ``clone`` and pickled as its snapshot,
and the draw inferences (:class:`DrawKnowledge`), a cache, start empty. None of them lets a
deep copy reach the rules :class:`~uno_env.rules.game.Game` they refer to.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from uno_env.determinize import observation_layout
from uno_env.inference import DrawTracker, tracks
from uno_env.rules.game import Game
from uno_env.rules.state import State


class Table:
    """What never changes for one configuration: the rules, the observation layout and the
    decision limit. Shared by every state of the configuration, never copied."""

    def __init__(self, variant: str, players: int, options_json: str, max_steps: int) -> None:
        self.key = (variant, players, options_json, max_steps)
        self.game = Game(variant, players, **json.loads(options_json))
        self.layout = observation_layout(self.game)
        self.max_steps = max_steps
        self.tracks = tracks(self.game)  # 2 players, one side, no jump-in: DrawTracker

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return table_for, self.key


@lru_cache(maxsize=64)
def table_for(variant: str, players: int, options_json: str, max_steps: int) -> Table:
    """The (shared) :class:`Table` of a configuration; ``options_json``: sorted JSON."""
    return Table(variant, players, options_json, max_steps)


class Play:
    """The engine state of one play-out: copied with the engine's own ``clone`` and pickled
    as its snapshot (``to_dict``), which restores a play-out that goes on identically."""

    __slots__ = ("state", "table")

    def __init__(self, table: Table, state: State) -> None:
        self.table, self.state = table, state

    def __deepcopy__(self, memo: dict[int, Any]) -> Play:
        return Play(self.table, self.state.clone())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _restore_play, (self.table, self.state.to_dict())


def _restore_play(table: Table, data: dict[str, Any]) -> Play:
    return Play(table, State.from_dict(table.game, data))


class DrawKnowledge:
    """What the opponent's draws and a challenge showed each seat (2-player tables that
    :class:`~uno_env.inference.DrawTracker` can follow), found when a resampling asks for it
    by replaying the game from its deal: the seat's observation at each of its decision
    points and its actions, fed as the project's ISMCTS agent feeds its tracker. Ordinary
    play pays nothing; one search (many resamplings of one state) replays once. A copy or a
    pickled state starts empty (it may have moved on)."""

    def __init__(self) -> None:
        self._cache: dict[int, tuple[int, dict[str, Any]]] = {}

    def known(self, table: Table, deal_seed: int, moves: Sequence[int],
              seat: int) -> dict[str, Any]:
        """``determinize``'s ``avoid`` and ``must`` for ``seat`` after ``moves`` (seat,
        action, seat, action, ...) from the deal seeded ``deal_seed``; {} where the tracker
        does not apply."""
        if not table.tracks:
            return {}
        hit = self._cache.get(seat)
        if hit is not None and hit[0] == len(moves):
            return hit[1]
        state = State(table.game, seed=deal_seed)
        tracker = DrawTracker(table.game, table.layout)
        for k in range(0, len(moves), 2):
            mover, action = moves[k], moves[k + 1]
            if mover == seat:
                tracker.observe(table.layout.build(state, seat))
            state.step(action)
            if mover == seat:
                tracker.acted(action)
        if state.current == seat:
            tracker.observe(table.layout.build(state, seat))
        out = {"avoid": tracker.avoid, "must": tracker.must}
        self._cache[seat] = (len(moves), out)
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> DrawKnowledge:
        return DrawKnowledge()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return DrawKnowledge, ()
