"""The static facts the rule agent reads (``uno_env.agents.rule``): its parse of a game's
action meanings into kinds and arguments, and the deck's per-face and per-colour rows.

They live below the agents layer so that the compiled rule agent of the batch engine
(``uno_env.batch.rule_policy``) reads the very same parse as the Python agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from uno_env.cards import WILD, Face
from uno_env.rules import Game

# Action kinds, read from meanings.
K_PLAY, K_PLAY_TWO, K_PLAY_FLEX, K_DRAW, K_PASS, K_COLOR, K_TARGET, K_CHALLENGE, K_ACCEPT, \
    K_UNO, K_CATCH, K_OTHER = range(12)
SIMPLE = {"draw": K_DRAW, "pass": K_PASS, "challenge": K_CHALLENGE, "accept": K_ACCEPT,
          "uno": K_UNO, "catch": K_CATCH}
PLAYS = (K_PLAY, K_PLAY_TWO, K_PLAY_FLEX)

# Face effects (uno_env.cards effect names): those that make others draw, those that give
# the player another turn with two players, and those that do with any number of players.
DRAWING = {"draw", "wild-draw", "wild-draw-color", "all-draw", "target-draw"}
TEMPO_2P = {"skip", "reverse", "reverse-skip"}
TEMPO_ALL = {"skip-everyone"}


@dataclass(frozen=True)
class Play:
    """What a play action does, from the rule agent's point of view."""

    face: int  # the face that leaves the hand
    cards: int  # how many cards leave (2 for a double play)
    color: int  # the colour the card shows afterwards (WILD: chosen next)
    side: int
    effect: str  # the effect that applies (the flex face's for a flex play)
    points: int
    wild: bool
    challengeable: bool
    flex: bool


class RuleFacts:
    """What never changes for the rule agent in one game configuration."""

    def __init__(self, game: Game) -> None:
        self.num_players = game.num_players
        faces = game.faces
        nf = len(faces)
        self._face_side = [f.side for f in faces]
        self._face_points = np.array([f.points for f in faces], dtype=np.float32)
        self._wild_row = np.array([f.color == WILD for f in faces], dtype=np.float32)
        self._draw_row = np.array([f.effect in DRAWING for f in faces], dtype=np.float32)
        face_index = {f.name: i for i, f in enumerate(faces)}
        self._palettes = game.colors
        # _color_rows[side, colour]: 0/1 over faces (for hand and discard counts)
        self._color_rows = np.zeros((len(game.colors), 4, nf), dtype=np.float32)
        for i, f in enumerate(faces):
            if f.color != WILD:
                self._color_rows[f.side, f.color, i] = 1.0
        # cards of each colour in the deck, per side (for the bluff estimate)
        self._deck_color = np.zeros((len(game.colors), 4), dtype=np.float32)
        for side, side_faces in enumerate(game.side_faces):
            for fid in side_faces:
                if faces[fid].color != WILD:
                    self._deck_color[side, faces[fid].color] += 1
        self._num_cards = game.num_cards
        flex_faces: tuple[Face | None, ...] = tuple(getattr(game.variant, "flex_faces", ()))
        # Actions by meaning: kind and argument (a _Play, (side, colour) or a relative seat).
        self._kind: list[int] = []
        self._arg: list[Any] = []
        for meaning in game.actions.meanings:
            kind, arg = self._parse(meaning, face_index, faces, flex_faces)
            self._kind.append(kind)
            self._arg.append(arg)
        self._track = K_CHALLENGE in self._kind  # memory only feeds the bluff estimate

    def _parse(self, meaning: str, face_index: dict[str, int], faces: tuple[Face, ...],
               flex_faces: tuple[Face | None, ...]) -> tuple[int, Any]:
        words = meaning.split()
        head = words[0]
        if head in SIMPLE and len(words) == 1:
            return SIMPLE[head], None
        if head in ("play", "play-two") and len(words) >= 2 and words[1] in face_index:
            i = face_index[words[1]]
            f = faces[i]
            flex = head == "play" and "flex" in words[2:]
            shown = flex_faces[i] if flex and i < len(flex_faces) else None
            effect = shown.effect if shown is not None else f.effect
            kind = K_PLAY_TWO if head == "play-two" else (K_PLAY_FLEX if flex else K_PLAY)
            return kind, Play(i, 2 if kind == K_PLAY_TWO else 1, f.color, f.side, effect,
                               f.points, f.color == WILD, f.challengeable, flex)
        if head == "color" and len(words) == 2:
            for side, palette in enumerate(self._palettes):
                if words[1] in palette:
                    return K_COLOR, (side, palette.index(words[1]))
        if head == "target" and len(words) == 2:
            return K_TARGET, abs(int(words[1]))
        return K_OTHER, None
