"""Dealing and the piles: G-deal, C-first-discard, G-reshuffle, F-flip, X-power, and the
primitive moves every rule is built from (draw, flip, start a turn)."""

from __future__ import annotations

from collections.abc import Sequence

from uno_env.rules.codes import (
    E_DRAW,
    E_NUMBER,
    E_REVERSE,
    E_SKIP,
    P_COLOR,
    P_PLAY,
    ST_NEXT,
)
from uno_env.rules.fields import StateFields
from uno_env.rules.hands import Hands


class Piles(StateFields):
    """Deal a round, move cards between piles and hands."""
    __slots__ = ()

    def _deal(self, dealer: int, order: list[int] | None) -> None:
        """G-deal: shuffle (unless the order is given), deal one at a time from dealer + 1."""
        g, n = self.game, self.n
        self.dealer = dealer
        self.side = 0
        self.faces_of = g.side_faces[0]
        if order is None:
            order = list(range(g.num_cards))
            self.rng.shuffle(order)
        self.draw_pile = order[::-1]  # top of the pile is the end of the list
        self.discard = []
        self.discard_counts = bytearray(g.num_faces)
        self._use_hands(Hands(n, g.num_faces))
        self.uno_called = [False] * n
        self.declined = [0] * n
        self.drawn_since = [0] * n
        self.revealed = [None] * n
        self.power = [True] * n  # X-power: every Power Card green at the deal
        # F-visibility: known[card] = its holder has seen its hidden face; acq = when taken
        self.known = bytearray(g.num_cards)
        self.acq = [0] * g.num_cards
        pile, acq = self.draw_pile, self.acq
        dealt = pile[:-g.hand_size * n - 1:-1]  # one at a time from the top, from dealer + 1
        del pile[-g.hand_size * n:]
        for i, c in enumerate(dealt, 1):
            acq[c] = i
        self.tick = len(dealt)
        for k in range(n):
            self.book.add((dealer + 1 + k) % n, dealt[k::n], self.faces_of)
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
        own = g.variant.first_discard.get(g.faces[f].effect)  # the variant's (Flip: Flip)
        if own is not None:
            own(self, chooser, first)
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
        if n == 1 and pile:  # the common case, kept short
            c = pile.pop()
            self._give_one(seat, c, self.faces_of[c])
            self.known[c] = 1  # F-visibility: its hidden face was on top of the pile
            self.tick += 1
            self.acq[c] = self.tick
            self.uno_called[seat] = False  # G-uno: the call stands until the hand grows
            self.last_drawn = c
            self.drawn_since[seat] += 1
            return 1
        if 0 < n <= len(pile):
            got = pile[:-n - 1:-1]  # the top n, in the order they are taken
            del pile[-n:]
        else:
            got = []
            while len(got) < n:
                if not pile and not self._reshuffle():
                    break
                got.append(pile.pop())
        if not got:
            return 0
        self.book.add(seat, got, self.faces_of)
        known, acq, tick = self.known, self.acq, self.tick
        for c in got:
            known[c] = 1  # F-visibility: its hidden face was on top of the pile
            tick += 1
            acq[c] = tick
        self.tick = tick
        self.uno_called[seat] = False  # G-uno: the call stands until the hand grows
        self.last_drawn = got[-1]
        self.drawn_since[seat] += len(got)
        return len(got)

    def _flip(self) -> None:
        """F-flip: turn over every hand and both piles (a turned pile is reversed)."""
        g = self.game
        self.side ^= 1
        self.declined = [0] * self.n  # the other side's colours: nothing known of them
        faces_of = self.faces_of = g.side_faces[self.side]
        self.draw_pile.reverse()
        self.discard.reverse()
        dc = bytearray(g.num_faces)
        for c in self.discard:
            dc[faces_of[c]] += 1
        self.discard_counts = dc
        acq, known, book = self.acq, self.known, self.book
        for seat in range(self.n):
            cards = sorted(book.cards(seat), key=acq.__getitem__)
            book.regroup(seat, cards, faces_of)
            for c in cards:
                known[c] = 1  # held through the flip: its owner saw the face now hidden

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
