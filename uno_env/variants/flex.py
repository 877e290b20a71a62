"""UNO Flex! (docs/games/flex.md): Power Cards, flex faces, targeted draws."""

from __future__ import annotations

from collections.abc import Sequence

from uno_env.cards import (
    ALL_DRAW,
    ALL_FLIP,
    DRAW,
    LIGHT_COLORS,
    NUMBER,
    REVERSE,
    REVERSE_SKIP,
    SKIP,
    SKIP_EVERYONE,
    TARGET_DRAW,
    WILD_DRAW,
    WILD_PLAIN,
    Face,
    wild_face,
)
from uno_env.variants.base import EffectTable, Variant, register, skip_everyone

# X-deck, "Deck lists": where the flex face of the first copy of each number lies, as a
# step in the cyclic colour order red, yellow, green, blue (1-3 previous, 4-6 two away,
# 7-9 next). Kept as data so that a corrected list is a data change.
FLEX_NUMBER_STEP = {1: -1, 2: -1, 3: -1, 4: 2, 5: 2, 6: 2, 7: 1, 8: 1, 9: 1}
FLIP_SYMBOL_NUMBERS = (3, 6, 9)  # second copies carry the Power Card flip symbol
# coloured actions: (symbol, effect, draw) of the normal face, (symbol, effect, draw) of flex
FLEX_ACTIONS = (
    (("skip", SKIP, 0), ("skip-all", SKIP_EVERYONE, 0)),
    (("reverse", REVERSE, 0), ("reverse-skip", REVERSE_SKIP, 0)),
    (("draw-two", DRAW, 2), ("all-draw-one", ALL_DRAW, 1)),
)
ACTION_POINTS = 20
WILD_POINTS = 50


def reverse_skip(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """X-effects: the direction flips and the next player (in the new one) is skipped."""
    s.direction = d = -s.direction
    s.next_seat = (p + 2 * d) % s.n
    return False


def all_draw(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """X-effects: every other player draws, in turn order from the next; nobody is skipped."""
    d, n = s.direction, s.n
    for k in range(1, n):
        s._draw((p + k * d) % n, draw)
    s.next_seat = (p + d) % n
    return False


def target_draw(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """X-effects: the chosen victim draws (or challenges a Wild Targeted Draw Four); nobody
    is skipped: the turn passes to the player after the one who played."""
    v = s.target
    s.pending += draw
    s.skip_victim = False
    s.next_seat = (p + s.direction) % s.n
    if not last and s.game.flex_challengeable[f]:
        return s._ask_challenge(v, True)
    s._take_draw(v, 0)
    return False


def all_flip(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """X-power (iii): every Power Card flips."""
    s._flip_powers(range(s.n))
    s.next_seat = (p + s.direction) % s.n
    return False


def target_decisions(s: EffectTable, p: int, legal: list[int]) -> None:
    """X-effects: the player of a targeted draw names its victim (k seats on)."""
    legal.extend(s.game.actions.target)


def flex_plays(s: EffectTable, p: int, drawn: int, legal: list[int]) -> None:
    """X-flex-play: with a green Power Card, a held card (after a draw: the drawn card
    only, X-drawn-only) whose flex face matches the top card may be played by it."""
    if not s.power[p]:
        return
    g = s.game
    bits = g.flex_match_bits[s.active_color][s.faces_of[s.discard[-1]]]
    bits &= s.present[p] if drawn < 0 else 1 << drawn
    play_flex = g.actions.play_flex
    while bits:
        low = bits & -bits
        legal.append(play_flex[low.bit_length() - 1])
        bits ^= low


@register
class Flex(Variant):
    """A card kind here is a whole physical card (normal face + flex face + flip symbol):
    ``play <kind>`` plays it by its normal face, ``play <kind> flex`` by its flex face."""

    name = "flex"
    version = 1  # uno_flex_v1; bump on any change of its rules, observation, actions or
    # rewards, with a CHANGELOG.md line (tests/test_env_versions.py)
    max_players = 8  # X-players: the box holds 8 Power Cards
    power_cards = True
    first_discard_numbers_only = True  # X-first-discard
    first_discard_redraw = ()
    other_wild_dishonest = True  # X-effects: another wild in hand counts as the colour
    more_plays = flex_plays
    decisions = {**Variant.decisions, "target": target_decisions}
    effects = {SKIP_EVERYONE: skip_everyone, REVERSE_SKIP: reverse_skip, ALL_DRAW: all_draw,
               TARGET_DRAW: target_draw, ALL_FLIP: all_flip}

    def __init__(self) -> None:
        super().__init__()
        self.flex_faces = tuple(self._flex)
        self.power_flip = tuple(self._flip_symbol)

    def build_deck(self) -> tuple[Sequence[Face], Sequence[tuple[int, ...]]]:
        kinds: list[tuple[Face, Face | None, bool, int]] = []  # normal, flex, flip symbol, n
        colors = LIGHT_COLORS
        for ci, cname in enumerate(colors):
            for num in range(1, 10):
                other = (ci + FLEX_NUMBER_STEP[num]) % 4
                flex = Face(f"{colors[other]}-{num}", other, str(num), NUMBER, num)
                kinds.append((Face(f"{cname}-{num}/{flex.name}", ci, str(num), NUMBER, num),
                              flex, False, 1))
                flip = num in FLIP_SYMBOL_NUMBERS
                name = f"{cname}-{num}*" if flip else f"{cname}-{num}"
                kinds.append((Face(name, ci, str(num), NUMBER, num), None, flip, 1))
            for (sym, eff, draw), (fsym, feff, fdraw) in FLEX_ACTIONS:
                plain = Face(f"{cname}-{sym}", ci, sym, eff, ACTION_POINTS, draw=draw)
                flex = Face(f"{cname}-{fsym}", ci, fsym, feff, ACTION_POINTS, draw=fdraw)
                kinds.append((plain, None, False, 1))
                kinds.append((Face(f"{plain.name}/{flex.name}", ci, sym, eff, ACTION_POINTS,
                                   draw=draw), flex, False, 1))
        wd4 = {"draw": 4, "challengeable": 1}
        wilds: list[tuple[str, str, dict[str, int], Face | None]] = [
            ("wild", WILD_PLAIN, {}, wild_face("wild-target-draw-two", TARGET_DRAW,
                                               WILD_POINTS, draw=2, targeted=True)),
            ("wild", WILD_PLAIN, {}, wild_face("wild-all-draw", ALL_DRAW, WILD_POINTS, draw=2)),
            ("wild-draw-four", WILD_DRAW, wd4,
             wild_face("wild-target-draw-four", TARGET_DRAW, WILD_POINTS, draw=4,
                       challengeable=True, targeted=True)),
            ("wild-all-flip", ALL_FLIP, {}, None),
        ]
        for name, eff, kw, wild_flex in wilds:
            full = name if wild_flex is None else f"{name}/{wild_flex.name}"
            face = wild_face(full, eff, WILD_POINTS, draw=kw.get("draw", 0),
                             challengeable=bool(kw.get("challengeable", False)))
            kinds.append((face, wild_flex, False, 2))
        self._flex = [flex for _, flex, _, _ in kinds]
        self._flip_symbol = [flip for _, _, flip, _ in kinds]
        faces = [face for face, _, _, _ in kinds]
        cards = [(i,) for i, (_, _, _, copies) in enumerate(kinds) for _ in range(copies)]
        return faces, cards
