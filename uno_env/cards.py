"""Colours, faces and the card table.

Inside the engine a physical card is an ``int`` id and a face (what matching, scoring and the
action space care about) is an ``int`` kind; names exist only at the edges (deck options,
action meanings, snapshots, rendering).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

NUM_COLORS = 4
"""Colours per side (a palette)."""
WILD = NUM_COLORS
"""The colour index of a wild face, and the active colour while none is chosen yet."""

LIGHT_COLORS = ("red", "yellow", "green", "blue")
DARK_COLORS = ("pink", "teal", "orange", "purple")

# Effect codes: the engine implements each once; a variant's faces say which one they carry.
NUMBER = "number"
SKIP = "skip"
REVERSE = "reverse"
DRAW = "draw"  # next player draws `Face.draw` and loses the turn (Draw Two, Draw One, Draw Five)
WILD_PLAIN = "wild"
WILD_DRAW = "wild-draw"  # choose colour, next player draws `Face.draw` (Wild Draw Four / Two)
SKIP_EVERYONE = "skip-everyone"
FLIP = "flip"
WILD_DRAW_COLOR = "wild-draw-color"  # F-effects: victim draws until the chosen colour
REVERSE_SKIP = "reverse-skip"  # X-effects: reverse, then skip the first player that way
ALL_DRAW = "all-draw"  # X-effects: every other player draws `Face.draw`, nobody skipped
TARGET_DRAW = "target-draw"  # X-effects: a chosen player draws `Face.draw`, nobody skipped
ALL_FLIP = "all-flip"  # X-power: every Power Card flips


@dataclass(frozen=True)
class Face:
    """One printed face: what the player sees and plays."""

    name: str
    color: int  # 0-3 on its side's palette, or WILD
    symbol: str  # what "same number or symbol" compares: "7", "skip", "wild-draw-four", ...
    effect: str
    points: int
    draw: int = 0
    challengeable: bool = False
    symbol_match: bool = True  # False: matches only by colour (E-draw-one)
    side: int = 0  # 0 light / normal, 1 dark (Flip)
    targeted: bool = False  # X-effects (a flex face): its player names the victim first
    # a wild whose colour is named even as a last card (F-effects: Wild Draw Colour's
    # victim draws until that colour comes; G-win-round: the effect still resolves)
    color_on_last: bool = False

    @property
    def is_wild(self) -> bool:
        return self.color == WILD

    @property
    def is_number(self) -> bool:
        return self.effect == NUMBER


class ActionRow(NamedTuple):
    """One coloured action card of a deck list: printed once per colour, ``copies`` times."""

    symbol: str
    effect: str
    points: int
    copies: int = 2
    draw: int = 0
    symbol_match: bool = True  # False: matches only by colour (E-draw-one)


def color_faces(
    colors: tuple[str, ...],
    numbers: dict[int, int],
    actions: list[ActionRow],
    side: int = 0,
) -> list[tuple[Face, int]]:
    """Coloured faces with their copy counts per colour.

    ``numbers`` maps a number to its copies per colour; ``actions`` lists the action rows.
    """
    out: list[tuple[Face, int]] = []
    for ci, cname in enumerate(colors):
        for num, copies in numbers.items():
            out.append((Face(f"{cname}-{num}", ci, str(num), NUMBER, num, side=side), copies))
        for a in actions:
            face = Face(
                f"{cname}-{a.symbol}", ci, a.symbol, a.effect, a.points, draw=a.draw,
                symbol_match=a.symbol_match, side=side,
            )
            out.append((face, a.copies))
    return out


def wild_face(
    name: str, effect: str, points: int, draw: int = 0, challengeable: bool = False,
    side: int = 0, targeted: bool = False, color_on_last: bool = False,
) -> Face:
    """A wild face: its symbol is its name."""
    return Face(name, WILD, name, effect, points, draw=draw, challengeable=challengeable,
                side=side, targeted=targeted, color_on_last=color_on_last)


def one_sided_deck(
    numbers: dict[int, int],
    actions: list[ActionRow],
    wilds: list[tuple[Face, int]],
) -> tuple[list[Face], list[tuple[int, ...]]]:
    """Faces and cards of a classic-style deck (one face per card, light colours): the
    coloured faces of :func:`color_faces` plus ``wilds`` as ``(face, copies)``."""
    faced = color_faces(LIGHT_COLORS, numbers, actions) + wilds
    faces = [f for f, _ in faced]
    cards: list[tuple[int, ...]] = [(i,) for i, (_, k) in enumerate(faced) for _ in range(k)]
    return faces, cards
