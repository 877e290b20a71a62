"""Text pictures of the table; never imported by the engine.

A seat's view (:func:`render_view`) is drawn from that seat's observation alone, decoded with
:meth:`ObservationLayout.decode`, so it can never show a card the observation does not hold:
the own hand, the top card, a hand shown by a challenge and, in Flip (F-visibility), the
other side of every card in the other hands, of the draw pile's top card and of the own
cards the seat has seen; in Flex (X-power) every Power Card. The only facts taken from
elsewhere are public and carry no card: the player names, the dealer, who is to act and who
won. :func:`render_text` with ``reveal`` draws every hand from the state instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from uno_env.cards import WILD
from uno_env.observation import ObservationLayout
from uno_env.rules.codes import P_OVER, PHASES

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


def _faces(counts: np.ndarray, names: Sequence[str], color: bool) -> str:
    """Every face of a per-face count vector, in face order, one word per card."""
    return " ".join(card_text(names[int(f)], color) for f in np.flatnonzero(counts)
                    for _ in range(int(counts[f])))


def render_text(state: State, seat: int, reveal: bool = False,
                names: Sequence[str] | None = None, color: bool = False) -> str:
    """The table from ``seat``'s chair (:func:`render_view` of its observation), or every
    hand when ``reveal``."""
    if reveal:
        return _render_all(state, seat, names, color)
    layout = ObservationLayout(state.game)
    over = state.phase == P_OVER
    mask = np.zeros(state.game.num_actions, dtype=np.int8)
    if not over and state.current == seat:
        mask[list(state.legal)] = 1
    return render_view(layout, layout.build(state, seat), seat, mask, names=names, color=color,
                       dealer=state.dealer, acting=None if over else state.current,
                       winners=state.winners() if over else None)


def render_view(layout: ObservationLayout, observation: np.ndarray, seat: int,
                action_mask: np.ndarray | None = None, names: Sequence[str] | None = None,
                color: bool = False, dealer: int | None = None, acting: int | None = None,
                winners: Sequence[int] | None = None) -> str:
    """Seat ``seat``'s table from its observation (and legal actions from ``action_mask``);
    ``dealer``, ``acting`` and ``winners`` are the public facts the observation lacks."""
    g = layout.game
    n = g.num_players
    names = names or [f"player_{i}" for i in range(n)]
    faces = layout.face_names
    o = layout.decode(observation)
    others = [(seat + k) % n for k in range(1, n)]
    side = int(o["dark_side"][0]) if layout.sides else 0
    palette = g.colors[side]
    colour = np.flatnonzero(o["active_color"])
    active = palette[int(colour[0])] if len(colour) else "(to choose)"
    top = faces[int(np.flatnonzero(o["top"])[0])]
    pile = f"draw pile: {int(o['draw_pile'][0])}"
    if layout.sides and o["pile_hidden"].any():
        pile += f" (top shows {_faces(o['pile_hidden'], faces, color)})"
    pending = int(o["pending_draw"][0])
    head = f"{g.variant.name} | {names[seat]}'s view | " + (
        "counter-clockwise" if o["counter_clockwise"][0] else "clockwise")
    lines = [
        head + (f" | dealer {names[dealer]}" if dealer is not None else ""),
        f"top: {card_text(top, color)}   active colour: {active}   {pile}   "
        f"discards: {int(o['discard'].sum())}" + (f"   pending draw: {pending}" if pending else ""),
    ]
    phase = np.flatnonzero(o["phase"])
    marks = (["UNO"] if o["own_uno"][0] else []) + (
        [f"power {'green' if o['own_power'][0] else 'red'}"] if layout.power else []) + (
        [f"to act: {PHASES[int(phase[0])]}"] if len(phase) else [])
    hand = o["hand"]
    lines.append(_row(names[seat], int(o["own_score"][0]),
                      f"{int(hand.sum()):2d} cards: {_faces(hand, faces, color)}", marks))
    if layout.sides:
        lines.append(f"  {'':>10}   other side of the cards you have seen: "
                     f"{_faces(o['own_hidden'], faces, color) or '-'}")
    nf = len(faces)
    for k, q in enumerate(others):
        marks = (["UNO"] if o["opp_uno"][k] else []) + (
            [f"power {'green' if o['opp_power'][k] else 'red'}"] if layout.power else []) + (
            ["may be caught"] if o["catch_target"][k] else []) + (
            ["to act"] if acting == q and not len(phase) else [])
        body = f"{int(o['opp_hand_size'][k]):2d} cards"
        if layout.sides:
            body += f", other side: {_faces(o['opp_hidden'][k * nf:(k + 1) * nf], faces, color)}"
        lines.append(_row(names[q], int(o["opp_score"][k]), body, marks))
    shown_by = np.flatnonzero(o["revealed_from"])
    if len(shown_by):
        q = others[int(shown_by[0])]
        lines.append(f"{names[q]}'s hand when your challenge showed it: "
                     f"{_faces(o['revealed'], faces, color)}")
    if winners is not None:
        lines.append("game over: " + (", ".join(names[s] for s in winners) + " won"
                                      if winners else "no winner"))
    elif action_mask is not None and action_mask.any():
        meanings = g.actions.meanings
        lines.append("legal: " + ", ".join(f"{a}:{meanings[a]}"
                                          for a in np.flatnonzero(action_mask)))
    return "\n".join(lines)


def _row(name: str, score: int, body: str, marks: Sequence[str]) -> str:
    extra = f"  [{', '.join(marks)}]" if marks else ""
    return f"  {name:>10} score {score:4d} | {body}{extra}"


def _render_all(state: State, seat: int, names: Sequence[str] | None, color: bool) -> str:
    """Every hand, from the state: for ``reveal_hands`` and the end of a game."""
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
        hand = " ".join(card_text(faces[f], color)
                        for f, cards in enumerate(state.held[s]) for _ in cards)
        lines.append(_row(names[s], state.scores[s], f"{state.hand_len[s]:2d} cards: {hand}",
                          marks))
    if state.phase == P_OVER:
        w = state.winners()
        lines.append("game over: " + (", ".join(names[s] for s in w) + " won" if w
                                      else "no winner"))
    elif state.current == seat:
        A = g.actions
        lines.append("legal: " + ", ".join(f"{a}:{A.meanings[a]}" for a in state.legal))
    return "\n".join(lines)
