"""The uniform random agent: every legal action equally likely."""

from __future__ import annotations

import random

import numpy as np


class RandomAgent:
    """Chooses uniformly among the actions the mask allows, from its own seeded RNG."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def seed(self, seed: int | None) -> None:
        self._rng.seed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if not len(legal):
            raise ValueError("the action mask allows no action: this agent is not to act")
        return int(legal[self._rng.randrange(len(legal))])

    def reset(self) -> None:
        pass

    def get_state(self) -> tuple[object, ...]:
        """The RNG's state (plain data: a trainer's checkpoint stores it)."""
        return self._rng.getstate()

    def set_state(self, state: tuple[object, ...]) -> None:
        self._rng.setstate(tuple(state))
