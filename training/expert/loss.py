"""The distillation targets and loss of expert iteration (docs/expert-loop.md).

A label row is one searched position: the network's policy at search time (``prior``, pi),
and per action the mean playout share of the searching seat (``q``, in [0, 1]; NaN where the
action was not searched). The *improved policy* is

    pi'(a)  proportional to  pi(a) * exp(q(a) / tau)   over the searched legal actions,

zero elsewhere: ``tau -> infinity`` gives the prior renormalised over the searched actions,
``tau -> 0`` the searched action with the best ``q`` (ties shared by prior). The value target
is the search's value ``sum_a pi'(a) q(a)``, a win share, mapped to the value head's scale:
the self-play trainer's value predicts the return of ``reward="win_loss"`` (the winner +1,
each other seat -1/(n-1); ``uno_env.aec``), so a win share ``s`` is worth
``(n s - 1) / (n - 1)`` (``2 s - 1`` with two players; the trainer's discount, 0.995 a
decision, is not applied: a search value is the round's outcome).

The loss is the cross-entropy of the network's masked policy against pi' plus
``value_coef`` times half the squared error of its value against the target: the same
forms as the PPO loss's kickstarting and value terms (:mod:`uno_env.training.selfplay.ppo`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

PRIOR_FLOOR = 1e-8  # a searched action the prior gave ~0 can still win the tau -> 0 limit


def improved_policy(prior: np.ndarray, q: np.ndarray, mask: np.ndarray, tau: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """pi' of every row (``[N, A]`` float32, rows summing to 1) and which rows have one
    (``[N]`` bool: at least one searched legal action). Rows without get zeros."""
    if not tau > 0 or not np.isfinite(tau):
        raise ValueError(f"tau must be a finite number > 0, got {tau!r}")
    prior = np.asarray(prior, np.float64)
    q = np.asarray(q, np.float64)
    if prior.shape != q.shape or np.shape(mask) != q.shape:
        raise ValueError(f"prior {prior.shape}, q {q.shape} and mask {np.shape(mask)} must "
                         "have the same shape [N, actions]")
    searched = np.asarray(mask, bool) & ~np.isnan(q)
    logit = np.log(np.maximum(prior, PRIOR_FLOOR)) + np.where(searched, q, 0.0) / tau
    logit = np.where(searched, logit, -np.inf)
    valid = searched.any(axis=1)
    top = np.where(valid, logit.max(axis=1, initial=-np.inf), 0.0)
    w = np.where(searched, np.exp(logit - top[:, None]), 0.0)
    total = w.sum(axis=1, keepdims=True)
    pi = np.divide(w, total, out=np.zeros_like(w), where=total > 0)
    return pi.astype(np.float32), valid


def search_value(pi: np.ndarray, q: np.ndarray, num_players: int) -> np.ndarray:
    """The value head's target per row: the win share ``sum_a pi'(a) q(a)`` on the
    ``win_loss`` return's scale (module docstring)."""
    if num_players < 2:
        raise ValueError(f"num_players must be >= 2, got {num_players}")
    share = np.where(pi > 0, np.nan_to_num(np.asarray(q, np.float64)) * pi, 0.0).sum(axis=1)
    n = float(num_players)
    out: np.ndarray = ((n * share - 1.0) / (n - 1.0)).astype(np.float32)
    return out


def targets(labels: dict[str, np.ndarray], tau: float, num_players: int
            ) -> dict[str, np.ndarray]:
    """The training arrays of a set of label rows: ``obs``, ``mask``, ``pi`` (pi'), ``v``,
    keeping only rows with a searched action."""
    pi, valid = improved_policy(labels["prior"], labels["q"], labels["mask"], tau)
    v = search_value(pi, labels["q"], num_players)
    return {"obs": np.asarray(labels["obs"], np.float32)[valid],
            "mask": np.asarray(labels["mask"], bool)[valid],
            "pi": pi[valid], "v": v[valid]}


def distill_loss(logits: torch.Tensor, value: torch.Tensor, pi: torch.Tensor,
                 v: torch.Tensor, value_coef: float) -> tuple[torch.Tensor, dict[str, float]]:
    """Cross-entropy of the masked ``logits`` against ``pi`` plus ``value_coef`` times half
    the squared value error; statistics: the two terms, the KL(pi' || network) and how often
    the network's argmax is pi''s."""
    logp = torch.log_softmax(logits, dim=-1)
    # masked actions have logp ~ -1e9 and pi' = 0 there: leave them out of the sum
    ce = -(torch.where(pi > 0, pi * logp, torch.zeros_like(logp))).sum(-1).mean()
    v_loss = 0.5 * (value - v).pow(2).mean()
    with torch.no_grad():
        ent = -(torch.where(pi > 0, pi * pi.clamp_min(1e-30).log(),
                            torch.zeros_like(pi))).sum(-1).mean()
        stats: dict[str, Any] = {
            "distill_policy_loss": float(ce), "distill_value_loss": float(v_loss),
            "distill_kl": float(ce - ent),
            "distill_agree": float((logits.argmax(-1) == pi.argmax(-1)).float().mean())}
    return ce + value_coef * v_loss, stats


class LabelStore:
    """The training targets of the labels in use, on ``device``, drawn in minibatches by a
    generator of its own (so PPO's minibatch order is that of plain PPO)."""

    def __init__(self, data: dict[str, np.ndarray], device: torch.device,
                 rng: np.random.Generator) -> None:
        self.size = len(data["v"])
        if self.size == 0:
            raise ValueError("the label store has no searched positions to train on")
        self.t = {k: torch.from_numpy(np.ascontiguousarray(v)).to(device)
                  for k, v in data.items()}
        self.rng = rng

    def loss(self, net: Any, batch: int, value_coef: float, rows: np.ndarray | None = None
             ) -> tuple[torch.Tensor, dict[str, float]]:
        """The distillation loss of ``net`` on ``rows`` (default: ``batch`` random rows)."""
        if rows is None:
            rows = self.rng.integers(self.size, size=min(batch, self.size))
        idx = torch.from_numpy(rows).to(self.t["v"].device)
        logits, value = net(self.t["obs"][idx], self.t["mask"][idx])
        return distill_loss(logits, value, self.t["pi"][idx], self.t["v"][idx], value_coef)
