"""One play-out: the rules engine proper.

A :class:`State` holds everything that changes during a round or match. ``step(action)``
applies one decision of the player to act; the engine then resolves everything up to the
next real decision. A decision with exactly one legal action (nothing playable: draw; an
unplayable drawn card: keep it; nothing to stack: accept; one possible target) is taken by
the engine for the player, so ``current`` is always a player with a real choice.

Hot-path data are plain ints and lists: a card is an int id, ``faces_of[card]`` its active
face, ``counts[seat]`` a bytearray of face counts. Randomness comes only from ``self.rng``, a
:class:`~uno_env.rules.rng.SplitMix64` (the specified shuffle a compiled engine reproduces).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from uno_env.cards import WILD
from uno_env.rules.codes import (
    ACCEPT,
    CATCH,
    CHALLENGE,
    COLOR,
    DRAW,
    E_ALL_DRAW,
    E_ALL_FLIP,
    E_DRAW,
    E_FLIP,
    E_NUMBER,
    E_REVERSE,
    E_REVERSE_SKIP,
    E_SKIP,
    E_SKIP_EVERYONE,
    E_TARGET_DRAW,
    E_WDC,
    E_WILD,
    E_WILD_DRAW,
    P_CATCH,
    P_CHALLENGE,
    P_COLOR,
    P_DRAWN,
    P_JUMP_IN,
    P_OVER,
    P_PLAY,
    P_REVERSE_BACK,
    P_STACK,
    P_TARGET,
    PASS,
    PHASES,
    PLAY,
    PLAY_FLEX,
    PLAY_TWO,
    ST_CATCH,
    ST_EFFECT,
    ST_NEXT,
    ST_TARGET,
    ST_WINDOW,
    STAGES,
    TARGET,
    UNO,
    UNO_AUTO,
    UNO_OFF,
)
from uno_env.rules.rng import SplitMix64

if TYPE_CHECKING:
    from uno_env.rules.game import Game


class IllegalActionError(ValueError):
    """An action that is not legal now; the game is left unchanged."""


class State:
    """A UNO round (or match) in progress: ``State(game, seed=..., deck=..., dealer=...)``."""

    def __init__(self, game: Game, seed: int | None = None,
                 deck: Sequence[str] | None = None, dealer: int | None = None) -> None:
        g = game
        self.game = g
        self.n = g.num_players
        self.rng = SplitMix64(secrets.randbits(64) if seed is None else seed)
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
            dealer = self.rng.below(self.n)  # G-dealer: drawn from the seed
        self._deal(int(dealer), order)
        self._settle()

    def _bind(self) -> None:
        """Per-game constants read on the hot path, held as plain attributes."""
        g = self.game
        self._types = g.actions.types
        self._match_bits = g.match_bits
        self._uno_on = g.uno_mode != UNO_OFF
        self._draw_action = g.actions.draw
        self._jump_in = g.jump_in
        self._has_flex = g.has_flex
        self._plain = not g.has_flex and not g.double_play
        self._uno_action = g.actions.uno
        self._vol_draw = g.voluntary_draw
        self._catch_any = g.catch_until_out
        self._catch_action = g.actions.catch

    # --- dealing ----------------------------------------------------------------------------
    def _deal(self, dealer: int, order: list[int] | None) -> None:
        """G-deal: shuffle (unless the order is given), deal one at a time from dealer + 1."""
        g, n = self.game, self.n
        self.dealer = dealer
        self.side = 0
        self.faces_of = g.side_faces[0]
        if order is None:
            order = list(range(g.num_cards))
            self.rng.shuffle(order)
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
        self.power = [True] * n  # X-power: every Power Card green at the deal
        # F-visibility: known[card] = its holder has seen its hidden face; acq = when taken
        self.known = bytearray(g.num_cards)
        self.acq = [0] * g.num_cards
        self.tick = 0
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
                self.tick += 1
                self.acq[c] = self.tick
        self.direction = 1
        self.pending = 0
        self.drawn_card = -1
        self.last_drawn = -1
        self.passes = 0
        self.play_seat = -1
        self.going_out = False
        self.honest = True
        self.challenge_seat = -1
        self.chal_ok = False  # the pending wild draw may be challenged
        self.skip_victim = True  # False: X-effects targeted draws skip nobody
        self.until_color = False  # F-effects: Wild Draw Colour pending
        self.flex_play = False
        self.bounce = False  # E-reverse-back: the Reverse being played answers an effect
        self.target = -1
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
            if g.face_effect[f] in g.first_redraw:
                pile.append(c)  # returned to the deck, which is reshuffled
                self._shuffle(pile)
                continue
            self.discard.append(c)
            self.discard_counts[f] += 1
            # X-first-discard: an action card is ignored, and the next card turned on it
            if not g.first_discard_numbers_only or g.face_effect[f] == E_NUMBER:
                break
        self.active_color = g.face_color[f]
        first = (d + 1) % n
        effect = g.face_effect[f]
        chooser = d if g.first_wild_chooser == "dealer" else first
        if effect == E_FLIP:  # F-first-discard: flip, start on the dark side
            self._flip()
            top = self.faces_of[self.discard[-1]]
            self.active_color = g.face_color[top]
            if g.face_wild[top]:
                self.current = chooser
                self.phase = P_COLOR
                self.stage = ST_NEXT
                self.next_seat = first
            else:
                self._start_turn(first)
        elif effect == E_SKIP:
            self._start_turn((d + 2) % n)
        elif effect == E_REVERSE:
            self.direction = -1
            self._start_turn(d)
        elif effect == E_DRAW:
            self._draw(first, g.face_draw[f])
            self._start_turn((d + 2) % n)
        elif g.face_wild[f]:
            self.current = chooser  # then the first player plays
            self.phase = P_COLOR
            self.stage = ST_NEXT
            self.next_seat = first
        else:
            self._start_turn(first)

    def _shuffle(self, cards: list[int]) -> None:
        self.rng.shuffle(cards)

    # --- primitive moves --------------------------------------------------------------------
    def _draw(self, seat: int, n: int) -> int:
        """Move up to ``n`` cards from the draw pile to ``seat`` (G-reshuffle); how many came."""
        pile = self.draw_pile
        held = self.held[seat]
        cnt = self.counts[seat]
        faces_of = self.faces_of
        got = 0
        bits = 0
        known = self.known
        acq = self.acq
        while got < n:
            if not pile and not self._reshuffle():
                break
            c = pile.pop()
            f = faces_of[c]
            held[f].append(c)
            cnt[f] += 1
            bits |= 1 << f
            known[c] = 1  # F-visibility: its hidden face was on top of the pile
            self.tick += 1
            acq[c] = self.tick
            got += 1
        if got:
            self.present[seat] |= bits
            self.hand_len[seat] += got
            self.uno_called[seat] = False  # G-uno: the call stands until the hand grows
            self.last_drawn = c
        return got

    def _draw_until(self, seat: int, color: int) -> None:
        """F-effects: draw one at a time until a card of ``color`` comes (or none is left)."""
        face_color = self.game.face_color
        while self._draw(seat, 1):
            if face_color[self.faces_of[self.last_drawn]] == color:
                break

    def _flip(self) -> None:
        """F-flip: turn over every hand and both piles (a turned pile is reversed)."""
        g = self.game
        self.side ^= 1
        faces_of = self.faces_of = g.side_faces[self.side]
        self.draw_pile.reverse()
        self.discard.reverse()
        dc = bytearray(g.num_faces)
        for c in self.discard:
            dc[faces_of[c]] += 1
        self.discard_counts = dc
        acq, known = self.acq, self.known
        for seat in range(self.n):
            cards = sorted((c for held in self.held[seat] for c in held), key=acq.__getitem__)
            held: list[list[int]] = [[] for _ in range(g.num_faces)]
            cnt = bytearray(g.num_faces)
            bits = 0
            for c in cards:
                f = faces_of[c]
                held[f].append(c)
                cnt[f] += 1
                bits |= 1 << f
                known[c] = 1  # held through the flip: its owner saw the face now hidden
            self.held[seat] = held
            self.counts[seat] = cnt
            self.present[seat] = bits

    def _flip_powers(self, seats: Sequence[int]) -> None:
        """X-power: flip these Power Cards; when all are red, all turn green at once."""
        power = self.power
        for s in seats:
            power[s] = not power[s]
        if not any(power):
            power[:] = [True] * self.n

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
        top = self.faces_of[self.discard[-1]]
        return bool(self._match_bits[self.active_color][top] >> face & 1)

    def flex_playable(self, seat: int, face: int) -> bool:
        """X-flex-play: a green Power Card and a flex face that matches the top card."""
        if not self.power[seat]:
            return False
        top = self.faces_of[self.discard[-1]]
        return bool(self.game.flex_match_bits[self.active_color][top] >> face & 1)

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
            if not bits and not self._uno_on and not self._has_flex:
                legal.append(self._draw_action)
                return
            while bits:
                low = bits & -bits
                legal.append(low.bit_length() - 1)
                bits ^= low
            if self._plain:  # no flex faces, no double play: the common case, kept short
                if not legal:
                    legal.append(self._draw_action)
                    return
                if self._uno_on and self.hand_len[p] == 2 and not self.uno_called[p]:
                    legal.append(self._uno_action)
                if self._vol_draw:  # G-draw: draw while holding a playable card
                    legal.append(self._draw_action)
                return
        g = self.game
        A = g.actions
        hand_len = self.hand_len[p]
        uno_ok = self._uno_on and not self.uno_called[p]
        if ph == P_PLAY:
            if g.has_flex and self.power[p]:  # X-flex-play
                bits = self.present[p] & g.flex_match_bits[self.active_color][
                    self.faces_of[self.discard[-1]]]
                while bits:
                    low = bits & -bits
                    legal.append(A.play_flex[low.bit_length() - 1])
                    bits ^= low
            any_two = False
            if g.double_play:  # C-double-play
                two = A.play_two
                cnt = self.counts[p]
                for f in list(legal):
                    if f < g.num_faces and two[f] >= 0 and cnt[f] >= 2:
                        legal.append(two[f])
                        any_two = True
            can_play = bool(legal)
            if uno_ok and ((hand_len == 2 and can_play) or (hand_len == 3 and any_two)):
                legal.append(A.uno)
            if self._vol_draw or not can_play:  # G-draw: voluntary_draw
                legal.append(A.draw)
        elif ph == P_DRAWN:  # G-draw-then-play, X-drawn-only: only the drawn card
            f = self.faces_of[self.drawn_card]
            if self.playable(f):
                legal.append(A.play[f])
            if g.has_flex and A.play_flex[f] >= 0 and self.flex_playable(p, f):
                legal.append(A.play_flex[f])
            if uno_ok and hand_len == 2 and legal:
                legal.append(A.uno)
            legal.append(A.pass_)
        elif ph == P_COLOR:
            legal.extend(A.color[self.side])
        elif ph in (P_CHALLENGE, P_STACK):
            if ph == P_CHALLENGE and self.chal_ok:
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
        elif ph == P_REVERSE_BACK:  # E-reverse-back: the Reverse of the effect's colour
            top = self.faces_of[self.discard[-1]]
            legal.append(A.play[g.reverse_face[self.side][g.face_color[top]]])
            if uno_ok and hand_len == 2:
                legal.append(A.uno)
            legal.append(A.accept)
        elif ph == P_TARGET:
            legal.extend(A.target)

    def _settle(self) -> None:
        """Compute the next decision, taking forced (single-action) decisions for the player."""
        legal = self.legal
        while self.phase != P_OVER:
            self._compute_legal()
            if self._catch_any and self.catch_victim() >= 0:
                legal.append(self._catch_action)
            if len(legal) != 1:
                return
            self._apply(legal[0])
        legal.clear()

    # --- stepping ---------------------------------------------------------------------------
    def step(self, action: int) -> None:
        """Apply one decision of ``current``. Illegal: :class:`IllegalActionError`, no change."""
        if action not in self.legal:
            raise IllegalActionError(self.illegal_message(action))
        self._apply(action)
        self._settle()

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
        if t == PLAY:  # "play <face f>" is action f
            self.bounce = ph == P_REVERSE_BACK
            self._play(p, a, self.drawn_card if ph == P_DRAWN else -1, False, False)
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
            self._take_draw(p, 0)
            self.next_seat = self._after_victim(p)
            self.stage = ST_WINDOW
            self._run()
        elif t == CHALLENGE:
            s = self.challenge_seat
            self.revealed[p] = (s, bytes(self.counts[s]))  # G-wd-challenge: shown to p only
            if self.honest:
                self._take_draw(p, 2)
                self.next_seat = self._after_victim(p)
            else:
                self._take_draw(s, 0)
                # the challenger then takes their turn normally (targeted: nobody skipped)
                self.next_seat = p if self.skip_victim else (
                    self.play_seat + self.direction) % self.n
            self.stage = ST_WINDOW
            self._run()
        elif t == TARGET:  # X-effects: k seats after the player in the current direction
            self.target = (p + g.actions.args[a] * self.direction) % self.n
            self._run()
        elif t == PLAY_FLEX:
            self.bounce = False
            self._play(p, g.actions.args[a], self.drawn_card if ph == P_DRAWN else -1, False,
                       True)
        elif t == UNO:
            self.uno_called[p] = True
        elif t == CATCH:
            if ph == P_CATCH:
                self._draw(self.play_seat, g.uno_penalty)
                self._run()
            else:  # catch_window="until-out": then the same decision goes on
                self._draw(self.catch_victim(), g.uno_penalty)
        elif t == PLAY_TWO:
            self.bounce = False
            self._play(p, g.actions.args[a], -1, True, False)
        else:  # pragma: no cover - the mask only offers the types above
            raise AssertionError(f"unhandled action type {t}")

    def _take_draw(self, seat: int, extra: int) -> None:
        """The pending draw lands on ``seat`` (plus ``extra`` cards: a failed challenge)."""
        if self.until_color:
            self._draw_until(seat, self.active_color)
            self.until_color = False
        else:
            self._draw(seat, self.pending)
        self.pending = 0
        if extra:
            self._draw(seat, extra)

    def _after_victim(self, victim: int) -> int:
        """Whose turn follows a victim who took the draw (X: targeted draws skip nobody)."""
        if self.skip_victim:
            return (victim + self.direction) % self.n
        return (self.play_seat + self.direction) % self.n

    def _holds_reverse(self, seat: int, color: int) -> bool:
        r = self.game.reverse_face[self.side][color] if color != WILD else -1
        return r >= 0 and self.counts[seat][r] > 0

    def _no_play(self, p: int) -> None:
        """A turn that ended without a play because nothing could be drawn (G-blocked)."""
        self.passes += 1
        if self.passes >= self.n:
            self._end_round(-1)
        else:
            self._start_turn((p + self.direction) % self.n)

    def _play(self, p: int, f: int, card: int, two: bool, flex: bool) -> None:
        """Put a card of face ``f`` on the discard pile (``card`` if given, else the one held
        longest; two of them for a double play), then resolve it."""
        g = self.game
        cards = self.held[p][f]
        if card >= 0:
            cards.remove(card)
            self.drawn_card = -1
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
        self.passes = 0
        self.play_seat = p
        self.going_out = left == 0
        self.flex_play = flex
        if flex:
            wild = g.flex_wild[f]
            self.stage = ST_TARGET if g.flex_effect[f] == E_TARGET_DRAW else ST_CATCH
            if self.power[p]:
                self._flip_powers((p,))  # X-power (i): turns red
        else:
            wild = g.face_wild[f]
            self.stage = ST_CATCH
            if g.power_flip[f]:  # X-power (ii): the flip symbol
                self._flip_powers((p,))
        if g.flex_challengeable[f] if flex else g.face_challengeable[f]:
            self.challenge_seat = p
            self.honest = g.variant.is_honest(self.counts[p], g.color_faces, prior_color)
        if wild:
            # G-wild-color; a last card's colour would not matter, except that a Wild Draw
            # Colour's victim draws until it (G-win-round: the effect still resolves)
            if not self.going_out or (not flex and g.face_effect[f] == E_WDC):
                self.active_color = WILD  # none until chosen (never the previous one)
                self.current = p
                self.phase = P_COLOR
                return
        else:  # X-flex-play: the card then lies as its normal face, whose colour counts
            self.active_color = g.face_color[f]
        self._run()

    def _run(self) -> None:
        """Resolve the played card from the stage it stopped at until a decision is needed:
        target, catch (G-uno), effect, then the win check and jump-in window, then the
        next turn. Straight-line code: it runs after every play."""
        st = self.stage
        if st == ST_TARGET:  # X-effects: the colour first, then the victim
            if self.n == 2:
                self.target = 1 - self.play_seat
            else:
                self.stage = ST_CATCH
                self.current = self.play_seat
                self.phase = P_TARGET
                return
            st = ST_CATCH
        if st == ST_CATCH:  # G-uno: after the card's own choices, before its effect
            p = self.play_seat
            if self._uno_on and self.hand_len[p] == 1 and not self.uno_called[p]:
                g = self.game
                if g.uno_mode == UNO_AUTO:
                    self._draw(p, g.uno_penalty)
                elif not g.catch_until_out and self._ask_catch((p + self.direction) % self.n):
                    self.stage = ST_EFFECT
                    return
            st = ST_EFFECT
        if st == ST_EFFECT:
            self.stage = ST_WINDOW
            if self._effect():
                return
            st = ST_WINDOW
        if st == ST_WINDOW:
            if self.going_out:  # G-win-round: after the last card's effect
                self.stage = ST_NEXT
                self._end_round(self.play_seat)
                return
            if self._jump_in and self._open_window((self.play_seat + self.direction) % self.n):
                self.stage = ST_NEXT
                return
        self.stage = ST_NEXT
        self.current = self.next_seat  # _start_turn, inlined
        self.phase = P_PLAY
        self.drawn_card = -1

    def catch_victim(self) -> int:
        """G-uno: the seat that ``catch`` would penalise now, -1 when none.

        In the catch phase (``catch_window="turn"``) it is the player who just played; with
        ``catch_window="until-out"`` it is the first opponent of ``current`` in turn order
        who holds one card without having called UNO (the mask then offers ``catch``)."""
        p = self.current
        if self.phase == P_CATCH:
            return self.play_seat
        if not self._catch_any or self.phase == P_OVER:
            return -1
        n, d = self.n, self.direction
        hand_len, called = self.hand_len, self.uno_called
        for k in range(1, n):
            s = (p + k * d) % n
            if hand_len[s] == 1 and not called[s]:
                return s
        return -1

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
        """The effect of the card just played (C-, F-, X-, E-effects); True when someone must
        decide before play goes on."""
        g = self.game
        p = self.play_seat
        f = self.faces_of[self.discard[-1]]
        if self.flex_play:
            e, draw = g.flex_effect[f], g.flex_draw[f]
        else:
            e, draw = g.face_effect[f], g.face_draw[f]
        n = self.n
        d = self.direction
        last = self.going_out
        if e in (E_NUMBER, E_WILD):
            self.next_seat = (p + d) % n
        elif e == E_SKIP:
            v = (p + d) % n
            if g.reverse_back and not last and self._holds_reverse(v, g.face_color[f]):
                return self._ask_reverse_back(v)
            self.next_seat = (p + 2 * d) % n
        elif e == E_REVERSE:
            d = -d
            self.direction = d
            if self.bounce:  # E-reverse-back: the effect goes back to whoever played it
                self.bounce = False
                v = (p + d) % n
                if not last and self._holds_reverse(v, g.face_color[f]):
                    return self._ask_reverse_back(v)
                self._take_draw(v, 0)
                self.next_seat = (v + d) % n
            else:
                # G-two-players: Reverse acts as Skip
                self.next_seat = p if n == 2 else (p + d) % n
        elif e in (E_DRAW, E_WILD_DRAW, E_WDC):
            v = (p + d) % n
            self.skip_victim = True
            if e == E_WDC:
                self.until_color = True
            else:
                self.pending += draw
            if not last:
                chal = g.face_challengeable[f]
                if chal or (g.stacking and e != E_WDC):
                    self.chal_ok = chal
                    self.current = v
                    self.phase = P_STACK if e == E_DRAW else P_CHALLENGE
                    return True
                if e == E_DRAW and g.reverse_back and self._holds_reverse(v, g.face_color[f]):
                    return self._ask_reverse_back(v)
            self._take_draw(v, 0)
            self.next_seat = (v + d) % n
        elif e == E_SKIP_EVERYONE:  # F-effects / X-effects: the same player plays again
            self.next_seat = p
        elif e == E_FLIP:
            self._flip()
            self.next_seat = (p + d) % n
            top = self.faces_of[self.discard[-1]]
            self.active_color = g.face_color[top]  # a wild: none until it is named
            if g.face_wild[top] and not last:  # F-flip: the player of the Flip names it
                self.current = p
                self.phase = P_COLOR
                return True
        elif e == E_REVERSE_SKIP:
            d = -d
            self.direction = d
            self.next_seat = (p + 2 * d) % n
        elif e == E_ALL_DRAW:
            for k in range(1, n):
                self._draw((p + k * d) % n, draw)
            self.next_seat = (p + d) % n
        elif e == E_TARGET_DRAW:
            v = self.target
            self.pending += draw
            self.skip_victim = False
            self.next_seat = (p + d) % n
            if not last and g.flex_challengeable[f]:
                self.chal_ok = True
                self.current = v
                self.phase = P_CHALLENGE
                return True
            self._take_draw(v, 0)
        elif e == E_ALL_FLIP:  # X-power (iii)
            self._flip_powers(range(n))
            self.next_seat = (p + d) % n
        else:  # pragma: no cover - every effect code is handled above
            raise AssertionError(f"effect {e} not implemented")
        return False

    def _ask_reverse_back(self, victim: int) -> bool:
        self.current = victim
        self.phase = P_REVERSE_BACK
        return True

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
        # each hand oldest card first (F-which-card), so a restore keeps that order
        hands = [sorted(h, key=self.acq.__getitem__) for h in self.hands]
        return {
            "variant": self.game.variant.name,
            "num_players": self.n,
            "options": dict(self.game.options),
            "hands": [[names[c] for c in h] for h in hands],
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
            "power_green": list(self.power),
            "known_hidden": [[bool(self.known[c]) for c in h] for h in hands],
            "chal_ok": self.chal_ok,
            "skip_victim": self.skip_victim,
            "until_color": self.until_color,
            "flex_play": self.flex_play,
            "bounce": self.bounce,
            "target": self.target,
            "round_results": [dict(r) for r in self.round_results],
            "rng": self.rng.state,
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
        if data["drawn_card"] is not None and self.phase == P_DRAWN:  # the newest of that name
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
        self.power = [bool(x) for x in data["power_green"]]
        self.known = bytearray(game.num_cards)
        self.acq = [0] * game.num_cards
        self.tick = 0
        for h, flags in zip(hands, data["known_hidden"], strict=True):
            for c, k in zip(h, flags, strict=True):
                self.known[c] = bool(k)
                self.tick += 1
                self.acq[c] = self.tick
        self.chal_ok = bool(data["chal_ok"])
        self.skip_victim = bool(data["skip_victim"])
        self.until_color = bool(data["until_color"])
        self.flex_play = bool(data["flex_play"])
        self.bounce = bool(data["bounce"])
        self.target = int(data["target"])
        self.round_results = [dict(r) for r in data["round_results"]]
        self.rng = SplitMix64(int(data["rng"]))
        self.legal = []
        self._bind()
        if self.phase != P_OVER:
            self._compute_legal()
            if self._catch_any and self.catch_victim() >= 0:
                self.legal.append(self._catch_action)
        return self
