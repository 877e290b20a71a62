"""Struct-of-arrays state of ``B`` games: one row per game in every array.

Scalars of a game live in ``S[i, FIELD]`` (the field names below mirror ``State``'s
attributes); cards are ids as in the Python engine, a pile is a prefix of a row (the top is
the last element), and a hand is the cards whose ``loc`` is the seat, oldest ``acq`` first
(F-which-card).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from uno_env.batch.tables import Tables

(CUR, PHASE, DIR, COLOR, PENDING, DRAWN, LAST_DRAWN, PASSES, PLAY_SEAT, GOING_OUT, HONEST,
 CHAL_SEAT, CHAL_OK, SKIP_VICTIM, UNTIL_COLOR, FLEX_PLAY, BOUNCE, TARGET, STAGE, NEXT_SEAT,
 DEALER, SIDE, TICK, PILE_LEN, DISC_LEN, NSTEPS, NROUNDS, NLEGAL, ONE_LEGAL, TOP) = range(30)
NFIELDS = 30
# TOP: the face of the discard pile's top card on the side up, kept by every move that
# changes it (one load instead of a chain of three on each use)


class Batch(NamedTuple):
    S: np.ndarray  # [B, NFIELDS] int64
    rng: np.ndarray  # [B] uint64: the game's generator
    seeder: np.ndarray  # [B] uint64: the env seeder (raw_env's reset() without a seed)
    pile: np.ndarray  # [B, C] draw pile, top last
    disc: np.ndarray  # [B, C] discard pile, top last
    disc_counts: np.ndarray  # [B, F]
    loc: np.ndarray  # [B, C] holder seat, -1 when in no hand
    acq: np.ndarray  # [B, C] when the holder took it
    known: np.ndarray  # [B, C] F-visibility: its holder has seen its hidden face
    counts: np.ndarray  # [B, N, F]
    hand_len: np.ndarray  # [B, N]
    uno_called: np.ndarray  # [B, N]
    power: np.ndarray  # [B, N] X-power: 1 green
    revealed: np.ndarray  # [B, N, F] the hand shown to each seat by a challenge
    revealed_from: np.ndarray  # [B, N] whose hand that is, -1 none
    scores: np.ndarray  # [B, N]
    declined: np.ndarray  # [B, N] bit c: kept a drawn card on colour c (State.declined)
    drawn_since: np.ndarray  # [B, N] cards taken since that seat last played
    rr_winner: np.ndarray  # [B, R] round results (the last R rounds of a match)
    rr_blocked: np.ndarray  # [B, R]
    rr_points: np.ndarray  # [B, R, N]
    rr_values: np.ndarray  # [B, R, N]
    rew: np.ndarray  # [B, N] float64: rewards of the last step (raw_env.rewards)
    cum: np.ndarray  # [B, N] float64: raw_env._cumulative_rewards
    legal: np.ndarray  # [B, A rounded up to 8] uint8: the current player's legal actions


def allocate(t: Tables, b: int) -> Batch:
    n, nc, nf, r = t.n, t.nc, t.nf, t.rounds_kept
    return Batch(
        S=np.zeros((b, NFIELDS), np.int64), rng=np.zeros(b, np.uint64),
        seeder=np.zeros(b, np.uint64), pile=np.zeros((b, nc), np.int16),
        disc=np.zeros((b, nc), np.int16), disc_counts=np.zeros((b, nf), np.uint8),
        loc=np.full((b, nc), -1, np.int8), acq=np.zeros((b, nc), np.int32),
        known=np.zeros((b, nc), np.uint8), counts=np.zeros((b, n, nf), np.uint8),
        hand_len=np.zeros((b, n), np.int16), uno_called=np.zeros((b, n), np.uint8),
        power=np.ones((b, n), np.uint8), revealed=np.zeros((b, n, nf), np.uint8),
        revealed_from=np.full((b, n), -1, np.int8), scores=np.zeros((b, n), np.int64),
        declined=np.zeros((b, n), np.uint8), drawn_since=np.zeros((b, n), np.int16),
        rr_winner=np.zeros((b, r), np.int16), rr_blocked=np.zeros((b, r), np.uint8),
        rr_points=np.zeros((b, r, n), np.int32), rr_values=np.zeros((b, r, n), np.int32),
        rew=np.zeros((b, n), np.float64), cum=np.zeros((b, n), np.float64),
        legal=np.zeros((b, (t.na + 7) // 8 * 8), np.uint8),  # whole words: batch.sample
    )


def bytes_per_game(batch: Batch) -> int:
    """Memory of one game's rows, in bytes."""
    return sum(a.nbytes // a.shape[0] for a in batch)
