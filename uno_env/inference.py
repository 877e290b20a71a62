"""What an opponent's draws and a challenge say about its hand, for determinization (public
information only).

:class:`DrawTracker` reads one seat's successive observations (2 players, one-sided decks, no
jump-ins: there, the cards played between two decisions of the observer are the observer's own,
which it knows, and the opponent's) and keeps two kinds of fact:

- where drawing is forced (``voluntary_draw=False``: G-draw lets a player draw only when it
  cannot play; or where the observer assumes the opponent draws only then), an opponent
  that draws facing a top card held nothing playable on it: an
  :class:`Avoid`, the faces that were playable and how many cards the opponent has drawn
  since (those may be any card);
- a hand shown to the observer by a challenge (G-wd-challenge), less the faces the opponent
  has played since: cards it still holds (``must``).

:func:`respect` makes a sampled deal obey them by swapping cards of the opponent's hand with
cards of the draw pile, which nobody has seen.
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
    """Whether :class:`DrawTracker` can follow the opponent's plays in this configuration."""
    return game.num_players == 2 and game.num_sides == 1 and not game.jump_in


class DrawTracker:
    """One seat's inferences about its opponent's hand, updated at each of its decisions."""

    def __init__(self, game: Game, layout: ObservationLayout, assume_forced: bool = False
                 ) -> None:
        """``assume_forced`` reads draws as forced at a ``voluntary_draw`` table too: a model
        of opponents that draw only when they cannot play (true of ``rule``), not a rule."""
        self.game, self.layout = game, layout
        # a draw shows a hand with nothing to play
        self.forced = assume_forced or not game.voluntary_draw
        self.avoid: list[Avoid] = []
        self.must = np.zeros(game.num_faces, np.int64)  # faces the opponent surely holds
        self._prev: tuple[int, np.ndarray, np.ndarray] | None = None  # size, discard, shown
        self._mine = np.zeros(game.num_faces, np.int64)  # faces of the observer's last play

    def reset(self) -> None:
        self.avoid = []
        self.must[:] = 0
        self._prev = None
        self._mine[:] = 0

    def _clear(self) -> None:
        self.avoid = []
        self.must[:] = 0

    def observe(self, observation: np.ndarray) -> None:
        """Update from the observer's new decision point (before it acts)."""
        o = self.layout.decode(np.asarray(observation, dtype=np.float32))
        size = int(round(float(o["opp_hand_size"][0])))
        disc = np.rint(o["discard"]).astype(np.int64)
        shown = np.rint(o["revealed"]).astype(np.int64) * (o["revealed_from"].sum() > 0.5)
        prev, self._prev = self._prev, (size, disc, shown)
        if prev is None:
            return
        played = disc - prev[1] - self._mine  # the faces the opponent played since
        drawn = size - prev[0] + int(played.sum())
        if played.min() < 0 or drawn < 0:  # a reshuffle or a new round: start afresh
            self._clear()
            return
        if not np.array_equal(shown, prev[2]) and shown.any():
            # a challenge showed the hand just after the observer's decision: all the
            # opponent's plays since came after it
            self.must[:] = shown
        np.maximum(self.must - played, 0, out=self.must)
        for av in self.avoid:
            av.allowed += drawn
        self.avoid = [av for av in self.avoid if av.allowed < size]
        phase = int(np.argmax(o["phase"]))
        top = int(np.argmax(o["top"]))
        g = self.game
        if (self.forced and phase == _PLAY and not played.any() and drawn == 1
                and g.face_draw[top] == 0):
            # it faced this top card and colour, and drew one card instead of playing
            colors = np.flatnonzero(o["active_color"] > 0.5)
            bits = g.match_bits[int(colors[0])][top] if len(colors) else 0
            faces = np.array([bits >> f & 1 for f in range(g.num_faces)], dtype=bool)
            self.avoid.append(Avoid(faces, 1))

    def acted(self, action: int) -> None:
        """The observer chose ``action`` at the decision last observed."""
        A = self.game.actions
        ty = A.types[action]
        self._mine[:] = 0
        if ty in (PLAY, PLAY_TWO, PLAY_FLEX):
            self._mine[action if ty == PLAY else A.args[action]] = 2 if ty == PLAY_TWO else 1


def respect(game: Game, hand: list[int], pile: list[int], avoid: list[Avoid],
            rng: random.Random, must: np.ndarray | None = None) -> None:
    """Make ``hand`` (card ids) hold the faces ``must`` counts and obey ``avoid``, by swapping
    cards with ``pile`` (in place); where the pile has no card to swap in, the rest stays as
    sampled."""
    face = game.side_faces[0]
    need = np.zeros(game.num_faces, np.int64) if must is None else must
    if need.any():
        have = np.bincount([face[c] for c in hand], minlength=game.num_faces)
        for f in np.flatnonzero(need > have):
            for j in [j for j, c in enumerate(pile) if face[c] == f][:need[f] - have[f]]:
                spare = [i for i, c in enumerate(hand) if have[face[c]] > need[face[c]]]
                if not spare:
                    break
                i = rng.choice(spare)
                have[face[hand[i]]] -= 1
                have[f] += 1
                hand[i], pile[j] = pile[j], hand[i]
    if not avoid:
        return
    banned = np.zeros(game.num_faces, dtype=bool)
    for av in avoid:
        banned |= av.faces
    free = [j for j, c in enumerate(pile) if not banned[face[c]]]
    rng.shuffle(free)
    kept = need.copy()  # cards that must stay: the first ``need[f]`` of each face
    for av in avoid:
        bad = []
        for i, c in enumerate(hand):
            if av.faces[face[c]]:
                if kept[face[c]] > 0:
                    kept[face[c]] -= 1
                else:
                    bad.append(i)
        rng.shuffle(bad)
        over = sum(int(av.faces[face[c]]) for c in hand) - av.allowed
        while over > 0 and bad and free:
            i, j = bad.pop(), free.pop()
            hand[i], pile[j] = pile[j], hand[i]
            over -= 1
        kept = need.copy()
