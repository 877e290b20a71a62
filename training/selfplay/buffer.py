"""The buffer of recorded decisions that both rollouts (Python engine, batch engine) fill:
per-seat chains, GAE along them, and the carry-over of each seat's pending decision.

Each recorded seat has its own trajectory: its decisions in order, with every reward the game
pays that seat added to the seat's latest decision (``b_rew``), ``b_next`` linking a decision
to the seat's next one and ``b_done`` marking a game's last. ``last_idx[i, s]`` is the latest
decision of seat ``s`` in game slot ``i`` (-1: none). A seat's last decision in a rollout,
whose successor is not known yet, is *pending*: it serves as the bootstrap value of its
predecessor and is moved to the front (:meth:`DecisionBuffer.carry_over`) to be trained in the
next rollout, with the log-probability it was sampled with.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import torch

FIELDS = ("obs", "mask", "act", "logp", "val", "rew", "done", "next", "teacher", "extra")
BATCH_FIELDS = ("obs", "mask", "act", "logp", "teacher", "extra")


@numba.njit(cache=True)
def _gae(val: np.ndarray, rew: np.ndarray, done: np.ndarray, nxt: np.ndarray,
         pending: np.ndarray, gamma: float, lam: float) -> np.ndarray:  # pragma: no cover
    adv = np.zeros(len(val), np.float64)
    for j in range(len(val) - 1, -1, -1):
        if pending[j]:
            continue
        if done[j]:
            adv[j] = rew[j] - val[j]
        else:
            m = nxt[j]
            tail = 0.0 if pending[m] else adv[m]
            adv[j] = rew[j] + gamma * val[m] - val[j] + gamma * lam * tail
    return adv


class DecisionBuffer:
    """Decisions of ``k`` game slots of ``n`` seats, room for ``ticks`` decisions per slot
    plus the carried-over pending ones."""

    def __init__(self, k: int, n: int, ticks: int, obs_dim: int, num_actions: int,
                 critic_extra: int) -> None:
        self.k, self.n = k, n
        self.cap = cap = k * (ticks + n)
        self.b_obs = np.zeros((cap, obs_dim), dtype=np.float32)
        self.b_mask = np.zeros((cap, num_actions), dtype=np.bool_)
        self.b_act = np.zeros(cap, dtype=np.int64)
        self.b_logp = np.zeros(cap, dtype=np.float32)
        self.b_val = np.zeros(cap, dtype=np.float32)
        self.b_rew = np.zeros(cap, dtype=np.float32)
        self.b_done = np.zeros(cap, dtype=np.bool_)
        self.b_next = np.full(cap, -1, dtype=np.int64)
        self.b_teacher = np.full(cap, -1, dtype=np.int64)  # teacher's action, -1: none
        self.b_extra = np.zeros((cap, critic_extra), dtype=np.float32)
        self.last_idx = np.full((k, n), -1, dtype=np.int64)
        self.size = 0

    def pending(self) -> np.ndarray:
        """Boolean over the buffer: the seats' latest decisions (their successor unknown)."""
        p = np.zeros(self.size, dtype=np.bool_)
        j = self.last_idx[self.last_idx >= 0]
        p[j] = True
        return p

    def advantages(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GAE along each seat's chain; returns (trainable indices, advantages, returns)."""
        size = self.size
        pending = self.pending()
        adv = _gae(self.b_val[:size].astype(np.float64), self.b_rew[:size].astype(np.float64),
                   self.b_done[:size], self.b_next[:size], pending, float(gamma), float(lam))
        train = np.flatnonzero(~pending)
        a = adv.astype(np.float32)[train]
        return train, a, a + self.b_val[train]

    def batch(self, gamma: float, lam: float) -> dict[str, np.ndarray]:
        """The trainable decisions with their advantages and returns (copies)."""
        train, adv, ret = self.advantages(gamma, lam)
        out = {f: getattr(self, "b_" + f)[train] for f in BATCH_FIELDS}
        out["adv"], out["ret"] = adv, ret
        return out

    def carry_over(self) -> None:
        """Move each seat's pending (last) decision to the front of the buffer, in slot and
        seat order."""
        flat = self.last_idx.reshape(-1)
        have = np.flatnonzero(flat >= 0)
        src = flat[have]
        m = len(src)
        for f in ("obs", "mask", "act", "logp", "val", "rew", "teacher", "extra"):
            b = getattr(self, "b_" + f)
            b[:m] = b[src]
        self.b_done[:m] = False
        self.b_next[:m] = -1
        flat[have] = np.arange(m)
        self.size = m

    # --- exact resume ---------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The filled part of the buffer and the chain heads, as tensors."""
        out: dict[str, Any] = {f: torch.from_numpy(getattr(self, "b_" + f)[:self.size].copy())
                               for f in FIELDS}
        out["last_idx"] = torch.from_numpy(self.last_idx.copy())
        return out

    def load_state(self, st: dict[str, Any]) -> None:
        m = len(st["act"])
        for f in FIELDS:
            getattr(self, "b_" + f)[:m] = st[f].numpy()
        self.last_idx[...] = st["last_idx"].numpy()
        self.size = m
