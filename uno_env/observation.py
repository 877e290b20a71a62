"""Observations: named pieces laid out in one flat vector, sizes from the variant.

The same :class:`ObservationLayout` that fills the vector decodes it (``layout.decode``), so
agents read pieces by name (``obs["hand"]``) and the docs' observation tables are generated from it.
Everything is relative to the observer: other players appear in seat order after them
(``+1`` is the next seat clockwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from uno_env.cards import NUM_COLORS, WILD
from uno_env.rules.codes import P_CATCH, P_OVER, PHASES

if TYPE_CHECKING:
    from uno_env.rules.game import Game
    from uno_env.rules.state import State

HISTORY_PIECES = ("opp_declined", "opp_drawn")
"""Pieces added after the first policy files were trained: a file that does not list its
pieces reads every piece but these (``uno_env.agents.policy.policy_pieces``)."""

_F32 = np.dtype(np.float32)  # a dtype object: numpy parses `np.float32` anew on every call
# opp_declined: the bytes of each 4-bit colour mask (one slice store instead of a bit loop)
_BITS = [bytes(m >> c & 1 for c in range(NUM_COLORS)) for m in range(1 << NUM_COLORS)]


@dataclass(frozen=True)
class Piece:
    name: str
    start: int
    size: int
    high: float
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size


class ObservationLayout:
    """Where each named piece lives in the observation vector of one configuration."""

    __slots__ = ("_all_seats", "_at", "_catch", "_ccw", "_color", "_dark", "_discard",
                 "_nf", "_opp_at", "_opp_hidden", "_opp_power", "_own_hidden",
                 "_own_power", "_own_uno", "_pending", "_phase", "_pile", "_pile_hidden",
                 "_revealed", "_revealed_from", "_score", "_seats", "_tail", "_top",
                 "by_name", "face_names", "game", "high", "pieces", "power", "sides", "size")
    # (slots: `build` reads ~20 of these per step; more than 30 in a dict is slower)

    def __init__(self, game: Game) -> None:
        self.game = game
        n, nf = game.num_players, game.num_faces
        others = n - 1
        cards = float(game.num_cards)
        copies = float(max(sum(1 for c in side if c == f) for side in game.side_faces
                           for f in range(nf)))
        self.pieces: list[Piece] = []
        self._at = 0
        add = self._add
        add("hand", nf, copies, "own hand: count of each face (see `face_names`)")
        add("top", nf, 1, "top card of the discard pile: one-hot face")
        add("active_color", NUM_COLORS, 1,
            "active colour: one-hot (all zero while a wild's colour is being chosen)")
        add("counter_clockwise", 1, 1, "1 when play goes counter-clockwise")
        add("phase", len(PHASES), 1, f"decision asked of the observer: one-hot {PHASES}; all zero "
            "when not to act")
        add("pending_draw", 1, cards, "cards the victim of a draw chain would take now")
        add("draw_pile", 1, cards, "cards in the draw pile")
        add("discard", nf, copies, "discard pile: count of each face (cards played since the "
            "last reshuffle)")
        add("own_uno", 1, 1, "1 when the observer has called UNO")
        add("opp_hand_size", others, cards, "hand size of each other player (+1, +2, ...)")
        add("opp_uno", others, 1, "1 when that player has called UNO")
        add("catch_target", others, 1,
            "the player whom `catch` would penalise now (when it is offered)")
        add("revealed", nf, copies, "the hand last shown to the observer by a challenge")
        add("revealed_from", others, 1, "whose hand `revealed` is (relative seat)")
        # G-score: a score stays below the target until the round that ends the match, which
        # adds at most every card's points (the highest of its faces): a finite bound.
        deck_points = sum(max(game.face_points[side[c]] for side in game.side_faces)
                          for c in range(game.num_cards))
        score_high = float(deck_points + (game.target_score - 1 if game.match else 0))
        add("own_score", 1, score_high, "observer's match score (at most the target score - 1 "
            "+ the deck's points)")
        add("opp_score", others, score_high, "each other player's match score")
        # G-hidden: public history, what every player at the table saw happen
        add("opp_declined", others * NUM_COLORS, 1, "for each other player (+1, +2, ...), "
            "1 per colour on which they drew and kept the card (not playing it), until they "
            "next play a card of that colour (cleared by a flip and a new deal)")
        add("opp_drawn", others, cards, "cards each other player has taken since they last "
            "played a card (this round)")
        self.sides = game.num_sides > 1
        if self.sides:  # F-visibility
            add("dark_side", 1, 1, "Flip: 1 when the dark side is active")
            add("opp_hidden", others * nf, copies, "Flip: for each other player (+1, +2, ...), "
                "the count of each inactive face they hold (every player sees those)")
            add("pile_hidden", nf, 1, "Flip: the inactive face of the draw pile's top card")
            add("own_hidden", nf, copies, "Flip: inactive faces of own cards that the observer "
                "has seen (cards drawn from the pile or held through a flip)")
        self.power = game.power_cards
        if self.power:  # X-power: all Power Cards are public
            add("own_power", 1, 1, "Flex: 1 when the observer's Power Card is green")
            add("opp_power", others, 1, "Flex: 1 when that player's Power Card is green")
        self.size = self._at
        self.by_name = {p.name: p for p in self.pieces}
        self.high = np.concatenate(
            [np.full(p.size, p.high, dtype=np.float32) for p in self.pieces])
        self.face_names = list(game.face_names)
        # Offsets as plain attributes: `build` runs once per step.
        at = {p.name: p.start for p in self.pieces}
        self._tail = bytes(self.size - nf)  # the vector after the own hand, before filling
        self._nf = nf
        self._top, self._color, self._ccw = at["top"], at["active_color"], at["counter_clockwise"]
        self._phase, self._pending, self._pile = at["phase"], at["pending_draw"], at["draw_pile"]
        self._discard, self._own_uno = at["discard"], at["own_uno"]
        self._catch = at["catch_target"] - 1  # relative seat k >= 1 sits at k - 1
        self._revealed, self._revealed_from = at["revealed"], at["revealed_from"] - 1
        self._score = at["own_score"]
        self._dark = at.get("dark_side", 0)
        self._opp_hidden = at.get("opp_hidden", 0)
        self._pile_hidden = at.get("pile_hidden", 0)
        self._own_hidden = at.get("own_hidden", 0)
        self._own_power = at.get("own_power", 0)
        self._opp_power = at.get("opp_power", 0)
        self._all_seats = [[(s + k) % n for k in range(n)] for s in range(n)]
        self._seats = [seats[1:] for seats in self._all_seats]
        # per observer, each other seat with its positions in the per-player pieces
        hs, uo, dc, dr = (at[k] for k in ("opp_hand_size", "opp_uno", "opp_declined",
                                          "opp_drawn"))
        self._opp_at = [[(q, hs + k, uo + k, dc + k * NUM_COLORS, dr + k)
                         for k, q in enumerate(seats)] for seats in self._seats]

    def _add(self, name: str, size: int, high: float, doc: str) -> None:
        self.pieces.append(Piece(name, self._at, size, high, doc))
        self._at += size

    def _fill_hidden(self, b: bytearray, state: State, seat: int) -> None:
        """F-visibility: the inactive faces others show, and those the observer has seen."""
        hidden = self.game.side_faces[state.side ^ 1]
        nf = self._nf
        if state.side:
            b[self._dark] = 1
        # each hand's cards through chain(): a Flip hand is ~110 face lists, most empty
        o = self._opp_hidden
        for q in self._seats[seat]:
            for c in chain.from_iterable(state.held[q]):
                b[o + hidden[c]] += 1
            o += nf
        if state.draw_pile:
            b[self._pile_hidden + hidden[state.draw_pile[-1]]] = 1
        known = state.known
        o = self._own_hidden
        for c in chain.from_iterable(state.held[seat]):
            if known[c]:
                b[o + hidden[c]] += 1

    def decode(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Views of ``obs`` by piece name (also accepts the PettingZoo observation dict)."""
        if isinstance(obs, dict):
            obs = obs["observation"]
        return {p.name: obs[p.start:p.stop] for p in self.pieces}

    def build(self, state: State, seat: int) -> np.ndarray:
        """The observation of ``seat``: only what that player may know (G-hidden)."""
        b = state.counts[seat] + self._tail  # the own hand, then zeros: one allocation
        nf = self._nf
        b[self._top + state.faces_of[state.discard[-1]]] = 1
        if state.active_color != WILD:
            b[self._color + state.active_color] = 1
        if state.direction < 0:
            b[self._ccw] = 1
        phase = state.phase
        to_act = state.current == seat and phase != P_OVER
        if to_act:
            b[self._phase + phase] = 1
            # state.catch_victim(), inlined: the common case (no catch) costs no call
            if phase == P_CATCH:
                victim = state.play_seat
            else:
                victim = state.catch_victim() if state._catch_any else -1
            if victim >= 0:  # G-uno: who `catch` would penalise (either catch window)
                b[self._catch + (victim - seat) % state.n] = 1
        pending = state.pending
        if pending:
            b[self._pending] = pending if pending < 255 else 255
        b[self._pile] = len(state.draw_pile)
        o = self._discard
        b[o:o + nf] = state.discard_counts
        uno = state.uno_called
        if uno[seat]:
            b[self._own_uno] = 1
        hand_len, declined, drawn = state.hand_len, state.declined, state.drawn_since
        for q, hs, uo, dc, dr in self._opp_at[seat]:
            b[hs] = hand_len[q]
            if uno[q]:
                b[uo] = 1
            if declined[q]:
                b[dc:dc + NUM_COLORS] = _BITS[declined[q]]
            # drawn_since <= the hand's size <= the deck's (< 255): it fits the byte
            b[dr] = drawn[q]
        shown = state.revealed[seat]
        if shown is not None:
            o = self._revealed
            b[o:o + nf] = shown[1]
            b[self._revealed_from + (shown[0] - seat) % state.n] = 1
        if self.sides:
            self._fill_hidden(b, state, seat)
        if self.power:
            power = state.power
            b[self._own_power] = power[seat]
            o = self._opp_power
            for q in self._seats[seat]:
                b[o] = power[q]
                o += 1
        out = np.array(b, dtype=_F32)  # bytes to float32 in one call (the same values)
        scores = state.scores
        if any(scores):
            at = self._score
            for k, q in enumerate(self._all_seats[seat]):
                out[at + k] = scores[q]
        return out


class StateLayout:
    """The full state (every hand) for centralised critics: ``env.state()``."""

    def __init__(self, game: Game) -> None:
        n, nf = game.num_players, game.num_faces
        self.pieces = [
            ("hands", n * nf), ("top", nf), ("active_color", NUM_COLORS), ("counter_clockwise", 1),
            ("phase", len(PHASES)), ("current", n), ("pending_draw", 1), ("draw_pile", nf),
            ("discard", nf), ("uno_called", n), ("scores", n), ("dark_side", 1),
            ("power_green", n), ("hands_hidden", n * nf if game.num_sides > 1 else 0),
        ]
        self.size = sum(s for _, s in self.pieces)
        self.start = {}
        at = 0
        for name, size in self.pieces:
            self.start[name] = at
            at += size

    def build(self, state: State) -> np.ndarray:
        g = state.game
        n, nf = state.n, g.num_faces
        st = self.start
        out = np.zeros(self.size, dtype=np.float32)
        for s in range(n):
            o = st["hands"] + s * nf
            out[o:o + nf] = np.frombuffer(bytes(state.counts[s]), dtype=np.uint8)
        out[st["top"] + state.faces_of[state.discard[-1]]] = 1
        if state.active_color != WILD:
            out[st["active_color"] + state.active_color] = 1
        out[st["counter_clockwise"]] = state.direction < 0
        out[st["phase"] + state.phase] = 1
        if state.phase != P_OVER:
            out[st["current"] + state.current] = 1
        out[st["pending_draw"]] = state.pending
        pile = np.zeros(nf, dtype=np.float32)  # the draw pile's contents, not its order
        for c in state.draw_pile:
            pile[state.faces_of[c]] += 1
        out[st["draw_pile"]:st["draw_pile"] + nf] = pile
        out[st["discard"]:st["discard"] + nf] = np.frombuffer(
            bytes(state.discard_counts), dtype=np.uint8)
        out[st["uno_called"]:st["uno_called"] + n] = state.uno_called
        out[st["scores"]:st["scores"] + n] = state.scores
        out[st["dark_side"]] = state.side
        if g.power_cards:
            out[st["power_green"]:st["power_green"] + n] = state.power
        if g.num_sides > 1:
            hidden = g.side_faces[state.side ^ 1]
            for s in range(n):
                o = st["hands_hidden"] + s * nf
                for held in state.held[s]:
                    for c in held:
                        out[o + hidden[c]] += 1
        return out
