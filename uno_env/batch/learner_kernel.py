"""The fused kernels of the learner vector env: one learner seat per game, opponents compiled.

A step applies the learner's action in each game, then moves the opponents
(``opponent_act``) until the learner must decide again or the game ends; a finished game is
dealt again at once (same-step autoreset) and advanced to the learner's first decision,
redealt while it ends before that decision. Every draw a new episode needs (the learner's
seat, each deal's seed, each opponent and its seed) comes from the game's PCG64 in the order
``SingleAgentEnv.reset`` makes them (``uno_env.batch.pcg64``), so game ``i`` plays the
episodes ``gymnasium.make("uno_env/UNO-v1")`` plays from the same seed.

A seat whose opponent is a policy (no kernel: ``OPP_EXTERNAL`` with ``policy >= 0``) stops
its game there (``waiting``); the caller answers all waiting games with one forward per
policy (``observe_waiting``) and ``resume_kernel`` carries each game on from where it
stopped, until no game waits: the tick loop.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch.borrow import as_ref, borrow, borrow_batch, borrow_tables, unsigned
from uno_env.batch.cache import njit
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
AT_POLICY = 3  # advance() stopped at a policy seat
MID_STEP, AT_START = 1, 2  # what a waiting game was doing: a step, or its episode's start
# the kernels' status: >= 0 games finished; these flag a game that could not go on
REDEAL_LIMIT = -1  # MAX_REDEALS deals ended before the learner's first decision
NOT_LIVE = -2  # a step for a game whose episode ended without autoreset
BAD_OPPONENT = -3  # a compiled opponent found no legal action


class Learner(NamedTuple):
    """The learner side of ``B`` games (one row per game)."""

    seat: np.ndarray  # [B] int64: the learner's seat this episode
    carry: np.ndarray  # [B] float64: paid to the learner before its first decision
    kinds: np.ndarray  # [B, N] int64: each seat's opponent kind (OPP_EXTERNAL: learner)
    policy: np.ndarray  # [B, N] int64: each seat's policy index, -1 when not a policy
    pcg: np.ndarray  # [B, 6] uint64: the game's numpy Generator(PCG64) (UNO-v1's np_random)
    live: np.ndarray  # [B] uint8: an episode is under way (0 once over without autoreset)
    waiting: np.ndarray  # [B] uint8: 0, or MID_STEP / AT_START: stopped at a policy seat
    redeals: np.ndarray  # [B] int64: deals of this episode's start that ended too early
    bad: np.ndarray  # [1] int64: the game that stopped a kernel (its status in the return)
    pool: np.ndarray  # [K] int64: the opponent pool's kinds, in the pool's order
    pool_policy: np.ndarray  # [K] int64: the pool entry's policy index, -1 when compiled


def allocate_learner(b: int, n: int, pool: list[int], pool_policy: list[int]) -> Learner:
    return Learner(seat=np.zeros(b, np.int64), carry=np.zeros(b, np.float64),
                   kinds=np.full((b, n), OPP_EXTERNAL, np.int64),
                   policy=np.full((b, n), -1, np.int64),
                   pcg=np.zeros((b, 6), np.uint64), live=np.zeros(b, np.uint8),
                   waiting=np.zeros(b, np.uint8), redeals=np.zeros(b, np.int64),
                   bad=np.zeros(1, np.int64), pool=np.array(pool, np.int64),
                   pool_policy=np.array(pool_policy, np.int64))


@njit(cache=True, error_model="numpy")
def borrow_learner(lr: Learner) -> Learner:
    """The learner rows without reference counting (``uno_env.batch.borrow``): numba
    counted every access to their arrays otherwise."""
    return Learner(borrow(lr.seat), borrow(lr.carry), borrow(lr.kinds), borrow(lr.policy),
                   borrow(lr.pcg), borrow(lr.live), borrow(lr.waiting), borrow(lr.redeals),
                   borrow(lr.bad), borrow(lr.pool), borrow(lr.pool_policy))


@njit(cache=True, inline="always", error_model="numpy")
def advance(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, lr: Learner,
            i: int) -> int:
    """Compiled opponents move until the learner must decide (0), the game ends
    (1 terminated, 2 truncated) or a policy seat must act (``AT_POLICY``); -1 when an
    opponent found no action."""
    seat = lr.seat[i]
    while True:
        p = s.S[i, L.CUR]
        if p == seat:
            return 0
        kind = lr.kinds[i, p]
        if kind == OPP_EXTERNAL:
            return AT_POLICY
        a = opponent_act(s, t, ot, om, i, p, kind)
        if a < 0:
            return -1
        done = step_one(s, t, i, a)
        if done:
            return done


@njit(cache=True, error_model="numpy")
def deal_until_learner(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory,
                       lr: Learner, i: int) -> int:
    """The deals of ``SingleAgentEnv.reset``'s loop from ``lr.redeals[i]`` on: 0 when the
    learner is to decide, ``AT_POLICY`` (waiting), or a status (REDEAL_LIMIT, ...)."""
    n = t.n
    pcg = lr.pcg
    seat = lr.seat[i]
    while lr.redeals[i] < MAX_REDEALS:
        s.seeder[i] = np.uint64(integers_2_63(pcg, i))  # raw_env.reset(seed=...)
        new_game(s, t, i)
        for p in range(n):
            if p == seat:
                lr.kinds[i, p] = OPP_EXTERNAL
                lr.policy[i, p] = -1
                continue
            k = integers(pcg, i, lr.pool.shape[0])
            kind = lr.pool[k]
            lr.kinds[i, p] = kind
            lr.policy[i, p] = lr.pool_policy[k]
            agent_seed = integers_2_63(pcg, i)  # drawn for every opponent, as UNO-v1 does
            if kind == OPP_RANDOM:
                opponent_reset(om, i, p, agent_seed)
            else:  # rule and (greedy) policies draw nothing: seeding a Mersenne Twister
                opponent_clear(om, i, p)  # (~2,000 word operations) would be wasted
        done = advance(s, t, ot, om, lr, i)
        if done < 0:
            return BAD_OPPONENT
        if done == AT_POLICY:
            lr.waiting[i] = AT_START
            return AT_POLICY
        if done == 0:
            return _started(s, lr, i)
        lr.redeals[i] += 1
    return REDEAL_LIMIT


@njit(cache=True, inline="always", error_model="numpy")
def _started(s: Batch, lr: Learner, i: int) -> int:
    lr.carry[i] = s.cum[i, lr.seat[i]]  # a round paid before the first decision
    lr.live[i] = 1
    return 0


@njit(cache=True, error_model="numpy")
def new_episode(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, lr: Learner,
                i: int, fixed_seat: int) -> int:
    """``SingleAgentEnv.reset()`` without a seed for game ``i``: the learner's seat, then
    the deals (see :func:`deal_until_learner`)."""
    lr.seat[i] = fixed_seat if fixed_seat >= 0 else integers(lr.pcg, i, t.n)
    lr.redeals[i] = 0
    return deal_until_learner(s, t, ot, om, lr, i)


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


@njit(cache=True, inline="always", error_model="numpy")
def _finish_step(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, lr: Learner,
                 i: int, done: int, r: float, fixed_seat: int, obs: np.ndarray,
                 mask: np.ndarray, rewards: np.ndarray, term: np.ndarray, trunc: np.ndarray,
                 final_obs: np.ndarray, with_obs: bool, autoreset: bool) -> int:
    """Game ``i``'s step results, the next episode when it ended (autoreset), the rows;
    1 when it ended, 0 when not, or a status."""
    lr.carry[i] = 0.0
    rewards[i] = r
    term[i] = done == 1
    trunc[i] = done == 2
    if done:
        lr.live[i] = 0
        if with_obs:
            write_obs(s, t, i, lr.seat[i], final_obs[i])
        if autoreset:
            st = new_episode(s, t, ot, om, lr, i, fixed_seat)
            if st < 0:
                return st
            if st == AT_POLICY:
                return 1  # its rows when its start is over (resume_kernel)
    _outputs(s, t, lr, i, obs, mask, with_obs)
    return 1 if done else 0


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
        lr.waiting[i] = 0
        lr.live[i] = 0
        r = new_episode(s, t, ot, om, lr, i, fixed_seat)
        if r < 0:
            lr.bad[0] = i
            return r
        if r == 0:
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
    Games stopped at a policy seat are left ``waiting`` for ``resume_kernel``. An action
    the mask forbids ends that episode with ``ILLEGAL_REWARD`` (the caller checks actions
    first when illegal actions must raise)."""
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
                if done == AT_POLICY:
                    lr.waiting[i] = MID_STEP
                    continue
            r = lr.carry[i] + s.cum[i, lr.seat[i]]
        st = _finish_step(s, t, ot, om, lr, i, done, r, fixed_seat, obs, mask, rewards,
                          term, trunc, final_obs, with_obs, autoreset)
        if st < 0:
            lr.bad[0] = i
            return st
        finished += st
    return finished


@njit(cache=True, error_model="numpy")
def observe_waiting(s: Batch, t: Tables, lr: Learner, policy: int, rows: np.ndarray,
                    obs: np.ndarray, mask: np.ndarray) -> int:
    """The waiting games whose seat to act plays ``policy``: their indices in ``rows``,
    that seat's observation and mask in the first rows of ``obs`` and ``mask``; how many."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    k = 0
    for j in range(lr.waiting.shape[0]):
        i = unsigned(j)
        if lr.waiting[i] and lr.policy[i, s.S[i, L.CUR]] == policy:
            rows[k] = i
            write_obs(s, t, i, s.S[i, L.CUR], obs[k])
            for a in range(mask.shape[1]):
                mask[k, a] = s.legal[i, a]
            k += 1
    return k


@njit(cache=True, error_model="numpy")
def resume_kernel(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, lr: Learner,
                  rows: np.ndarray, actions: np.ndarray, fixed_seat: int, obs: np.ndarray,
                  mask: np.ndarray, rewards: np.ndarray, term: np.ndarray,
                  trunc: np.ndarray, final_obs: np.ndarray, with_obs: bool,
                  autoreset: bool) -> int:
    """The policies' actions ``actions[k]`` in the waiting games ``rows[k]``, then each game
    goes on as if it had never stopped; returns how many finished a step, or a status."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    b_ot, b_om = borrow_opponents(ot, om)
    lr, ot, om = as_ref(borrow_learner(lr)), as_ref(b_ot), as_ref(b_om)
    obs, mask, final_obs = borrow(obs), borrow(mask), borrow(final_obs)
    rewards, term, trunc = borrow(rewards), borrow(term), borrow(trunc)
    finished = 0
    for k in range(rows.shape[0]):
        i = unsigned(rows[k])
        a = actions[k]
        if a < 0 or a >= t.na or not s.legal[i, a]:
            lr.bad[0] = i
            return BAD_OPPONENT
        stage = lr.waiting[i]
        lr.waiting[i] = 0
        done = step_one(s, t, i, a)
        if not done:
            done = advance(s, t, ot, om, lr, i)
        if done < 0:
            lr.bad[0] = i
            return BAD_OPPONENT
        if done == AT_POLICY:
            lr.waiting[i] = stage
            continue
        if stage == AT_START:
            if done:  # the deal ended before the learner's first decision: deal again
                lr.redeals[i] += 1
                st = deal_until_learner(s, t, ot, om, lr, i)
            else:
                st = _started(s, lr, i)
            if st < 0:
                lr.bad[0] = i
                return st
            if st == 0:
                _outputs(s, t, lr, i, obs, mask, with_obs)
            continue
        r = lr.carry[i] + s.cum[i, lr.seat[i]]
        st = _finish_step(s, t, ot, om, lr, i, done, r, fixed_seat, obs, mask, rewards,
                          term, trunc, final_obs, with_obs, autoreset)
        if st < 0:
            lr.bad[0] = i
            return st
        finished += st
    return finished
