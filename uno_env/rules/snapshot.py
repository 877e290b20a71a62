"""The snapshot (``to_dict``/``from_dict``) and ``clone``, generated from the state table.

:data:`SCALARS` and :data:`LISTS` name every plain field of a play-out (snapshot key,
attribute, type), read from ``uno_env/rules/table.py``; the rest (cards by name, phase and
stage names, the generator's state) are the few fields with their own encoding below.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Self

from uno_env.rules import table
from uno_env.rules.codes import P_DRAWN, P_OVER, PHASES, STAGES
from uno_env.rules.effects import Resolution
from uno_env.rules.game import Game
from uno_env.rules.hands import Hands
from uno_env.rules.rng import SplitMix64

SCALARS: tuple[tuple[str, str, type], ...] = tuple(
    (f.snap, f.name, f.kind) for f in table.SNAP_SCALARS if f.snap)
"""(snapshot key, attribute, type) of every plain scalar field (from the state table)."""
LISTS: tuple[tuple[str, str, type], ...] = tuple(
    (f.snap, f.name, f.kind) for f in table.SNAP_LISTS if f.snap)
"""(snapshot key, attribute, item type) of every plain per-seat list."""
_ABSENT_OK = {f.snap for f in table.SNAP_LISTS if f.absent_ok}  # older snapshots lack them

# Fields `clone` copies as they are (immutable values), with a shallow copy (flat lists) or
# as a new bytearray; the rest (the hands, the generator, round results) by hand below.
_CLONE_SAME, _CLONE_LIST, _CLONE_BYTES = table.CLONE_SAME, table.CLONE_LIST, table.CLONE_BYTES
_get_same, _get_list = attrgetter(*_CLONE_SAME), attrgetter(*_CLONE_LIST)
_get_bytes = attrgetter(*_CLONE_BYTES)


class Snapshots(Resolution):
    """JSON snapshots and copies of a play-out."""
    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """Everything about the play-out as JSON-serialisable data (cards by name)."""
        names = self.game.card_names
        # each hand oldest card first (F-which-card), so a restore keeps that order
        hands = [sorted(self.book.cards(s), key=self.acq.__getitem__) for s in range(self.n)]
        out: dict[str, Any] = {
            "variant": self.game.variant.name,
            "num_players": self.n,
            "options": dict(self.game.options),
            "hands": [[names[c] for c in h] for h in hands],
            "draw_pile": [names[c] for c in reversed(self.draw_pile)],
            "discard": [names[c] for c in self.discard],
            "phase": PHASES[self.phase],
            "stage": STAGES[self.stage],
            "drawn_card": None if self.drawn_card < 0 else names[self.drawn_card],
            "revealed": [None if r is None else [r[0], list(r[1])] for r in self.revealed],
            "known_hidden": [[bool(self.known[c]) for c in h] for h in hands],
            "round_results": [dict(r) for r in self.round_results],
            "rng": self.rng.state,
        }
        for key, attr, _ in SCALARS:
            out[key] = getattr(self, attr)
        for key, attr, _ in LISTS:
            out[key] = list(getattr(self, attr))
        return out

    @classmethod
    def from_dict(cls, game: Game, data: dict[str, Any]) -> Self:
        """Rebuild a play-out from :meth:`to_dict`; play continues identically."""
        self = cls.__new__(cls)
        self.game = game
        self.n = game.num_players
        pools = {name: list(ids) for name, ids in game.cards_by_name.items()}

        def ids(names: list[str]) -> list[int]:
            try:
                return [pools[name].pop(0) for name in names]
            except (KeyError, IndexError):
                raise ValueError("snapshot cards are not a permutation of the deck") from None

        hands = [ids(h) for h in data["hands"]]
        self.draw_pile = ids(data["draw_pile"])[::-1]
        self.discard = ids(data["discard"])
        if any(pools.values()):
            raise ValueError("snapshot cards are not a permutation of the deck")
        for key, attr, kind in SCALARS:
            setattr(self, attr, kind(data[key]))
        for key, attr, kind in LISTS:
            values = data[key] if key in data or key not in _ABSENT_OK else [0] * self.n
            setattr(self, attr, [kind(x) for x in values])
        self.faces_of = game.side_faces[self.side]
        self._use_hands(Hands(self.n, game.num_faces))
        for s, h in enumerate(hands):
            self.book.add(s, h, self.faces_of)
        self.last_drawn = -1
        self.discard_counts = bytearray(game.num_faces)
        for c in self.discard:
            self.discard_counts[self.faces_of[c]] += 1
        self.phase = PHASES.index(data["phase"])
        self.stage = STAGES.index(data["stage"])
        self.drawn_card = -1
        if data["drawn_card"] is not None and self.phase == P_DRAWN:  # the newest of that name
            f = self.faces_of[game.cards_by_name[data["drawn_card"]][0]]
            self.drawn_card = self.held[self.current][f][-1]
        self.revealed = [None if r is None else (int(r[0]), bytes(r[1]))
                         for r in data["revealed"]]
        self.known = bytearray(game.num_cards)
        self.acq = [0] * game.num_cards
        self.tick = 0
        for h, flags in zip(hands, data["known_hidden"], strict=True):
            for c, k in zip(h, flags, strict=True):
                self.known[c] = bool(k)
                self.tick += 1
                self.acq[c] = self.tick
        self.round_results = [dict(r) for r in data["round_results"]]
        self.rng = SplitMix64(int(data["rng"]))
        self.legal = []
        self._bind()
        if self.phase != P_OVER:
            self._compute_legal()
            if self._catch_any and self.catch_victim() >= 0:
                self.legal.append(self._catch_action)
        return self

    def clone(self) -> Self:
        """An independent copy that plays on exactly as this one would (same generator
        state); much cheaper than a snapshot round trip."""
        out = type(self).__new__(type(self))
        for attr, value in zip(_CLONE_SAME, _get_same(self), strict=True):
            setattr(out, attr, value)
        for attr, value in zip(_CLONE_LIST, _get_list(self), strict=True):
            setattr(out, attr, list(value))
        for attr, value in zip(_CLONE_BYTES, _get_bytes(self), strict=True):
            setattr(out, attr, bytearray(value))
        out.round_results = [dict(r) for r in self.round_results]
        out.rng = SplitMix64(self.rng.state)
        out._use_hands(self.book.copy())
        out._bind()
        return out
