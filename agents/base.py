"""The agent protocol: one decision from one observation, nothing else.

An agent sees exactly what its seat observes (the flat observation vector and the action
mask of the PettingZoo env) and returns an action index the mask allows. ``reset()`` is
called between games so that agents that remember earlier decisions of a game start afresh.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything that plays UNO through the environment's observation and action mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """An action index with ``action_mask[index] == 1``."""
        ...

    def reset(self) -> None:
        """Forget the game in progress (called before every game)."""
        ...


def legal_actions(action_mask: np.ndarray) -> list[int]:
    """The indices the mask allows, as plain ints."""
    return np.flatnonzero(action_mask).tolist()


def seed_agent(agent: object, seed: int | None) -> None:
    """Reseed ``agent`` when it has a ``seed(int | None)`` method (stochastic agents do);
    evaluation and the single-agent wrapper call this so that runs replay exactly."""
    reseed = getattr(agent, "seed", None)
    if callable(reseed):
        reseed(seed)
