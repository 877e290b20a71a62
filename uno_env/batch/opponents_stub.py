"""A stand-in for ``uno_env.batch.opponents`` (same names and calls) until that module lands:
``random`` only, drawing from a SplitMix64 per seat (not ``random.Random``'s choices)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from uno_env.batch.layout import Batch
from uno_env.batch.rng import below
from uno_env.batch.tables import Tables
from uno_env.observation import ObservationLayout
from uno_env.rules.game import Game

OPP_EXTERNAL, OPP_RANDOM, OPP_RULE = 0, 1, 2
KINDS = {"random": OPP_RANDOM}


class OpponentTables(NamedTuple):
    unused: int


class OpponentMemory(NamedTuple):
    rng: np.ndarray  # [B, N] uint64


def build_opponent_tables(game: Game, layout: ObservationLayout,
                          batch_tables: Tables) -> OpponentTables:
    return OpponentTables(unused=0)


def allocate_opponent_memory(num_envs: int, num_players: int,
                             num_faces: int) -> OpponentMemory:
    return OpponentMemory(rng=np.zeros((num_envs, num_players), np.uint64))


@njit(cache=True, error_model="numpy")
def opponent_reset(om: OpponentMemory, i: int, seat: int, seed: int) -> None:
    om.rng[i, seat] = np.uint64(seed)


@njit(cache=True, error_model="numpy")
def opponent_act(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, i: int,
                 seat: int, kind: int) -> int:
    lg = s.legal
    k = 0
    for a in range(t.na):
        k += lg[i, a]
    if k == 0 or kind != OPP_RANDOM:
        return -1
    r = below(om.rng[i], seat, k)
    for a in range(t.na):
        if lg[i, a]:
            if r == 0:
                return a
            r -= 1
    return -1
