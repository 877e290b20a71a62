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

# <generated layout-columns>: python -m uno_env.codegen (uno_env/rules/table.py)
CUR = 0
PHASE = 1  # the decision asked (snapshot: its name)
DIR = 2
COLOR = 3  # WILD while a colour is chosen
PENDING = 4  # cards the victim will draw
DRAWN = 5  # the card drawn this turn, -1 none
LAST_DRAWN = 6
PASSES = 7  # G-blocked: turns in a row without a play
PLAY_SEAT = 8
GOING_OUT = 9
HONEST = 10  # G-wd-challenge
CHAL_SEAT = 11
CHAL_OK = 12
SKIP_VICTIM = 13  # False: X-effects targeted draws skip nobody
UNTIL_COLOR = 14  # F-effects: Wild Draw Colour pending
FLEX_PLAY = 15
BOUNCE = 16  # E-reverse-back: the Reverse being played answers an effect
TARGET = 17
STAGE = 18  # what remains to resolve (snapshot: its name)
NEXT_SEAT = 19
DEALER = 20
SIDE = 21  # Flip: 0 light, 1 dark
TICK = 22  # counts card acquisitions (acq)
PILE_LEN = 23  # cards in the draw pile
DISC_LEN = 24  # cards in the discard pile
NSTEPS = 25  # decisions taken (max_steps)
NROUNDS = 26  # rounds finished (round results kept)
NLEGAL = 27  # legal actions now
ONE_LEGAL = 28  # scratch of compute_legal/settle: the only legal action
TOP = 29  # the face of the discard's top card on the side up (one load, not three)
NFIELDS = 30
# </generated layout-columns>


# <generated layout-batch>: python -m uno_env.codegen (uno_env/rules/table.py)
class Batch(NamedTuple):
    S: np.ndarray  # [B, NFIELDS] int64: the game scalars (the columns above)
    rng: np.ndarray  # [B] uint64: the game's generator: every shuffle and the dealer come from it
    seeder: np.ndarray  # [B] uint64: the env seeder (raw_env's reset() without a seed)
    pile: np.ndarray  # [B, C] int16: the top is the end (batch: a prefix, PILE_LEN)
    disc: np.ndarray  # [B, C] int16
    disc_counts: np.ndarray  # [B, F] uint8
    loc: np.ndarray  # [B, C] int8: holder seat, -1 in no hand
    acq: np.ndarray  # [B, C] int32: when each card was taken (F-which-card order)
    known: np.ndarray  # [B, C] uint8: F-visibility: the holder has seen the card's hidden face
    counts: np.ndarray  # [B, N, F] uint8
    hand_len: np.ndarray  # [B, N] int16
    hid_counts: np.ndarray  # [B, N, F or 0] uint8: F-visibility: held cards by hidden face
    hid_unseen: np.ndarray  # [B, N, F or 0] uint8: those not seen by the holder (dealt)
    uno_called: np.ndarray  # [B, N] uint8: G-uno: stands until the hand grows
    power: np.ndarray  # [B, N] uint8: X-power: green Power Cards
    revealed: np.ndarray  # [B, N, F] uint8: G-wd-challenge: (seat, face counts) shown
    revealed_from: np.ndarray  # [B, N] int8: whose hand `revealed` is, -1 none
    scores: np.ndarray  # [B, N] int64
    declined: np.ndarray  # [B, N] uint8: bit c: kept a drawn card on colour c (none played since)
    drawn_since: np.ndarray  # [B, N] int16: cards taken since that seat last played a card
    rr_winner: np.ndarray  # [B, R] int16: the last R rounds of a match
    rr_blocked: np.ndarray  # [B, R] uint8
    rr_points: np.ndarray  # [B, R, N] int32
    rr_values: np.ndarray  # [B, R, N] int32
    rew: np.ndarray  # [B, N] float64: rewards of the last step (raw_env.rewards)
    cum: np.ndarray  # [B, N] float64: raw_env._cumulative_rewards
    legal: np.ndarray  # [B, A8] uint8: the actions `current` may take now (batch: 0/1)


def allocate(t: Tables, b: int) -> Batch:
    """Fresh arrays for ``b`` games, each field at its declared default."""
    n, nc, nf, r = t.n, t.nc, t.nf, t.rounds_kept
    na8 = (t.na + 7) // 8 * 8  # whole words: batch.sample
    return Batch(
        S=np.zeros((b, NFIELDS), np.int64),
        rng=np.zeros((b,), np.uint64),
        seeder=np.zeros((b,), np.uint64),
        pile=np.zeros((b, nc), np.int16),
        disc=np.zeros((b, nc), np.int16),
        disc_counts=np.zeros((b, nf), np.uint8),
        loc=np.full((b, nc), -1, np.int8),
        acq=np.zeros((b, nc), np.int32),
        known=np.zeros((b, nc), np.uint8),
        counts=np.zeros((b, n, nf), np.uint8),
        hand_len=np.zeros((b, n), np.int16),
        hid_counts=np.zeros((b, n, nf if t.sides else 0), np.uint8),
        hid_unseen=np.zeros((b, n, nf if t.sides else 0), np.uint8),
        uno_called=np.zeros((b, n), np.uint8),
        power=np.ones((b, n), np.uint8),
        revealed=np.zeros((b, n, nf), np.uint8),
        revealed_from=np.full((b, n), -1, np.int8),
        scores=np.zeros((b, n), np.int64),
        declined=np.zeros((b, n), np.uint8),
        drawn_since=np.zeros((b, n), np.int16),
        rr_winner=np.zeros((b, r), np.int16),
        rr_blocked=np.zeros((b, r), np.uint8),
        rr_points=np.zeros((b, r, n), np.int32),
        rr_values=np.zeros((b, r, n), np.int32),
        rew=np.zeros((b, n), np.float64),
        cum=np.zeros((b, n), np.float64),
        legal=np.zeros((b, na8), np.uint8),
    )
# </generated layout-batch>


def bytes_per_game(batch: Batch) -> int:
    """Memory of one game's rows, in bytes."""
    return sum(a.nbytes // a.shape[0] for a in batch)
