"""The search agent's policy-improvement mode: PIMC whose playouts follow the policy network.

Rolling a position out with a good policy and comparing the actions on the same samples is a
*rollout algorithm* (Tesauro & Galperin 1996; Bertsekas): playing the action whose playouts
win most improves on the policy that plays them out, as far as the estimates can be trusted.
Here every legal action is tried on every determinization (common random numbers: the branches
of one sample share its hidden hands, pile order and generators) and played to the end of the
round by the network, greedily, for every seat (or by the default policy for the opponents,
``opponent=rule``), one batched forward pass per tick over all playouts
(:class:`uno_env.batch.netplay.PolicyBranches`).

The estimates are noisy (one playout is a win or a loss) and most actions differ by a point or
two of win rate, so the network's own choice stands unless another action beats it on the
same samples by ``z`` standard errors of the paired difference: the search changes the
policy's move only where it is confident the move is a mistake.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from uno_env.batch.netplay import PolicyBranches
from uno_env.rules.game import Game
from uno_env.rules.state import State

OPPONENTS = ("prior", "rule")  # who plays the other seats in the playouts
ROWS = 1024  # playouts played side by side (determinizations x actions)
CAP = 300  # a playout stops here and is scored by hand sizes
FIRST_CHUNK = 32  # under a time budget, the samples that measure the cost of one


def greedy_policy(net: Any) -> Any:
    """``f(observations, masks) -> actions``: the network's most likely legal action per row."""
    import torch

    def choose(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(obs), torch.from_numpy(mask))
        out: np.ndarray = logits.argmax(-1).numpy()
        return out

    return choose


class PolicyPIMC:
    """The search of this module's docstring, for one game configuration."""

    def __init__(self, game: Game, options: dict[str, Any], net: Any, opponent: str = "prior",
                 z: float = 1.5) -> None:
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {', '.join(OPPONENTS)}, got "
                             f"{opponent!r}")
        if not float(z) >= 0:
            raise ValueError(f"z must be a number >= 0 (standard errors), got {z!r}")
        self.z = float(z)
        self.choose = greedy_policy(net)
        n = game.num_players
        self.branches = PolicyBranches(game.variant.name, n, self.choose, rows=ROWS, cap=CAP,
                                       default_seats=range(1, n) if opponent == "rule" else (),
                                       **options)

    def decide(self, obs: np.ndarray, mask: np.ndarray, legal: list[int],
               samples: Iterator[State], seeds: Iterator[int],
               deadline: float | None) -> int:
        """The move at this decision: the network's choice unless the playouts from
        ``samples`` (until they or the time run out) show another action better by ``z``
        standard errors. The searching seat is seat 0 of every sample."""
        first = int(self.choose(obs[None].astype(np.float32), mask[None].astype(np.uint8))[0])
        b = self.branches
        b.start(legal, 0)
        chunk = max(1, b.rows // len(legal))  # samples that fill the rows
        per = 0.0  # seconds per sample so far: under a deadline, a batch fills what is left
        while True:
            k = chunk
            if deadline is not None:
                left = deadline - time.perf_counter()
                k = min(k, FIRST_CHUNK) if not per else min(k, int(left / per))
                if k < 1 or left <= 0:
                    break
            began = time.perf_counter()
            added = 0
            for state in itertools.islice(samples, k):
                b.add(state, next(seeds))
                added += 1
            if not added:
                break
            b.flush()
            per = (time.perf_counter() - began) / added
        wins = b.results()
        return legal[best_action(wins, legal.index(first), self.z)]


def best_action(wins: np.ndarray, base: int, z: float) -> int:
    """The column of ``wins`` (samples x actions, paired by row) to play: ``base`` unless
    another column's mean difference from it exceeds ``z`` of its standard errors (then the
    largest such difference, less its ``z`` standard errors)."""
    d = len(wins)
    if d < 2:
        return base
    diff = wins - wins[:, base:base + 1]
    margin = diff.mean(axis=0) - z * diff.std(axis=0, ddof=1) / np.sqrt(d)
    margin[base] = 0.0
    best = int(np.argmax(margin))
    return best if margin[best] > 0 else base
