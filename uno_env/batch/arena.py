"""Whole games between agents on the batch engine: compiled seats (``random``, ``rule``) move
inside one kernel; the seats of external policies (a network) are collected and answered in
one batch per tick.

A run is a list of games, each with its env seed (``raw_env.reset(seed=...)``), one agent
seed per seat (``agent.seed(...); agent.reset()`` before the game) and a kind per seat
(``uno_env.batch.opponents``: ``OPP_RANDOM``, ``OPP_RULE`` or ``OPP_EXTERNAL`` with the index
of the policy that plays it). ``slots`` games are in play at once; a finished game's slot
takes the next game. Each game's outcome (scores, winners, truncation, decisions) is that
of the Python loop (``uno_env.play.play_episode``) with the same agents and seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch.borrow import as_ref, borrow_batch, borrow_tables
from uno_env.batch.cache import njit
from uno_env.batch.observation import write_obs
from uno_env.batch.opponents import (
    OPP_EXTERNAL,
    allocate_opponent_memory,
    borrow_opponents,
    build_opponent_tables,
    opponent_act,
    opponent_reset,
)
from uno_env.batch.step import new_game, step_one
from uno_env.rules.codes import P_OVER

ExternalPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``(observations [K, D] float32, masks [K, A] uint8) -> actions [K]``: one batch."""


@njit(cache=True, error_model="numpy")
def _record(s: Any, t: Any, j: int, g: int, done: int, scores: np.ndarray, won: np.ndarray,
            trunc: np.ndarray, steps: np.ndarray) -> None:
    """Game ``g`` (in slot ``j``) is over or truncated: ``State.winners()`` as a bit mask."""
    n = t.n
    bits = 0
    if s.S[j, L.PHASE] == P_OVER:
        if not t.match_episode:
            w = s.rr_winner[j, (s.S[j, L.NROUNDS] - 1) % t.rounds_kept]
            if w >= 0:
                bits = 1 << w
        else:  # G-score: the best match score (lowest with penalty scoring)
            best = s.scores[j, 0]
            for q in range(n):
                v = s.scores[j, q]
                best = min(best, v) if t.penalty_scoring else max(best, v)
            for q in range(n):
                if s.scores[j, q] == best:
                    bits |= 1 << q
    for q in range(n):
        scores[g, q] = s.scores[j, q]
    won[g] = bits
    trunc[g] = done == 2
    steps[g] = s.S[j, L.NSTEPS]


@njit(cache=True, error_model="numpy")
def arena_kernel(s: Any, t: Any, ot: Any, om: Any, env_seeds: np.ndarray,
                 agent_seeds: np.ndarray, kinds: np.ndarray, slot_game: np.ndarray,
                 cursor: np.ndarray, ext_action: np.ndarray, need: np.ndarray,
                 obs: np.ndarray, scores: np.ndarray, won: np.ndarray, trunc: np.ndarray,
                 steps: np.ndarray) -> int:
    """Play every slot on until an external seat must act (``need[j] = 1``, its observation
    in ``obs[j]``) or no game is left; an action waiting in ``ext_action[j]`` is taken
    first. Returns how many slots wait for an external action (0: the run is over)."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    ot, om = borrow_opponents(ot, om)
    ot, om = as_ref(ot), as_ref(om)
    S = s.S
    waiting = 0
    for j in range(slot_game.shape[0]):
        need[j] = 0
        while True:
            g = slot_game[j]
            if g < 0:
                if cursor[0] >= env_seeds.shape[0]:
                    break
                g = cursor[0]
                cursor[0] += 1
                slot_game[j] = g
                s.seeder[j] = env_seeds[g]  # raw_env.reset(seed=...)
                new_game(s, t, j)
                for q in range(t.n):
                    opponent_reset(om, j, q, agent_seeds[g, q])
                if S[j, L.PHASE] == P_OVER:
                    _record(s, t, j, g, 1, scores, won, trunc, steps)
                    slot_game[j] = -1
                    continue
            p = S[j, L.CUR]
            a = ext_action[j]
            if a >= 0:
                ext_action[j] = -1
            else:
                kind = kinds[g, p]
                if kind == OPP_EXTERNAL:
                    need[j] = 1
                    write_obs(s, t, j, p, obs[j])
                    waiting += 1
                    break
                a = opponent_act(s, t, ot, om, j, p, kind)
            done = step_one(s, t, j, a)
            if done:
                _record(s, t, j, g, done, scores, won, trunc, steps)
                slot_game[j] = -1
    return waiting


@dataclass
class Outcomes:
    """Per game: ``scores[g, seat]``, ``winners[g]`` (bit ``q``: seat ``q`` is among
    ``State.winners()``), ``truncated[g]``, ``steps[g]`` (decisions played)."""

    scores: np.ndarray
    winners: np.ndarray
    truncated: np.ndarray
    steps: np.ndarray


class Arena:
    """Games of one configuration on the batch engine, ``slots`` at a time."""

    def __init__(self, variant: str, num_players: int, max_steps: int | None = None,
                 slots: int = 1024, **options: Any) -> None:
        from uno_env.batch.vector import VectorEnv

        self.slots = int(slots)
        v = VectorEnv(variant, num_players, self.slots, observations=False, autoreset=False,
                      max_steps=max_steps, **options)
        self._s, self._t, self.n = v._s, v._t, num_players
        self.game, self.layout = v._game, v.layout
        self._ot = build_opponent_tables(v._game, v.layout, v._t)
        self._om = allocate_opponent_memory(self.slots, num_players, self._t.nf)

    def play(self, env_seeds: Sequence[int], agent_seeds: np.ndarray, kinds: np.ndarray,
             policy_of: np.ndarray, policies: Sequence[ExternalPolicy],
             on_games: Callable[[int], None] | None = None) -> Outcomes:
        """Play game ``g`` for every entry of ``env_seeds``; ``agent_seeds[g, seat]``,
        ``kinds[g, seat]`` and, for external seats, ``policy_of[g, seat]`` (an index into
        ``policies``). ``on_games(k)`` is told when ``k`` more games have finished."""
        g_total, n = len(env_seeds), self.n
        shape = (g_total, n)
        for name, arr in (("agent_seeds", agent_seeds), ("kinds", kinds),
                          ("policy_of", policy_of)):
            if np.shape(arr) != shape:
                raise ValueError(f"{name} must have shape {shape}, got {np.shape(arr)}")
        seeds = np.array([int(x) & 0xFFFFFFFFFFFFFFFF for x in env_seeds], np.uint64)
        a_seeds = np.ascontiguousarray(agent_seeds, np.int64)
        kinds = np.ascontiguousarray(kinds, np.int64)
        b = self.slots
        slot_game = np.full(b, -1, np.int64)
        cursor = np.zeros(1, np.int64)
        ext = np.full(b, -1, np.int64)
        need = np.zeros(b, np.uint8)
        obs = np.zeros((b, self.layout.size), np.float32)
        out = Outcomes(np.zeros(shape, np.int64), np.zeros(g_total, np.int64),
                       np.zeros(g_total, np.bool_), np.zeros(g_total, np.int64))
        na = self._t.na
        finished = 0
        while True:
            waiting = arena_kernel(self._s, self._t, self._ot, self._om, seeds, a_seeds, kinds,
                                   slot_game, cursor, ext, need, obs, out.scores,
                                   out.winners, out.truncated, out.steps)
            if on_games is not None:
                done = int(cursor[0]) - int((slot_game >= 0).sum())
                on_games(done - finished)
                finished = done
            if not waiting:
                return out
            rows = np.flatnonzero(need)
            seat = self._s.S[rows, L.CUR]
            which = policy_of[slot_game[rows], seat]
            for k in np.unique(which).tolist():
                sel = rows[which == k]
                ext[sel] = policies[k](obs[sel], self._s.legal[sel, :na])
