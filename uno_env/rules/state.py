"""One play-out: the rules engine proper.

A :class:`State` holds everything that changes during a round or match. ``step(action)``
applies one decision of the player to act; the engine then resolves everything up to the
next real decision. A decision with exactly one legal action (nothing playable: draw; an
unplayable drawn card: keep it; nothing to stack: accept; one possible target) is taken by
the engine for the player, so ``current`` is always a player with a real choice.

The engine is split by concern, each layer using only those below it: fields
(``fields.py``), dealing and piles (``deal.py``), scoring (``scoring.py``), legal decisions
(``legal.py``), resolving a play (``effects.py``), snapshots (``snapshot.py``), and here the
decisions themselves. Randomness comes only from ``self.rng``, a
:class:`~uno_env.rules.rng.SplitMix64` (the specified shuffle a compiled engine reproduces).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

from uno_env.rules.codes import (
    ACCEPT,
    CATCH,
    CHALLENGE,
    COLOR,
    DRAW,
    P_CATCH,
    P_DRAWN,
    P_OVER,
    PASS,
    PHASES,
    PLAY,
    PLAY_FLEX,
    PLAY_TWO,
    ST_WINDOW,
    TARGET,
    UNO,
)
from uno_env.rules.game import Game
from uno_env.rules.rng import SplitMix64
from uno_env.rules.snapshot import Snapshots


class IllegalActionError(ValueError):
    """An action that is not legal now; the game is left unchanged."""


class State(Snapshots):
    """A UNO round (or match) in progress: ``State(game, seed=..., deck=..., dealer=...)``."""
    __slots__ = ()

    def __init__(self, game: Game, seed: int | None = None,
                 deck: Sequence[str] | None = None, dealer: int | None = None) -> None:
        g = game
        self.game = g
        self.n = g.num_players
        self.rng = SplitMix64(secrets.randbits(64) if seed is None else seed)
        self.scores = [0] * self.n
        self.round_results = []
        self.legal = []
        self._bind()
        order = g.parse_deck(deck) if deck is not None else None
        if dealer is not None and (
            isinstance(dealer, bool) or not isinstance(dealer, int | np.integer)
            or not 0 <= dealer < self.n
        ):
            raise ValueError(f"dealer must be a seat 0-{self.n - 1}, got {dealer!r}")
        if dealer is None:
            dealer = self.rng.below(self.n)  # G-dealer: drawn from the seed
        self._deal(int(dealer), order)
        self._settle()

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's cards (grouped by face, oldest first within a face)."""
        return [self.book.cards(s) for s in range(self.n)]

    def _settle(self) -> None:
        """Compute the next decision, taking forced (single-action) decisions for the player."""
        legal = self.legal
        while self.phase != P_OVER:
            self._compute_legal()
            if self._catch_any and self.catch_victim() >= 0:
                legal.append(self._catch_action)
            if len(legal) != 1:
                return
            self._apply(legal[0])
        legal.clear()

    # --- stepping ---------------------------------------------------------------------------
    def step(self, action: int) -> None:
        """Apply one decision of ``current``. Illegal: :class:`IllegalActionError`, no change."""
        if action not in self.legal:
            raise IllegalActionError(self.illegal_message(action))
        self._apply(action)
        self._settle()

    def illegal_message(self, action: Any) -> str:
        A = self.game.actions
        if isinstance(action, int | np.integer) and 0 <= action < len(A):
            what = f"action {int(action)} ({A.meanings[action]})"
        else:
            what = f"action {action!r} (not an index 0-{len(A) - 1})"
        if self.phase == P_OVER:
            return f"{what} is not legal: the game is over"
        legal = ", ".join(f"{a} ({A.meanings[a]})" for a in self.legal)
        return (f"{what} is not legal for seat {self.current} in phase "
                f"{PHASES[self.phase]!r}; legal: {legal}")

    def _apply(self, a: int) -> None:
        g = self.game
        t = self._types[a]
        p = self.current
        ph = self.phase
        if t == PLAY:  # "play <face f>" is action f
            self.bounce = self._answers[ph]  # E-reverse-back: the variant's answers
            self._play(p, a, self.drawn_card if ph == P_DRAWN else -1, False, False)
        elif t == DRAW:
            if self._draw(p, 1):
                self.passes = 0
                self.drawn_card = self.last_drawn
                self.phase = P_DRAWN
            else:  # G-reshuffle: nothing to draw, the turn ends
                self._no_play(p)
        elif t == PASS:
            if ph == P_DRAWN:  # G-draw-then-play: keep the drawn card
                self.declined[p] |= 1 << self.active_color
                self._start_turn((p + self.direction) % self.n)
            elif ph == P_CATCH:
                if not self._ask_catch((p + self.direction) % self.n):
                    self._run()
            else:  # the variant's phases (jump-in): Variant.passes
                answer = self._passes[ph]
                assert answer is not None  # the mask offers a pass only where one is defined
                if not answer(self, p):
                    self._run()
        elif t == COLOR:
            self.active_color = g.actions.args[a]
            self._run()
        elif t == ACCEPT:
            self._take_draw(p, 0)
            self.next_seat = self._after_victim(p)
            self.stage = ST_WINDOW
            self._run()
        elif t == CHALLENGE:
            s = self.challenge_seat
            self.revealed[p] = (s, bytes(self.counts[s]))  # G-wd-challenge: shown to p only
            if self.honest:
                self._take_draw(p, 2)
                self.next_seat = self._after_victim(p)
            else:
                self._take_draw(s, 0)
                # the challenger then takes their turn normally (targeted: nobody skipped)
                self.next_seat = p if self.skip_victim else (
                    self.play_seat + self.direction) % self.n
            self.stage = ST_WINDOW
            self._run()
        elif t == TARGET:  # X-effects: k seats after the player in the current direction
            self.target = (p + g.actions.args[a] * self.direction) % self.n
            self._run()
        elif t == PLAY_FLEX:
            self.bounce = False
            self._play(p, g.actions.args[a], self.drawn_card if ph == P_DRAWN else -1, False,
                       True)
        elif t == UNO:
            self.uno_called[p] = True
        elif t == CATCH:
            if ph == P_CATCH:
                self._draw(self.play_seat, g.uno_penalty)
                self._run()
            else:  # catch_window="until-out": then the same decision goes on
                self._draw(self.catch_victim(), g.uno_penalty)
        elif t == PLAY_TWO:
            self.bounce = False
            self._play(p, g.actions.args[a], -1, True, False)
        else:  # pragma: no cover - the mask only offers the types above
            raise AssertionError(f"unhandled action type {t}")
