"""One play-out: the rules engine proper.

A :class:`State` holds everything that changes during a round or match. ``step(action)``
applies one decision of the player to act; the engine then resolves everything up to the
next real decision. A decision with exactly one legal action (nothing playable: draw; an
unplayable drawn card: keep it; nothing to stack: accept; one possible target) is taken by
the engine for the player, so ``current`` is always a player with a real choice.

Hot-path data are plain ints and lists: a card is an int id, ``faces_of[card]`` its active
face, ``counts[seat]`` a bytearray of face counts. Randomness comes only from ``self.rng``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from uno_env.actions import (
    ACCEPT,
    CATCH,
    CHALLENGE,
    COLOR,
    DRAW,
    PASS,
    PLAY,
    PLAY_TWO,
    UNO,
)
from uno_env.rules.game import (
    E_DRAW,
    E_NUMBER,
    E_REVERSE,
    E_SKIP,
    E_WILD,
    E_WILD_DRAW,
    UNO_AUTO,
    UNO_OFF,
)

if TYPE_CHECKING:
    from uno_env.rules.game import Game

# Phases: the decision being asked of `current`.
(P_PLAY, P_DRAWN, P_COLOR, P_CHALLENGE, P_STACK, P_CATCH, P_JUMP_IN, P_REVERSE_BACK,
 P_TARGET, P_OVER) = range(10)
PHASES = ("play", "drawn", "color", "challenge", "stack", "catch", "jump-in", "reverse-back",
          "target", "over")

# What remains to resolve after a card was played (G-uno: choices, catch, effect, window).
ST_CATCH, ST_EFFECT, ST_WINDOW, ST_NEXT = range(4)
STAGES = ("catch", "effect", "window", "next")


class IllegalActionError(ValueError):
    """An action that is not legal now; the game is left unchanged."""


class State:
    """A UNO round (or match) in progress. Build with :meth:`Game.new_state`."""

    def __init__(self, game: Game, seed: int | None = None,
                 deck: Sequence[str] | None = None, dealer: int | None = None) -> None:
        g = game
        self.game = g
        self.n = g.num_players
        self.rng = np.random.default_rng(seed)
        self.scores = [0] * self.n
        self.round_results: list[dict[str, Any]] = []
        self.legal: list[int] = []  # the actions `current` may take now
        self._bind()
        order = g.parse_deck(deck) if deck is not None else None
        if dealer is not None and (
            isinstance(dealer, bool) or not isinstance(dealer, int | np.integer)
            or not 0 <= dealer < self.n
        ):
            raise ValueError(f"dealer must be a seat 0-{self.n - 1}, got {dealer!r}")
        if dealer is None:
            dealer = int(self.rng.integers(self.n))  # G-dealer: drawn from the seed
        self._deal(int(dealer), order)
        self._settle()

    def _bind(self) -> None:
        """Per-game constants read on the hot path, held as plain attributes."""
        g = self.game
        self._types = g.actions.types
        self._match_bits = g.match_bits
        self._uno_on = g.uno_mode != UNO_OFF
        self._draw_action = g.actions.draw

    # --- dealing ----------------------------------------------------------------------------
    def _deal(self, dealer: int, order: list[int] | None) -> None:
        """G-deal: shuffle (unless the order is given), deal one at a time from dealer + 1."""
        g, n = self.game, self.n
        self.dealer = dealer
        self.side = 0
        self.faces_of = g.side_faces[0]
        if order is None:
            order = self.rng.permutation(g.num_cards).tolist()
        self.draw_pile: list[int] = order[::-1]  # top of the pile is the end of the list
        self.discard: list[int] = []
        self.discard_counts = bytearray(g.num_faces)
        # held[seat][face]: that seat's cards of that face, oldest first (F-which-card)
        self.held: list[list[list[int]]] = [[[] for _ in range(g.num_faces)] for _ in range(n)]
        self.counts = [bytearray(g.num_faces) for _ in range(n)]
        self.hand_len = [0] * n
        self.present = [0] * n  # bit f set: the seat holds a card of face f
        self.uno_called = [False] * n
        self.revealed: list[tuple[int, bytes] | None] = [None] * n
        pile, faces_of = self.draw_pile, self.faces_of
        for _ in range(g.hand_size):
            for i in range(1, n + 1):
                seat = (dealer + i) % n
                c = pile.pop()
                f = faces_of[c]
                self.held[seat][f].append(c)
                self.counts[seat][f] += 1
                self.hand_len[seat] += 1
                self.present[seat] |= 1 << f
        self.direction = 1
        self.pending = 0
        self.drawn_card = -1
        self.last_drawn = -1
        self.passes = 0
        self.play_seat = -1
        self.going_out = False
        self.honest = True
        self.challenge_seat = -1
        self.stage = ST_NEXT
        self.next_seat = (dealer + 1) % n
        self.current = (dealer + 1) % n
        self.phase = P_PLAY
        self.active_color = 0
        self._first_discard()

    def _first_discard(self) -> None:
        """C-first-discard: the top card's action applies to the first player."""
        g, n, d = self.game, self.n, self.dealer
        pile = self.draw_pile
        while True:
            c = pile.pop()
            f = self.faces_of[c]
            if g.face_effect[f] not in g.first_redraw:
                break
            pile.append(c)  # returned to the deck, which is reshuffled
            self._shuffle(pile)
        self.discard.append(c)
        self.discard_counts[f] += 1
        self.active_color = g.face_color[f]
        first = (d + 1) % n
        effect = g.face_effect[f]
        if effect == E_SKIP:
            self._start_turn((d + 2) % n)
        elif effect == E_REVERSE:
            self.direction = -1
            self._start_turn(d)
        elif effect == E_DRAW:
            self._draw(first, g.face_draw[f])
            self._start_turn((d + 2) % n)
        elif g.face_wild[f]:
            self.current = first  # the first player chooses the colour, then plays
            self.phase = P_COLOR
            self.stage = ST_NEXT
            self.next_seat = first
        else:
            self._start_turn(first)

    def _shuffle(self, cards: list[int]) -> None:
        perm = self.rng.permutation(len(cards))
        cards[:] = [cards[i] for i in perm]

    # --- primitive moves --------------------------------------------------------------------
    def _draw(self, seat: int, n: int) -> int:
        """Move up to ``n`` cards from the draw pile to ``seat`` (G-reshuffle); how many came."""
        pile = self.draw_pile
        held = self.held[seat]
        cnt = self.counts[seat]
        faces_of = self.faces_of
        got = 0
        bits = 0
        while got < n:
            if not pile and not self._reshuffle():
                break
            c = pile.pop()
            f = faces_of[c]
            held[f].append(c)
            cnt[f] += 1
            bits |= 1 << f
            got += 1
        if got:
            self.present[seat] |= bits
            self.hand_len[seat] += got
            self.uno_called[seat] = False  # G-uno: the call stands until the hand grows
            self.last_drawn = c
        return got

    def _reshuffle(self) -> bool:
        """G-reshuffle: the discards under the top card become the new draw pile."""
        d = self.discard
        if len(d) <= 1:
            return False
        top = d[-1]
        rest = d[:-1]
        del d[:-1]
        self._shuffle(rest)
        self.draw_pile.extend(rest)
        dc = self.discard_counts
        dc[:] = bytes(len(dc))
        dc[self.faces_of[top]] = 1
        return True

    def _start_turn(self, seat: int) -> None:
        self.current = seat
        self.phase = P_PLAY
        self.drawn_card = -1

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's cards (grouped by face, oldest first within a face)."""
        return [[c for cards in held for c in cards] for held in self.held]

    def playable(self, face: int) -> bool:
        """G-match: colour, number/symbol, or wild."""
        g = self.game
        if g.face_wild[face] or g.face_color[face] == self.active_color:
            return True
        top = self.faces_of[self.discard[-1]]
        return g.face_symbol_match[face] and g.face_symbol[face] == g.face_symbol[top]

    # --- legal decisions --------------------------------------------------------------------
    def _compute_legal(self) -> None:
        legal = self.legal
        legal.clear()
        p = self.current
        ph = self.phase
        if ph == P_PLAY:
            # G-match over bit sets; "play <face f>" is action f
            bits = self.present[p] & self._match_bits[self.active_color][
                self.faces_of[self.discard[-1]]]
            if not bits and not self._uno_on:
                legal.append(self._draw_action)
                return
            while bits:
                low = bits & -bits
                legal.append(low.bit_length() - 1)
                bits ^= low
        g = self.game
        A = g.actions
        hand_len = self.hand_len[p]
        uno_ok = self._uno_on and not self.uno_called[p]
        if ph == P_PLAY:
            any_two = False
            if g.double_play:  # C-double-play
                two = A.play_two
                cnt = self.counts[p]
                for f in list(legal):
                    if two[f] >= 0 and cnt[f] >= 2:
                        legal.append(two[f])
                        any_two = True
            if uno_ok and ((hand_len == 2 and legal) or (hand_len == 3 and any_two)):
                legal.append(A.uno)
            legal.append(A.draw)
        elif ph == P_DRAWN:
            f = self.faces_of[self.drawn_card]
            if self.playable(f):
                legal.append(A.play[f])
                if uno_ok and hand_len == 2:
                    legal.append(A.uno)
            legal.append(A.pass_)
        elif ph == P_COLOR:
            legal.extend(A.color[self.side])
        elif ph in (P_CHALLENGE, P_STACK):
            if ph == P_CHALLENGE and g.face_challengeable[self.faces_of[self.discard[-1]]]:
                legal.append(A.challenge)
            if g.stacking:  # C-stacking: same symbol as the draw card on top
                cnt = self.counts[p]
                tsym = g.face_symbol[self.faces_of[self.discard[-1]]]
                can_stack = False
                for f in range(g.num_faces):
                    if cnt[f] and g.face_symbol[f] == tsym:
                        legal.append(A.play[f])
                        can_stack = True
                if uno_ok and hand_len == 2 and can_stack:
                    legal.append(A.uno)
            legal.append(A.accept)
        elif ph == P_CATCH:
            legal.append(A.catch)
            legal.append(A.pass_)
        elif ph == P_JUMP_IN:
            legal.append(A.play[self.faces_of[self.discard[-1]]])
            if uno_ok and hand_len == 2:
                legal.append(A.uno)
            legal.append(A.pass_)

    def _settle(self) -> None:
        """Compute the next decision, taking forced (single-action) decisions for the player."""
        legal = self.legal
        while self.phase != P_OVER:
            self._compute_legal()
            if len(legal) != 1:
                return
            self._apply(legal[0])
        legal.clear()

    # --- stepping ---------------------------------------------------------------------------
    def step(self, action: int) -> None:
        """Apply one decision of ``current``. Illegal: :class:`IllegalActionError`, no change."""
        legal = self.legal
        if action not in legal:
            raise IllegalActionError(self.illegal_message(action))
        self._apply(action)
        while self.phase != P_OVER:  # _settle, inlined: this runs every step
            self._compute_legal()
            if len(legal) != 1:
                return
            self._apply(legal[0])
        legal.clear()

    def illegal_message(self, action: Any) -> str:
        A = self.game.actions
        if isinstance(action, int | np.integer) and 0 <= action < len(A):
            what = f"action {int(action)} ({A.meanings[action]})"
        else:
            what = f"action {action!r} (not an index 0-{len(A) - 1})"
        if self.phase == P_OVER:
            return f"{what} is not legal: the game is over"
        legal = ", ".join(f"{a} ({A.meanings[a]})" for a in self.legal)
        return (f"{what} is not legal for seat {self.current} in phase "
                f"{PHASES[self.phase]!r}; legal: {legal}")

    def _apply(self, a: int) -> None:
        g = self.game
        t = self._types[a]
        p = self.current
        ph = self.phase
        if t == PLAY:
            self._play(p, g.actions.args[a], self.drawn_card if ph == P_DRAWN else -1, False)
        elif t == DRAW:
            if self._draw(p, 1):
                self.passes = 0
                self.drawn_card = self.last_drawn
                self.phase = P_DRAWN
            else:  # G-reshuffle: nothing to draw, the turn ends
                self._no_play(p)
        elif t == PASS:
            if ph == P_DRAWN:  # G-draw-then-play: keep the drawn card
                self._start_turn((p + self.direction) % self.n)
            elif ph == P_CATCH:
                if not self._ask_catch((p + self.direction) % self.n):
                    self._run()
            else:  # P_JUMP_IN
                if not self._open_window((p + self.direction) % self.n):
                    self._run()
        elif t == COLOR:
            self.active_color = g.actions.args[a]
            self._run()
        elif t == ACCEPT:
            self._draw(p, self.pending)
            self.pending = 0
            self.next_seat = (p + self.direction) % self.n
            self.stage = ST_WINDOW
            self._run()
        elif t == CHALLENGE:
            s = self.challenge_seat
            self.revealed[p] = (s, bytes(self.counts[s]))  # G-wd-challenge: shown to p only
            if self.honest:
                self._draw(p, self.pending + 2)
                self.next_seat = (p + self.direction) % self.n
            else:
                self._draw(s, self.pending)
                self.next_seat = p
            self.pending = 0
            self.stage = ST_WINDOW
            self._run()
        elif t == UNO:
            self.uno_called[p] = True
        elif t == CATCH:
            self._draw(self.play_seat, g.uno_penalty)
            self._run()
        elif t == PLAY_TWO:
            self._play(p, g.actions.args[a], -1, True)
        else:  # pragma: no cover - the mask only offers the types above
            raise AssertionError(f"unhandled action type {t}")

    def _no_play(self, p: int) -> None:
        """A turn that ended without a play because nothing could be drawn (G-blocked)."""
        self.passes += 1
        if self.passes >= self.n:
            self._end_round(-1)
        else:
            self._start_turn((p + self.direction) % self.n)

    def _play(self, p: int, f: int, card: int, two: bool) -> None:
        """Put a card of face ``f`` on the discard pile (``card`` if given, else the one held
        longest; two of them for a double play), then resolve it."""
        g = self.game
        cards = self.held[p][f]
        if card >= 0:
            cards.remove(card)
        else:
            card = cards.pop(0)
        cnt = self.counts[p]
        prior_color = self.active_color
        cnt[f] -= 1
        self.discard.append(card)
        self.discard_counts[f] += 1
        left = self.hand_len[p] - 1
        if two:  # C-double-play: the second counts as played on the first
            self.discard.append(cards.pop(0))
            cnt[f] -= 1
            self.discard_counts[f] += 1
            left -= 1
        self.hand_len[p] = left
        if not cards:
            self.present[p] &= ~(1 << f)
        if left > 1:
            self.uno_called[p] = False  # a call covers only the play that leaves one card
        self.passes = 0
        self.play_seat = p
        self.going_out = left == 0
        self.stage = ST_CATCH
        if g.face_challengeable[f]:
            self.challenge_seat = p
            self.honest = g.variant.is_honest(self, p, prior_color)
        if g.face_wild[f]:
            if not self.going_out:  # G-wild-color; a last card's colour would not matter
                self.current = p
                self.phase = P_COLOR
                return
        else:
            self.active_color = g.face_color[f]
        self._run()

    def _run(self) -> None:
        """Resolve the played card stage by stage until a decision is needed."""
        g = self.game
        while True:
            st = self.stage
            if st == ST_CATCH:  # G-uno: after the card's own choices, before its effect
                self.stage = ST_EFFECT
                p = self.play_seat
                if g.uno_mode != UNO_OFF and self.hand_len[p] == 1 and not self.uno_called[p]:
                    if g.uno_mode == UNO_AUTO:
                        self._draw(p, g.uno_penalty)
                    elif self._ask_catch((p + self.direction) % self.n):
                        return
            elif st == ST_EFFECT:
                self.stage = ST_WINDOW
                if self._effect():
                    return
            elif st == ST_WINDOW:
                self.stage = ST_NEXT
                if self.going_out:  # G-win-round: after the last card's effect
                    self._end_round(self.play_seat)
                    return
                if g.jump_in and self._open_window(
                        (self.play_seat + self.direction) % self.n):
                    return
            else:
                self._start_turn(self.next_seat)
                return

    def _ask_catch(self, seat: int) -> bool:
        """Ask the next opponent (from ``seat`` on) whether to catch; False when none is left."""
        if seat == self.play_seat:
            return False
        self.current = seat
        self.phase = P_CATCH
        return True

    def _open_window(self, seat: int) -> bool:
        """E-jump-in: ask, from ``seat`` on, the next player holding the top card's twin."""
        f = self.faces_of[self.discard[-1]]
        if self.game.face_wild[f]:
            return False
        n, d, p = self.n, self.direction, self.play_seat
        counts = self.counts
        while seat != p:
            if counts[seat][f]:
                self.current = seat
                self.phase = P_JUMP_IN
                return True
            seat = (seat + d) % n
        return False

    def _effect(self) -> bool:
        """C-effects of the card just played; True when its victim must decide first."""
        g = self.game
        p = self.play_seat
        f = self.faces_of[self.discard[-1]]
        e = g.face_effect[f]
        n = self.n
        d = self.direction
        if e in (E_NUMBER, E_WILD):
            self.next_seat = (p + d) % n
        elif e == E_SKIP:
            self.next_seat = (p + 2 * d) % n
        elif e == E_REVERSE:
            d = -d
            self.direction = d
            # G-two-players: Reverse acts as Skip
            self.next_seat = p if n == 2 else (p + d) % n
        elif e in (E_DRAW, E_WILD_DRAW):
            v = (p + d) % n
            self.pending += g.face_draw[f]
            if not self.going_out and (g.stacking or g.face_challengeable[f]):
                self.current = v
                self.phase = P_CHALLENGE if e == E_WILD_DRAW else P_STACK
                return True
            self._draw(v, self.pending)
            self.pending = 0
            self.next_seat = (v + d) % n
        else:  # pragma: no cover - effects of later variants
            raise AssertionError(f"effect {e} not implemented")
        return False

    # --- scoring ----------------------------------------------------------------------------
    def hand_value(self, seat: int) -> int:
        pts = self.game.face_points
        return sum(pts[f] * k for f, k in enumerate(self.counts[seat]) if k)

    def _end_round(self, winner: int) -> None:
        """G-score (or F-alt-score/E-end with penalty scoring); G-blocked when winner < 0."""
        g, n = self.game, self.n
        values = [self.hand_value(s) for s in range(n)]
        blocked = winner < 0
        if blocked:
            low = min(values)
            lowest = [s for s in range(n) if values[s] == low]
            winner = lowest[0] if len(lowest) == 1 else -1
        points = [0] * n
        if winner >= 0:
            if g.penalty_scoring:
                points = [0 if s == winner else values[s] for s in range(n)]
            else:
                points[winner] = sum(values) - values[winner]
        for s in range(n):
            self.scores[s] += points[s]
        self.round_results.append({"winner": winner, "blocked": blocked, "points": points,
                                   "hand_values": values})
        if g.match and max(self.scores) < g.target_score:
            self._deal((self.dealer + 1) % n, None)  # G-dealer: the deal passes left
            return
        self.phase = P_OVER

    @property
    def is_over(self) -> bool:
        return self.phase == P_OVER

    def winners(self) -> list[int]:
        """Who won the episode: the round's winner, or the match's (G-score, F-alt-score)."""
        if self.phase != P_OVER:
            return []
        if not self.game.match:
            w = self.round_results[-1]["winner"]
            return [] if w < 0 else [w]
        best = (min if self.game.penalty_scoring else max)(self.scores)
        return [s for s in range(self.n) if self.scores[s] == best]

    # --- snapshot ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Everything about the play-out as JSON-serialisable data (cards by name)."""
        names = self.game.card_names
        return {
            "variant": self.game.variant.name,
            "num_players": self.n,
            "options": dict(self.game.options),
            "hands": [[names[c] for c in h] for h in self.hands],
            "draw_pile": [names[c] for c in reversed(self.draw_pile)],
            "discard": [names[c] for c in self.discard],
            "active_color": self.active_color,
            "direction": self.direction,
            "current": self.current,
            "phase": PHASES[self.phase],
            "scores": list(self.scores),
            "dealer": self.dealer,
            "side": self.side,
            "pending_draw": self.pending,
            "drawn_card": None if self.drawn_card < 0 else names[self.drawn_card],
            "uno_called": list(self.uno_called),
            "passes": self.passes,
            "stage": STAGES[self.stage],
            "next_seat": self.next_seat,
            "play_seat": self.play_seat,
            "going_out": self.going_out,
            "honest": self.honest,
            "challenge_seat": self.challenge_seat,
            "revealed": [None if r is None else [r[0], list(r[1])] for r in self.revealed],
            "round_results": [dict(r) for r in self.round_results],
            "rng": self.rng.bit_generator.state,
        }

    @classmethod
    def from_dict(cls, game: Game, data: dict[str, Any]) -> State:
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
        self.side = int(data["side"])
        self.faces_of = game.side_faces[self.side]
        self.held = [[[] for _ in range(game.num_faces)] for _ in range(self.n)]
        self.counts = [bytearray(game.num_faces) for _ in range(self.n)]
        self.hand_len = [len(h) for h in hands]
        self.present = [0] * self.n
        for s, h in enumerate(hands):
            for c in h:
                f = self.faces_of[c]
                self.held[s][f].append(c)
                self.counts[s][f] += 1
                self.present[s] |= 1 << f
        self.last_drawn = -1
        self.discard_counts = bytearray(game.num_faces)
        for c in self.discard:
            self.discard_counts[self.faces_of[c]] += 1
        self.active_color = int(data["active_color"])
        self.direction = int(data["direction"])
        self.current = int(data["current"])
        self.phase = PHASES.index(data["phase"])
        self.scores = [int(x) for x in data["scores"]]
        self.dealer = int(data["dealer"])
        self.pending = int(data["pending_draw"])
        self.drawn_card = -1
        if data["drawn_card"] is not None:  # the newest card of that name in the hand
            f = self.faces_of[game.cards_by_name[data["drawn_card"]][0]]
            self.drawn_card = self.held[self.current][f][-1]
        self.uno_called = [bool(x) for x in data["uno_called"]]
        self.passes = int(data["passes"])
        self.stage = STAGES.index(data["stage"])
        self.next_seat = int(data["next_seat"])
        self.play_seat = int(data["play_seat"])
        self.going_out = bool(data["going_out"])
        self.honest = bool(data["honest"])
        self.challenge_seat = int(data["challenge_seat"])
        self.revealed = [None if r is None else (int(r[0]), bytes(r[1]))
                         for r in data["revealed"]]
        self.round_results = [dict(r) for r in data["round_results"]]
        self.rng = np.random.default_rng()
        self.rng.bit_generator.state = data["rng"]
        self.legal = []
        self._bind()
        if self.phase != P_OVER:
            self._compute_legal()
        return self
