"""What an opponent's draws say about its hand, for determinization (public information only).

Where drawing is forced (``voluntary_draw=False``: G-draw lets a player draw only when it cannot
play), an opponent that draws facing a top card held nothing playable on it at that moment.
:class:`DrawTracker` reads this from one seat's successive observations (2 players, one-sided
decks, no jump-ins: there, the cards played between two decisions of the observer are the
observer's own and the opponent's) and keeps each such fact as an :class:`Avoid`: the faces
that were playable, and how many cards the opponent has drawn since (those may be any card).
:func:`respect` makes a sampled deal obey them by swapping offending cards of the opponent's
hand with cards of the draw pile, which nobody has seen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from uno_env.observation import ObservationLayout
from uno_env.rules.codes import PHASES, PLAY, PLAY_FLEX, PLAY_TWO
from uno_env.rules.game import Game

_PLAY = PHASES.index("play")


@dataclass
class Avoid:
    """The opponent holds at most ``allowed`` cards whose face is in ``faces``."""

    faces: np.ndarray  # bool per face
    allowed: int


def tracks(game: Game) -> bool:
    """Whether :class:`DrawTracker` can read draws in this configuration."""
    return (not game.voluntary_draw and game.num_players == 2 and game.num_sides == 1
            and not game.jump_in)


class DrawTracker:
    """One seat's inferences about its opponent's hand, updated at each of its decisions."""

    def __init__(self, game: Game, layout: ObservationLayout) -> None:
        self.game, self.layout = game, layout
        self.avoid: list[Avoid] = []
        self._prev: tuple[int, int] | None = None  # opponent's hand size, discard total
        self._my_plays = 0  # cards the observer's last decision put on the discard pile

    def reset(self) -> None:
        self.avoid = []
        self._prev = None
        self._my_plays = 0

    def observe(self, observation: np.ndarray) -> None:
        """Update from the observer's new decision point (before it acts)."""
        o = self.layout.decode(np.asarray(observation, dtype=np.float32))
        size = int(round(float(o["opp_hand_size"][0])))
        disc = int(round(float(o["discard"].sum())))
        prev, self._prev = self._prev, (size, disc)
        if prev is None:
            return
        opp_plays = disc - prev[1] - self._my_plays
        drawn = size - prev[0] + opp_plays
        if opp_plays < 0 or drawn < 0:  # a reshuffle or a new round: start afresh
            self.avoid = []
            return
        for av in self.avoid:
            av.allowed += drawn
        self.avoid = [av for av in self.avoid if av.allowed < size]
        phase = int(np.argmax(o["phase"]))
        top = int(np.argmax(o["top"]))
        g = self.game
        if phase == _PLAY and opp_plays == 0 and drawn == 1 and g.face_draw[top] == 0:
            # it faced this top card and colour, and drew one card instead of playing
            colors = np.flatnonzero(o["active_color"] > 0.5)
            bits = g.match_bits[int(colors[0])][top] if len(colors) else 0
            faces = np.array([bits >> f & 1 for f in range(g.num_faces)], dtype=bool)
            self.avoid.append(Avoid(faces, 1))

    def acted(self, action: int) -> None:
        """The observer chose ``action`` at the decision last observed."""
        ty = self.game.actions.types[action]
        self._my_plays = 2 if ty == PLAY_TWO else 1 if ty in (PLAY, PLAY_FLEX) else 0


def respect(game: Game, hand: list[int], pile: list[int], avoid: list[Avoid],
            rng: random.Random) -> None:
    """Make ``hand`` (card ids) obey ``avoid`` by swapping cards with ``pile`` (in place);
    where the pile runs out of cards outside every avoided set, the rest stays as sampled."""
    if not avoid:
        return
    face = game.side_faces[0]
    banned = np.zeros(game.num_faces, dtype=bool)
    for av in avoid:
        banned |= av.faces
    free = [j for j, c in enumerate(pile) if not banned[face[c]]]
    rng.shuffle(free)
    for av in avoid:
        bad = [i for i, c in enumerate(hand) if av.faces[face[c]]]
        rng.shuffle(bad)
        while len(bad) > av.allowed and free:
            i, j = bad.pop(), free.pop()
            hand[i], pile[j] = pile[j], hand[i]
