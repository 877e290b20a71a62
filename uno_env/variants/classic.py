"""Classic UNO (docs/games/classic.md)."""

from __future__ import annotations

from collections.abc import Sequence

from uno_env.cards import (
    DRAW,
    REVERSE,
    SKIP,
    WILD_DRAW,
    WILD_PLAIN,
    ActionRow,
    Face,
    one_sided_deck,
    wild_face,
)
from uno_env.variants.base import BOOL, COMMON_OPTIONS, Option, Variant, register


@register
class Classic(Variant):
    """C-deck: 108 cards; C-players: 2-10, hands of 7."""

    name = "classic"
    version = 1  # uno_classic_v1; bump on any change of its rules, observation, actions or
    # rewards, with a CHANGELOG.md line (tests/test_env_versions.py)
    aliases = ("uno",)
    options = {
        **COMMON_OPTIONS,
        # the printed classic rules: "draw a card if you have no card to play"; "if nobody notices
        # before you play your last card, you are not penalised" (G-draw, G-uno)
        "catch_window": Option("until-out", ("turn", "until-out"),
                               help=COMMON_OPTIONS["catch_window"].help),
        "voluntary_draw": Option(False, BOOL, help=COMMON_OPTIONS["voluntary_draw"].help),
        "stacking": Option(False, BOOL, help="C-stacking: stack Draw Two / Wild Draw Four"),
        "double_play": Option(False, BOOL, help="C-double-play: two identical numbers at once"),
        "jump_in": Option(False, BOOL, help="C-jump-in: play an identical card out of turn"),
    }

    def build_deck(self) -> tuple[Sequence[Face], Sequence[tuple[int, ...]]]:
        numbers = {0: 1, **{n: 2 for n in range(1, 10)}}
        actions = [  # C-effects, C-score
            ActionRow("skip", SKIP, 20),
            ActionRow("reverse", REVERSE, 20),
            ActionRow("draw-two", DRAW, 20, draw=2),
        ]
        wilds = [
            (wild_face("wild", WILD_PLAIN, 50), 4),
            (wild_face("wild-draw-four", WILD_DRAW, 50, draw=4, challengeable=True), 4),
        ]
        return one_sided_deck(numbers, actions, wilds)
