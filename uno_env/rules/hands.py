"""Every seat's cards, kept in the four views the engine reads (one place for the
bookkeeping): ``held[seat][face]`` the card ids of that face, oldest first (F-which-card);
``counts[seat]`` a bytearray of face counts; ``size[seat]`` the hand size; ``present[seat]``
the bit set of faces held (legal plays are one AND with a match table).

The four lists are never rebound, only their items, so the engine may hold them as plain
attributes on the hot path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class Hands:
    __slots__ = ("counts", "held", "num_faces", "present", "size")

    def __init__(self, num_players: int, num_faces: int) -> None:
        self.num_faces = num_faces
        self.held: list[list[list[int]]] = [[[] for _ in range(num_faces)]
                                            for _ in range(num_players)]
        self.counts = [bytearray(num_faces) for _ in range(num_players)]
        self.size = [0] * num_players
        self.present = [0] * num_players

    def add(self, seat: int, cards: Iterable[int], faces_of: Sequence[int]) -> None:
        """Put ``cards`` (newest last) into a hand, each as its face on ``faces_of``."""
        held, cnt = self.held[seat], self.counts[seat]
        bits = k = 0
        for c in cards:
            f = faces_of[c]
            held[f].append(c)
            cnt[f] += 1
            bits |= 1 << f
            k += 1
        self.present[seat] |= bits
        self.size[seat] += k

    def add_one(self, seat: int, card: int, face: int) -> None:
        """:meth:`add` for one card whose face is known (the common draw)."""
        self.held[seat][face].append(card)
        self.counts[seat][face] += 1
        self.present[seat] |= 1 << face
        self.size[seat] += 1

    def remove(self, seat: int, face: int, card: int = -1) -> int:
        """Take ``card`` (or, with -1, the card of ``face`` held longest) out of a hand."""
        cards = self.held[seat][face]
        if card >= 0:
            cards.remove(card)
        else:
            card = cards.pop(0)
        self.counts[seat][face] -= 1
        self.size[seat] -= 1
        if not cards:
            self.present[seat] &= ~(1 << face)
        return card

    def regroup(self, seat: int, cards: Iterable[int], faces_of: Sequence[int]) -> None:
        """Group a hand anew by ``faces_of`` (F-flip: every card shows its other face)."""
        self.held[seat] = [[] for _ in range(self.num_faces)]
        self.counts[seat] = bytearray(self.num_faces)
        self.present[seat] = 0
        self.size[seat] = 0
        self.add(seat, cards, faces_of)

    def cards(self, seat: int) -> list[int]:
        """A seat's cards, grouped by face, oldest first within a face."""
        return [c for cards in self.held[seat] for c in cards]

    def copy(self) -> Hands:
        out = Hands.__new__(Hands)
        out.num_faces = self.num_faces
        out.held = [[list(cards) for cards in seat] for seat in self.held]
        out.counts = [bytearray(c) for c in self.counts]
        out.size = list(self.size)
        out.present = list(self.present)
        return out
