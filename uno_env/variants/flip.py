"""UNO Flip (docs/games/flip.md): 112 two-sided cards, light and dark side."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from uno_env.cards import (
    DARK_COLORS,
    DRAW,
    FLIP,
    LIGHT_COLORS,
    REVERSE,
    SKIP,
    SKIP_EVERYONE,
    WILD_DRAW,
    WILD_DRAW_COLOR,
    WILD_PLAIN,
    ActionRow,
    Face,
    color_faces,
    wild_face,
)
from uno_env.variants.base import EffectTable, Variant, register, skip_everyone

PAIRING_SEED = 2018
"""F-deck: the light/dark pairing is one fixed permutation, built from this seed (the
publisher's pairing is not published). Changing it changes the game: don't."""


def flip_sides(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """F-flip: every card turns over; a wild turned up on top is named by the Flip's
    player (not on a last card: the round is scored on the new side)."""
    s._flip()
    s.next_seat = (p + s.direction) % s.n
    top = s.faces_of[s.discard[-1]]
    s.active_color = s.game.face_color[top]  # a wild: none until it is named
    if s.game.face_wild[top] and not last:
        return s._ask_color(p)
    return False


def flip_first(s: EffectTable, chooser: int, first: int) -> None:
    """F-first-discard: a Flip turned up first flips everything and play starts on the
    dark side; a wild turned up then is named by ``chooser`` (the dealer)."""
    s._flip()
    top = s.faces_of[s.discard[-1]]
    s.active_color = s.game.face_color[top]
    if s.game.face_wild[top]:
        s._ask_color(chooser)
    else:
        s._start_turn(first)


def wild_draw_color(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """F-effects: the next player draws until the named colour comes (never stacked)."""
    s.until_color = True
    return s._attack(p, f, stackable=False, last=last, stack_phase=False)


def draw_until_color(s: EffectTable, victim: int) -> bool:
    """F-effects: a pending Wild Draw Colour: draw one at a time until a card of the named
    colour comes (or none is left)."""
    if not s.until_color:
        return False
    s.until_color = False
    color, face_color = s.active_color, s.game.face_color
    while s._draw(victim, 1):
        if face_color[s.faces_of[s.last_drawn]] == color:
            break
    return True


@register
class Flip(Variant):
    """F-deck, F-players (2-10, hands of 7); the first discard's wild is named by the dealer."""

    name = "flip"
    version = 1  # uno_flip_v1; bump on any change of its rules, observation, actions or
    # rewards, with a CHANGELOG.md line (tests/test_env_versions.py)
    colors = (LIGHT_COLORS, DARK_COLORS)
    first_wild_chooser = "dealer"  # F-first-discard (the seed's word)
    effects = {FLIP: flip_sides, SKIP_EVERYONE: skip_everyone, WILD_DRAW_COLOR: wild_draw_color}
    take_pending = draw_until_color
    first_discard = {FLIP: flip_first}

    def build_deck(self) -> tuple[Sequence[Face], Sequence[tuple[int, ...]]]:
        numbers = {n: 2 for n in range(1, 10)}
        light = color_faces(LIGHT_COLORS, numbers, [  # F-deck, F-score
            ActionRow("draw-one", DRAW, 10, draw=1),
            ActionRow("reverse", REVERSE, 20),
            ActionRow("skip", SKIP, 20),
            ActionRow("flip", FLIP, 20),
        ], side=0)
        light.append((wild_face("wild", WILD_PLAIN, 40), 4))
        light.append((wild_face("wild-draw-two", WILD_DRAW, 50, draw=2, challengeable=True), 4))
        dark = color_faces(DARK_COLORS, numbers, [
            ActionRow("draw-five", DRAW, 20, draw=5),
            ActionRow("reverse", REVERSE, 20),
            ActionRow("skip-everyone", SKIP_EVERYONE, 30),
            ActionRow("flip", FLIP, 20),
        ], side=1)
        dark.append((wild_face("wild-draw-color", WILD_DRAW_COLOR, 60, challengeable=True,
                               side=1, color_on_last=True), 4))
        faces = [f for f, _ in light] + [f for f, _ in dark]
        light_cards = [i for i, (_, k) in enumerate(light) for _ in range(k)]
        dark_cards = [len(light) + i for i, (_, k) in enumerate(dark) for _ in range(k)]
        # The plain Wild is one face on both sides (same name, points and effect); its
        # colour is named from the active side's palette.
        dark_cards += [faces.index(light[-2][0])] * 4
        assert len(light_cards) == len(dark_cards) == 112
        perm = np.random.default_rng(PAIRING_SEED).permutation(len(dark_cards))
        cards = [(lf, dark_cards[j]) for lf, j in zip(light_cards, perm, strict=True)]
        return faces, cards
