"""What an OpenSpiel UNO state holds (:mod:`uno_env.integrations.openspiel`), each with its
copy and pickle rules.

OpenSpiel clones a Python state by deep-copying every attribute and serialises it by pickling
them, so each part says how: the configuration (:class:`Table`) is shared and pickled by its
key, the engine (:class:`Play`) is copied with its own ``clone`` and pickled as its snapshot,
and the draw inferences (:class:`Trackers`) are copied field by field. None of them lets a
deep copy reach the rules :class:`~uno_env.rules.game.Game` they refer to.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import numpy as np

from uno_env.determinize import observation_layout
from uno_env.inference import Avoid, DrawTracker, tracks
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


class Trackers:
    """Each seat's :class:`~uno_env.inference.DrawTracker` (2-player tables it can follow):
    what the opponent's forced draws and a challenge showed, from that seat's successive
    observations, as the project's ISMCTS agent keeps them. Each seat observes every decision
    point it reaches (:meth:`arrive`) and its own action (:meth:`acted`)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.seats = [DrawTracker(table.game, table.layout)
                      for _ in range(table.game.num_players)]

    def arrive(self, state: State) -> None:
        """The player to act reached a decision point (call once per decision point)."""
        self.seats[state.current].observe(self.table.layout.build(state, state.current))

    def acted(self, seat: int, action: int) -> None:
        self.seats[seat].acted(action)

    def known(self, seat: int) -> dict[str, Any]:
        """``determinize``'s ``avoid`` and ``must`` for ``seat``."""
        t = self.seats[seat]
        return {"avoid": t.avoid, "must": t.must}

    def _fields(self) -> list[tuple[Any, ...]]:
        return [([(av.faces, av.allowed) for av in t.avoid], t.must, t._prev, t._mine)
                for t in self.seats]

    def _load(self, fields: list[tuple[Any, ...]]) -> Trackers:
        for t, (avoid, must, prev, mine) in zip(self.seats, fields, strict=True):
            t.avoid = [Avoid(np.array(f), int(k)) for f, k in avoid]
            t.must = np.array(must)
            t._prev = None if prev is None else (prev[0], np.array(prev[1]),
                                                  np.array(prev[2]))
            t._mine = np.array(mine)
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Trackers:
        return Trackers(self.table)._load(self._fields())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _restore_trackers, (self.table, self._fields())


def _restore_trackers(table: Table, fields: list[tuple[Any, ...]]) -> Trackers:
    return Trackers(table)._load(fields)
