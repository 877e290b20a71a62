"""Text pictures of the table; never imported by the engine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from uno_env.cards import WILD
from uno_env.rules.state import P_OVER, PHASES

if TYPE_CHECKING:
    from uno_env.rules.state import State

_ANSI = {"red": "31", "yellow": "33", "green": "32", "blue": "34", "pink": "35",
         "teal": "36", "orange": "91", "purple": "95"}


def card_text(name: str, color: bool = False) -> str:
    """A card name, coloured with ANSI codes by its first word when ``color``."""
    if not color:
        return name
    code = _ANSI.get(name.split("-", 1)[0])
    return f"\x1b[{code}m{name}\x1b[0m" if code else f"\x1b[1m{name}\x1b[0m"


def render_text(state: State, seat: int, reveal: bool = False,
                names: Sequence[str] | None = None, color: bool = False) -> str:
    """The table from ``seat``'s chair: own hand, top card, other hands as counts
    (all hands when ``reveal``), scores, and the decision being asked."""
    g = state.game
    n = state.n
    names = names or [f"player_{i}" for i in range(n)]
    faces = g.face_names
    palette = g.colors[state.side]
    top = state.faces_of[state.discard[-1]]
    active = palette[state.active_color] if state.active_color != WILD else "(to choose)"
    lines = [
        f"{g.variant.name} | {names[seat]}'s view | "
        f"{'clockwise' if state.direction > 0 else 'counter-clockwise'} | "
        f"dealer {names[state.dealer]}",
        f"top: {card_text(faces[top], color)}   active colour: {active}   "
        f"draw pile: {len(state.draw_pile)}   discards: {len(state.discard)}"
        + (f"   pending draw: {state.pending}" if state.pending else ""),
    ]
    for k in range(n):
        s = (seat + k) % n
        marks = []
        if state.uno_called[s]:
            marks.append("UNO")
        if g.power_cards:
            marks.append("power green" if state.power[s] else "power red")
        if state.phase != P_OVER and s == state.current:
            marks.append(f"to act: {PHASES[state.phase]}")
        if k == 0 or reveal:
            hand = " ".join(card_text(faces[f], color)
                            for f, cards in enumerate(state.held[s]) for _ in cards)
            body = f"{state.hand_len[s]:2d} cards: {hand}"
        else:
            body = f"{state.hand_len[s]:2d} cards"
        extra = f"  [{', '.join(marks)}]" if marks else ""
        lines.append(f"  {names[s]:>10} score {state.scores[s]:4d} | {body}{extra}")
    if state.phase == P_OVER:
        w = state.winners()
        lines.append("game over: " + (", ".join(names[s] for s in w) + " won" if w
                                      else "no winner"))
    elif state.current == seat:
        A = g.actions
        lines.append("legal: " + ", ".join(f"{a}:{A.meanings[a]}" for a in state.legal))
    return "\n".join(lines)
