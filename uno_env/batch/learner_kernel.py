"""The fused kernels of the learner vector env: one learner seat per game, opponents compiled.

A step applies the learner's action in each game, then moves the opponents
(``opponent_act``) until the learner must decide again or the game ends; a finished game is
dealt again at once (same-step autoreset) and advanced to the learner's first decision,
redealt while it ends before that decision. Every draw a new episode needs (the learner's
seat, each deal's seed, each opponent and its seed) comes from the game's PCG64 in the order
``SingleAgentEnv.reset`` makes them (``uno_env.batch.pcg64``), so game ``i`` plays the
episodes ``gymnasium.make("uno_env/UNO-v0")`` plays from the same seed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from uno_env.batch import layout as L
from uno_env.batch.borrow import as_ref, borrow, borrow_batch, borrow_tables, unsigned
from uno_env.batch.layout import Batch
from uno_env.batch.observation import write_obs
from uno_env.batch.opponents import (
    OPP_EXTERNAL,
    OPP_RANDOM,
    OpponentMemory,
    OpponentTables,
    borrow_opponents,
    opponent_act,
    opponent_clear,
    opponent_reset,
)
from uno_env.batch.pcg64 import integers, integers_2_63
from uno_env.batch.step import new_game, step_one
from uno_env.batch.tables import Tables

MAX_REDEALS = 100  # SingleAgentEnv's: deals in a row that end before the learner decides
ILLEGAL_REWARD = -1.0  # SingleAgentEnv's illegal_action="lose"
# the kernels' status: >= 0 games finished; these flag a game that could not go on
REDEAL_LIMIT = -1  # MAX_REDEALS deals ended before the learner's first decision
NOT_LIVE = -2  # a step for a game whose episode ended without autoreset
BAD_OPPONENT = -3  # a compiled opponent found no legal action


class Learner(NamedTuple):
    """The learner side of ``B`` games (one row per game)."""

    seat: np.ndarray  # [B] int64: the learner's seat this episode
    carry: np.ndarray  # [B] float64: paid to the learner before its first decision
    kinds: np.ndarray  # [B, N] int64: each seat's opponent kind (OPP_EXTERNAL: learner)
    pcg: np.ndarray  # [B, 6] uint64: the game's numpy Generator(PCG64) (UNO-v0's np_random)
    live: np.ndarray  # [B] uint8: an episode is under way (0 once over without autoreset)
    bad: np.ndarray  # [1] int64: the game that stopped a kernel (its status in the return)
    pool: np.ndarray  # [K] int64: the opponent pool's kinds, in the pool's order


def allocate_learner(b: int, n: int, pool: list[int]) -> Learner:
    return Learner(seat=np.zeros(b, np.int64), carry=np.zeros(b, np.float64),
                   kinds=np.full((b, n), OPP_EXTERNAL, np.int64),
                   pcg=np.zeros((b, 6), np.uint64), live=np.zeros(b, np.uint8),
                   bad=np.zeros(1, np.int64), pool=np.array(pool, np.int64))


@njit(cache=True, error_model="numpy")
def borrow_learner(lr: Learner) -> Learner:
    """The learner rows without reference counting (``uno_env.batch.borrow``): numba
    counted every access to their arrays otherwise."""
    return Learner(borrow(lr.seat), borrow(lr.carry), borrow(lr.kinds), borrow(lr.pcg),
                   borrow(lr.live), borrow(lr.bad), borrow(lr.pool))


@njit(cache=True, inline="always", error_model="numpy")
def advance(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, lr: Learner,
            i: int) -> int:
    """Opponents move until the learner must decide (0) or the game ends (1 terminated,
    2 truncated); -1 when an opponent found no action."""
    seat = lr.seat[i]
    while True:
        p = s.S[i, L.CUR]
        if p == seat:
            return 0
        a = opponent_act(s, t, ot, om, i, p, lr.kinds[i, p])
        if a < 0:
            return -1
        done = step_one(s, t, i, a)
        if done:
            return done


@njit(cache=True, error_model="numpy")
def new_episode(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, lr: Learner, i: int,
                fixed_seat: int) -> int:
    """``SingleAgentEnv.reset()`` without a seed for game ``i``: 0 when the learner is to
    decide, else a kernel status (REDEAL_LIMIT, BAD_OPPONENT)."""
    n = t.n
    pcg = lr.pcg
    seat = fixed_seat if fixed_seat >= 0 else integers(pcg, i, n)
    lr.seat[i] = seat
    for _ in range(MAX_REDEALS):
        s.seeder[i] = np.uint64(integers_2_63(pcg, i))  # raw_env.reset(seed=...)
        new_game(s, t, i)
        for p in range(n):
            if p == seat:
                lr.kinds[i, p] = OPP_EXTERNAL
                continue
            kind = lr.pool[integers(pcg, i, lr.pool.shape[0])]
            lr.kinds[i, p] = kind
            agent_seed = integers_2_63(pcg, i)  # drawn for every opponent, as UNO-v0 does
            if kind == OPP_RANDOM:
                opponent_reset(om, i, p, agent_seed)
            else:  # the rule agent draws nothing: seeding its Mersenne Twister (~2,000 word
                opponent_clear(om, i, p)  # operations) would be a third of a decision's time
        done = advance(s, t, ot, om, lr, i)
        if done < 0:
            return BAD_OPPONENT
        if done == 0:
            lr.carry[i] = s.cum[i, seat]  # a round paid before the first decision
            lr.live[i] = 1
            return 0
    return REDEAL_LIMIT


@njit(cache=True, inline="always", error_model="numpy")
def _outputs(s: Batch, t: Tables, lr: Learner, i: int, obs: np.ndarray, mask: np.ndarray,
             with_obs: bool) -> None:
    """The learner's observation and mask rows (the mask all 0 once the episode is over)."""
    live = lr.live[i]
    lg = s.legal
    for a in range(mask.shape[1]):
        mask[i, a] = lg[i, a] if live else 0
    if with_obs:
        write_obs(s, t, i, lr.seat[i], obs[i])


@njit(cache=True, error_model="numpy")
def reset_kernel(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, lr: Learner,
                 which: np.ndarray, fixed_seat: int, obs: np.ndarray, mask: np.ndarray,
                 with_obs: bool) -> int:
    """A new episode in every game ``i`` with ``which[i]`` (its PCG64 already set or
    continuing); 0, or a status with the game in ``lr.bad[0]``."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    b_ot, b_om = borrow_opponents(ot, om)
    lr, ot, om = as_ref(borrow_learner(lr)), as_ref(b_ot), as_ref(b_om)
    obs, mask, which = borrow(obs), borrow(mask), borrow(which)
    for j in range(which.shape[0]):
        if not which[j]:
            continue
        i = unsigned(j)
        r = new_episode(s, t, ot, om, lr, i, fixed_seat)
        if r < 0:
            lr.bad[0] = i
            return r
        _outputs(s, t, lr, i, obs, mask, with_obs)
    return 0


@njit(cache=True, error_model="numpy")
def step_kernel(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, lr: Learner,
                actions: np.ndarray, fixed_seat: int, obs: np.ndarray, mask: np.ndarray,
                rewards: np.ndarray, term: np.ndarray, trunc: np.ndarray,
                final_obs: np.ndarray, with_obs: bool, autoreset: bool) -> int:
    """The learner's action in every game, then its opponents, then (same-step autoreset)
    the next episode of each finished game; returns how many finished, or a status < 0
    with the game in ``lr.bad[0]`` (games before it have moved: the env is then broken).
    An action the mask forbids ends that episode with ``ILLEGAL_REWARD`` (the caller checks
    actions first when illegal actions must raise)."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    b_ot, b_om = borrow_opponents(ot, om)
    lr, ot, om = as_ref(borrow_learner(lr)), as_ref(b_ot), as_ref(b_om)
    obs, mask, final_obs = borrow(obs), borrow(mask), borrow(final_obs)
    rewards, term, trunc = borrow(rewards), borrow(term), borrow(trunc)
    actions = borrow(actions)
    finished = 0
    for j in range(actions.shape[0]):
        i = unsigned(j)
        if not lr.live[i]:
            lr.bad[0] = i
            return NOT_LIVE
        seat = lr.seat[i]
        a = actions[i]
        if a < 0 or a >= t.na or not s.legal[i, a]:
            done = 1
            r = lr.carry[i] + ILLEGAL_REWARD
        else:
            done = step_one(s, t, i, a)
            if not done:
                done = advance(s, t, ot, om, lr, i)
                if done < 0:
                    lr.bad[0] = i
                    return BAD_OPPONENT
            r = lr.carry[i] + s.cum[i, seat]
        lr.carry[i] = 0.0
        rewards[i] = r
        term[i] = done == 1
        trunc[i] = done == 2
        if done:
            finished += 1
            lr.live[i] = 0
            if with_obs:
                write_obs(s, t, i, seat, final_obs[i])
            if autoreset:
                st = new_episode(s, t, ot, om, lr, i, fixed_seat)
                if st < 0:
                    lr.bad[0] = i
                    return st
        _outputs(s, t, lr, i, obs, mask, with_obs)
    return finished
