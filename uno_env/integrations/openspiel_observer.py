"""The OpenSpiel observer of the UNO games (:mod:`uno_env.integrations.openspiel`).

It follows OpenSpiel's Python observers (``open_spiel/python/games/kuhn_poker.py``): one flat
float32 ``tensor`` and a ``dict`` of named views into it, here the pieces of the project's
:class:`~uno_env.observation.ObservationLayout` (so ``dict["hand"]`` is the ``hand`` piece),
and a string made from the same vector, so tensor and text say the same facts. Only what the
observing player may know is in either (G-hidden): the vector is ``layout.build(state, seat)``,
the env's own observation.

The information-state observer (``perfect_recall=True``) has the same tensor (the
observation already summarises the public history the rules make relevant: the discard pile,
the colours each opponent declined, the cards each drew since it last played) and a string
that adds every decision taken so far (all of them are public in UNO: who played, drew,
passed, named a colour or challenged; the cards drawn are not decisions and stay hidden).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from uno_env.cards import NUM_COLORS
from uno_env.observation import ObservationLayout
from uno_env.rules.codes import PHASES

if TYPE_CHECKING:
    from uno_env.rules.game import Game

# pieces that count faces (their entries are read as "face x count")
_FACE_PIECES = ("hand", "top", "discard", "revealed", "pile_hidden", "own_hidden")
_SEAT_PIECES = ("opp_hand_size", "opp_uno", "catch_target", "revealed_from", "opp_score",
                "opp_drawn", "opp_power")


class UnoObserver:
    """PyObserver of one configuration: ``set_from(state, player)`` fills ``tensor``;
    ``string_from(state, player)`` is the same observation as text."""

    def __init__(self, game: Game, layout: ObservationLayout, iig_obs_type: Any,
                 params: dict[str, Any] | None) -> None:
        import pyspiel

        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if (iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                or not iig_obs_type.public_info):
            raise ValueError(
                "the UNO games provide the observing player's own view only: "
                "IIGObservationType(public_info=True, private_info=SINGLE_PLAYER, "
                f"perfect_recall=...) ; got {iig_obs_type}")
        self.game = game
        self.layout = layout
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {p.name: self.tensor[p.start:p.stop] for p in layout.pieces}

    def set_from(self, state: Any, player: int) -> None:
        """``tensor`` (and its views) := ``player``'s observation of ``state`` (all zeros
        before the deal)."""
        engine = state.engine
        if engine is None or player < 0:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.layout.build(engine, player)

    def string_from(self, state: Any, player: int) -> str:
        """The observation as ``piece: value`` lines (empty pieces left out); with perfect
        recall, then every decision so far."""
        engine = state.engine
        if engine is None:
            return "deal pending"
        text = describe(self.game, self.layout, self.layout.build(engine, player))
        if self.perfect_recall:
            meanings = self.game.actions.meanings
            moves = " ".join(f"p{seat}:{meanings[a]}" for seat, a in state.moves)
            text = f"player {player}\n{text}\nmoves: {moves}"
        return text


def describe(game: Game, layout: ObservationLayout, vec: np.ndarray) -> str:
    """An observation vector as text, piece by piece (faces by name, seats relative)."""
    o = layout.decode(vec)
    side = int(layout.sides and o["dark_side"][0] > 0.5)
    colors = game.colors[side]
    lines = []
    for p in layout.pieces:
        v = o[p.name]
        hot = np.flatnonzero(v)
        if not len(hot):
            continue
        if p.name in _FACE_PIECES:
            body = " ".join(f"{layout.face_names[f]}x{_num(v[f])}" for f in hot)
        elif p.name == "active_color":
            body = colors[int(hot[0])]
        elif p.name == "phase":
            body = PHASES[int(hot[0])]
        elif p.name in _SEAT_PIECES:
            body = " ".join(f"+{k + 1}:{_num(v[k])}" for k in hot)
        elif p.name == "opp_declined":
            body = " ".join(f"+{k // NUM_COLORS + 1}:{colors[k % NUM_COLORS]}" for k in hot)
        elif p.name == "opp_hidden":
            nf = len(layout.face_names)
            body = " ".join(f"+{k // nf + 1}:{layout.face_names[k % nf]}x{_num(v[k])}"
                            for k in hot)
        else:
            body = " ".join(_num(x) for x in v)
        lines.append(f"{p.name}: {body}")
    return "\n".join(lines)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{float(x):g}"
