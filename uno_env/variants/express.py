"""UNO Express (docs/games/express.md): hands of 5, jump-in, Draw One, reverse back, 250 points."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from uno_env.cards import (
    DRAW,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW,
    WILD_PLAIN,
    ActionRow,
    Face,
    one_sided_deck,
    wild_face,
)
from uno_env.variants.base import (
    BOOL,
    COMMON_OPTIONS,
    EffectTable,
    Option,
    Variant,
    register,
    uno_ok,
)


def holds_reverse(s: EffectTable, seat: int, color: int) -> bool:
    """E-reverse-back: ``seat`` holds the Reverse of ``color`` (a wild's has none)."""
    r = s.game.reverse_face[s.side][color] if color != WILD else -1
    return r >= 0 and s.counts[seat][r] > 0


def skip(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """E-reverse-back: a Skip's victim holding the Reverse of its colour may send it back."""
    v = (p + s.direction) % s.n
    if s.game.reverse_back and not last and holds_reverse(s, v, s.game.face_color[f]):
        return s._ask(v, "reverse-back")
    s.next_seat = (p + 2 * s.direction) % s.n
    return False


def reverse(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """A Reverse; played to answer a Skip or Draw One (E-reverse-back) it sends the effect
    back to whoever played that, who may answer the same way."""
    s.direction = d = -s.direction
    if not s.bounce:
        s.next_seat = p if s.n == 2 else (p + d) % s.n  # G-two-players: as a Skip
        return False
    s.bounce = False
    v = (p + d) % s.n
    if not last and holds_reverse(s, v, s.game.face_color[f]):
        return s._ask(v, "reverse-back")
    s._take_draw(v, 0)
    s.next_seat = (v + d) % s.n
    return False


def draw_one(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """E-draw-one, E-reverse-back: the victim draws one and loses the turn, unless they send
    it back with the Reverse of its colour (the card is drawn by whoever it lands on)."""
    s.pending += draw
    v = (p + s.direction) % s.n
    g = s.game
    if (g.reverse_back and not last and not g.face_challengeable[f]
            and holds_reverse(s, v, g.face_color[f])):
        s.skip_victim = True
        return s._ask(v, "reverse-back")
    return s._attack(p, f, stackable=g.stacking, last=last, stack_phase=True)


def reverse_back_decisions(s: Any, p: int, legal: list[int]) -> None:
    """E-reverse-back: play the Reverse of the effect's colour (it is held), or accept."""
    g = s.game
    A = g.actions
    top = s.faces_of[s.discard[-1]]
    legal.append(A.play[g.reverse_face[s.side][g.face_color[top]]])
    if uno_ok(s, p):
        legal.append(A.uno)
    legal.append(A.accept)


@register
class Express(Variant):
    """E-deck (the engine's documented deck, kept as data): per colour one 0, two each of
    1-9, two Draw One, two Skip, two Reverse; four Wild, four Wild Draw Two."""

    name = "express"
    version = 1  # uno_express_v1; bump on any change of its rules, observation, actions or
    # rewards, with a CHANGELOG.md line (tests/test_env_versions.py)
    min_players = 2
    max_players = 6  # E-players: the box's range; up to 10 with allow_more_players
    hand_size = 5
    uno_penalty = 4  # E-uno
    effects = {SKIP: skip, REVERSE: reverse, DRAW: draw_one}
    decisions = {**Variant.decisions, "reverse-back": reverse_back_decisions}
    answers = ("reverse-back",)
    options = {
        **COMMON_OPTIONS,
        "wd_challenge": Option(False, BOOL, help="G-wd-challenge for Wild Draw Two (E: off)"),
        "jump_in": Option(True, BOOL, help="E-jump-in: play an identical card out of turn"),
        "reverse_back": Option(True, BOOL, help="E-reverse-back: answer Skip/Draw One"),
        "scoring": Option("penalty", ("winner", "penalty"),
                          help="E-end: the others score their own hands (penalty)"),
        "target_score": Option(250, kind=int, help="E-end: the game ends at 250"),
        "allow_more_players": Option(False, BOOL, help="E-players: allow 7-10 players"),
    }

    def player_range(self, opts: dict[str, Any]) -> tuple[int, int]:
        return 2, 10 if opts.get("allow_more_players") else self.max_players

    def build_deck(self) -> tuple[Sequence[Face], Sequence[tuple[int, ...]]]:
        numbers = {0: 1, **{n: 2 for n in range(1, 10)}}
        actions = [  # E-draw-one: Draw One matches only its own colour (no symbol match)
            ActionRow("draw-one", DRAW, 20, draw=1, symbol_match=False),
            ActionRow("skip", SKIP, 20),
            ActionRow("reverse", REVERSE, 20),
        ]
        wilds = [
            (wild_face("wild", WILD_PLAIN, 50), 4),
            (wild_face("wild-draw-two", WILD_DRAW, 50, draw=2, challengeable=True), 4),
        ]
        return one_sided_deck(numbers, actions, wilds)
