"""The fair schedule of a tournament: who sits where, and which deal each game plays.

Games come in *blocks*. A block is one *group* of agents (one agent per seat) that plays
``num_players`` games, the group rotated one seat further each game, so every agent of the
group sits in every seat exactly once. With ``duplicate=True`` all games of a block play the
same *deal* (deck order, dealer and engine seed): the luck of the cards is shared by every
agent of the group, and cancels out of the comparison, as in duplicate bridge. With
``duplicate=False`` every game gets a deal of its own (plain random deals).

A *cycle* runs every group once. The groups are

* every combination of ``num_players`` distinct agents when there are at least as many agents
  as seats and the combinations are few (so a 2-player tournament is a full round robin and
  the head-to-head table is complete);
* otherwise the cyclic groups ``(j, j+1, ..., j+N-1) mod K`` for ``j = 0..K-1``; with fewer
  agents than seats an agent fills several seats of a game.

Either way every agent sits in every seat equally often over a cycle, and a tournament is a
whole number of cycles (the requested game count is rounded up).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from uno_env.seeding import derive_seed

MAX_COMBINATION_GROUPS = 1000
"""Above this many combinations of agents into a table, the cyclic groups are used."""


@dataclass(frozen=True)
class Fixture:
    """One scheduled game: its index, the deal it plays, and the agent index in each seat."""

    index: int
    block: int
    deal: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Deal:
    """What a deal fixes: the engine seed, the deck order (card names, top first), the dealer."""

    seed: int
    deck: tuple[str, ...]
    dealer: int


def groups(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """The tables of one cycle, as agent indices in seat order (before rotation)."""
    if num_agents < 1:
        raise ValueError("a tournament needs at least one agent")
    if num_players < 2:
        raise ValueError(f"a game needs at least 2 players, got {num_players}")
    k, n = num_agents, num_players
    if k >= n and math.comb(k, n) <= MAX_COMBINATION_GROUPS:
        return list(itertools.combinations(range(k), n))
    return [tuple((j + i) % k for i in range(n)) for j in range(k)]


def cycle_length(num_agents: int, num_players: int) -> int:
    """Games in one cycle: every group in every rotation."""
    return len(groups(num_agents, num_players)) * num_players


def make_schedule(num_agents: int, num_players: int, games: int,
                  duplicate: bool = True) -> list[Fixture]:
    """The fixtures of a tournament of at least ``games`` games (whole cycles), in order."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    table = groups(num_agents, num_players)
    n = num_players
    per_cycle = len(table) * n
    cycles = -(-games // per_cycle)
    out: list[Fixture] = []
    for c in range(cycles):
        for g, group in enumerate(table):
            block = c * len(table) + g
            for r in range(n):
                index = block * n + r
                seats = tuple(group[(s + r) % n] for s in range(n))
                out.append(Fixture(index, block, block if duplicate else index, seats))
    return out


def make_deal(seed: int, deal: int, card_names: Sequence[str], num_players: int) -> Deal:
    """Deal ``deal`` of the tournament seeded ``seed``: a pure function of both numbers."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0, deal]))
    order = rng.permutation(len(card_names))
    dealer = int(rng.integers(num_players))
    engine_seed = int(rng.integers(2**62))
    return Deal(engine_seed, tuple(card_names[i] for i in order), dealer)


def agent_seed(seed: int, game: int, seat: int) -> int:
    """The seed of the agent in ``seat`` of game ``game`` (independent of the worker)."""
    return derive_seed(seed, 1, game, seat)
