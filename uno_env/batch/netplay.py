"""Playouts steered from Python: rows of a batch played on, decision by decision, by an outside
policy (a network's batched forward pass), the trivial decisions taken in the kernel.

A search agent whose rollouts follow a policy network cannot call the network from a kernel.
Instead each tick :func:`advance_kernel` moves every live row through its trivial decisions
(one legal action; calling UNO or catching, which cost nothing) and, optionally, the seats the
default policy plays (``rule_seats``), and stops each row at the next decision the network must
make, writing that seat's observation; :func:`apply_kernel` then applies the chosen actions.
A row is done when its round ends or it has made ``cap`` decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch.borrow import as_ref, borrow, borrow_batch, borrow_tables, unsigned
from uno_env.batch.cache import njit
from uno_env.batch.convert import from_state
from uno_env.batch.layout import Batch
from uno_env.batch.legal import settle
from uno_env.batch.observation import write_obs
from uno_env.batch.play import apply
from uno_env.batch.rollout import K_CALL, Playouts, branch, policy_action, round_share
from uno_env.batch.tables import Tables
from uno_env.rules.codes import P_OVER
from uno_env.rules.state import State


@njit(cache=True, inline="always", error_model="numpy")
def _trivial(s: Batch, t: Tables, i: int, act: np.ndarray) -> int:
    """The action to take without asking the policy (the only legal one, a call or a
    catch), or -1."""
    only, count = -1, 0
    for a in range(t.na):
        if s.legal[i, a]:
            if act[0, a] == K_CALL:
                return a
            only = a
            count += 1
    return only if count == 1 else -1


@njit(cache=True, error_model="numpy")
def advance_kernel(s: Batch, t: Tables, count: int, live: np.ndarray, starts: np.ndarray,
                   steps: np.ndarray, cap: int, rule_seats: np.ndarray, act: np.ndarray,
                   face: np.ndarray, rng: np.ndarray, held: np.ndarray, rows: np.ndarray,
                   obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> int:
    """Move every live row of ``0..count-1`` to its next policy decision: its index goes to
    ``rows[k]``, the observation of the seat to act to ``obs[k]`` and its legal actions to
    ``mask[k]``; returns ``k``. A row whose round ended (or that reached ``cap`` decisions) is
    no longer live and ``out[i]`` gets each seat's share
    (:func:`uno_env.batch.rollout.round_share`); ``held`` is the default policy's scratch."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    live, starts, steps, rows = borrow(live), borrow(starts), borrow(steps), borrow(rows)
    k = 0
    for j in range(count):
        i = unsigned(j)
        if not live[i]:
            continue
        while True:
            if s.S[i, L.PHASE] == P_OVER or s.S[i, L.NROUNDS] != starts[i] or steps[i] >= cap:
                live[i] = 0
                round_share(s, t, i, starts[i], out)
                break
            a = _trivial(s, t, i, act)
            if a < 0 and rule_seats[s.S[i, L.CUR]]:
                a = policy_action(s, t, i, act, face, rng, held)
            if a < 0:
                rows[k] = i
                write_obs(s, t, i, s.S[i, L.CUR], obs[k])
                mask[k] = s.legal[i, :t.na]
                k += 1
                break
            apply(s, t, i, a)
            settle(s, t, i)
            steps[i] += 1
    return k


@njit(cache=True, error_model="numpy")
def apply_kernel(s: Batch, t: Tables, k: int, rows: np.ndarray, actions: np.ndarray,
                 steps: np.ndarray) -> None:
    """Apply ``actions[m]`` in row ``rows[m]`` for ``m < k``."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    for m in range(k):
        i = unsigned(rows[m])
        apply(s, t, i, actions[m])
        settle(s, t, i)
        steps[i] += 1


Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


class PolicyBranches(Playouts):
    """Root evaluation (PIMC) whose playouts follow ``policy``: each sampled state is branched
    on every candidate action (common random numbers: the branches of one sample share its
    hands, draw pile and generators, and differ in the action alone) and played to the end of
    the round, the seats in ``default_seats`` by the default policy and every other decision
    by ``policy(observations, masks) -> actions``, called once per tick over all live rows.
    :meth:`results` gives the searching seat's share per sample and action."""

    def __init__(self, variant: str, num_players: int, policy: Policy, rows: int = 1024,
                 cap: int = 300, default_seats: Sequence[int] = (), **options: Any) -> None:
        self.rows = int(rows)
        super().__init__(variant, num_players, self.rows + 1, cap, options)  # + scratch row
        self.policy = policy
        b = self.rows + 1
        self._steps = np.zeros(b, np.int64)
        self._live = np.zeros(b, np.uint8)
        self._idx = np.zeros(b, np.int64)
        self._obs = np.zeros((b, self._t.obs_dim), np.float32)
        self._mask = np.zeros((b, self._t.na), np.uint8)
        self._seed = np.zeros(1, np.uint64)
        self._held = np.zeros(5, np.int64)
        self._rule = np.zeros(num_players, np.uint8)
        for q in default_seats:
            self._rule[q] = 1
        self.start([0], 0)
        self.flush()  # compile (or load) the kernels now, not inside a timed decision
        branch(self._s, self._t, self.rows, 0, self._actions, 0, self._rng, self._rng,
               self._starts)
        apply_kernel(self._s, self._t, 0, self._idx, self._idx, self._steps)

    def start(self, actions: Sequence[int], seat: int) -> None:
        """A new decision: compare ``actions`` for ``seat``."""
        self._actions = np.asarray(actions, dtype=np.int64)
        self._seat = seat
        self._lo = 0
        self._done: list[np.ndarray] = []

    @property
    def room(self) -> int:
        """Samples that fit before the queued ones must be played."""
        return (self.rows - self._lo) // len(self._actions)

    def add(self, state: State, seed: int) -> None:
        """Branch ``state`` (not changed) on every action, its playouts' generators started
        from ``seed``; played out by :meth:`results` or when the rows are full."""
        if len(self._actions) > self.rows:
            raise ValueError(f"{len(self._actions)} actions exceed the {self.rows} rows of "
                             f"this batch")
        if self.room == 0:
            self.flush()
        from_state(self._s, self._t, state, self.rows)
        self._seed[0] = seed
        branch(self._s, self._t, self.rows, self._lo, self._actions, 1, self._seed,
               self._rng, self._starts)
        self._lo += len(self._actions)

    def flush(self) -> None:
        """Play the queued branches to the end of their round."""
        k = self._lo
        self.steer(k)
        self._done.append(self._out[:k, self._seat].reshape(-1, len(self._actions)).copy())
        self._lo = 0

    def steer(self, k: int) -> None:
        """Play rows ``0..k-1`` (branched already) to the end of their round: each seat's
        shares go to ``_out[:k]``."""
        self._steps[:k] = 0
        self._live[:k] = 1
        while True:
            m = advance_kernel(self._s, self._t, k, self._live, self._starts, self._steps,
                               self.cap, self._rule, self._act, self._face, self._rng,
                               self._held, self._idx, self._obs, self._mask, self._out)
            if m == 0:
                break
            actions = np.ascontiguousarray(self.policy(self._obs[:m], self._mask[:m]),
                                           dtype=np.int64)
            apply_kernel(self._s, self._t, m, self._idx, actions, self._steps)
            self.decisions += m

    def results(self) -> np.ndarray:
        """``[samples, actions]``: the searching seat's share of each playout so far."""
        if self._lo:
            self.flush()
        return np.concatenate(self._done) if self._done else np.zeros(
            (0, len(self._actions)))
