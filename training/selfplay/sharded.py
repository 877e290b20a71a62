"""The PPO update spread over the rollout workers (``policy_lag: 0`` with two workers or
more; docs/training.md, "Every core").

The update is three quarters of the work on one core, so rollouts on every core alone gain
little; torch's intra-op threads share it badly (they spin while waiting for each other, and
on a busy machine, or beside rollout workers, they wait for cores most of the time). Here
each minibatch is cut into one shard per worker: each computes the gradient of its rows'
share of the minibatch loss on its own core (one thread, the current weights read from a
shared block), and the learner adds the shards' gradients in worker order, clips and steps.
The minibatches, their shuffling and the loss are those of
``uno_env.training.selfplay.ppo.ppo_update``: each term's mean over the minibatch is
the sum of the shards' sums over its row count (advantages normalised over the whole
minibatch), so only the rounding of the sums differs from one core's update. Workers in
the learner's process (``worker_processes: false``) compute the same shards one after
another: the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env.agents.policy import PolicyNet
from uno_env.training.config import SelfPlayConfig

Rows = dict[str, np.ndarray]
# one minibatch's shards -> (the shards' flat gradients in worker order, their statistics)
ShardRunner = Callable[[list[np.ndarray], "Minibatch"], list[tuple[np.ndarray, dict[str, float]]]]
STATS = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_frac")


class Minibatch:
    """What every shard of one minibatch shares: its size, the advantages' normalisation,
    the number of teacher-labelled rows and the loss's coefficients."""

    def __init__(self, n: int, mean: float, std: float, n_taught: int, ent_coef: float,
                 teacher_coef: float, clip: float, vf_coef: float) -> None:
        self.n, self.mean, self.std, self.n_taught = n, mean, std, n_taught
        self.ent_coef, self.teacher_coef, self.clip, self.vf_coef = (
            ent_coef, teacher_coef, clip, vf_coef)

    def args(self) -> tuple[Any, ...]:
        return (self.n, self.mean, self.std, self.n_taught, self.ent_coef, self.teacher_coef,
                self.clip, self.vf_coef)


def shard_gradient(net: PolicyNet, rows: Rows, mb: Minibatch, critic: bool
                   ) -> tuple[np.ndarray, dict[str, float]]:
    """The gradient of ``rows``' share of the minibatch loss (flat, parameter order) and the
    sums behind the update's statistics."""
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in rows.items()}
    logits, value = net(t["obs"], t["mask"], t["extra"] if critic else None)
    logp_all = torch.log_softmax(logits, dim=-1)
    logp = logp_all.gather(1, t["act"][:, None])[:, 0]
    ent_rows = -(logp_all.exp() * logp_all).sum(-1)
    a = t["adv"]
    if mb.n > 1:
        a = (a - mb.mean) / (mb.std + 1e-8)
    log_ratio = logp - t["logp"]
    ratio = log_ratio.exp()
    pg = -torch.min(ratio * a, ratio.clamp(1 - mb.clip, 1 + mb.clip) * a).sum()
    v_sum = 0.5 * (value - t["ret"]).pow(2).sum()
    ent = ent_rows.sum()
    loss = (pg + mb.vf_coef * v_sum - mb.ent_coef * ent) / mb.n
    stats = {}
    teacher = t["teacher"]
    taught = teacher >= 0
    if mb.teacher_coef > 0 and mb.n_taught > 0:
        t_sum = -logp_all[taught].gather(1, teacher[taught][:, None])[:, 0].sum()
        loss = loss + mb.teacher_coef * t_sum / mb.n_taught
        with torch.no_grad():
            stats["teacher_loss"] = float(t_sum)
            stats["teacher_agree"] = float((logits[taught].argmax(-1) == teacher[taught]).sum())
    net.zero_grad(set_to_none=True)
    loss.backward()
    grad = torch.cat([p.grad.reshape(-1) for p in net.parameters()])  # type: ignore[union-attr]
    with torch.no_grad():
        stats.update(policy_loss=float(pg), value_loss=float(v_sum), entropy=float(ent),
                     approx_kl=float(((ratio - 1) - log_ratio).sum()),
                     clip_frac=float(((ratio - 1).abs() > mb.clip).sum()))
    return grad.numpy(), stats


def sharded_update(net: PolicyNet, opt: torch.optim.Optimizer, cfg: SelfPlayConfig,
                   batch: dict[str, np.ndarray], rng: np.random.Generator, ent_coef: float,
                   teacher_coef: float, shards: int, run: ShardRunner) -> dict[str, float]:
    """``ppo_update``'s epochs and minibatches (the same shuffling by ``rng``), each
    minibatch's gradient the sum of ``shards`` shards computed by ``run``."""
    count = len(batch["act"])
    n_mb = max(1, round(count / cfg.minibatch_size))
    adv = torch.from_numpy(batch["adv"])
    teacher = batch["teacher"]
    params = list(net.parameters())
    totals = {k: 0.0 for k in (*STATS, "teacher_loss", "teacher_agree")}
    batches = 0
    net.train()
    for _ in range(cfg.epochs):
        perm = rng.permutation(count)
        for mb_np in np.array_split(perm, n_mb):
            a = adv[torch.from_numpy(mb_np)]
            mean, std = (float(a.mean()), float(a.std())) if len(mb_np) > 1 else (0.0, 1.0)
            n_taught = int((teacher[mb_np] >= 0).sum())
            mb = Minibatch(len(mb_np), mean, std, n_taught, ent_coef, teacher_coef, cfg.clip,
                           cfg.vf_coef)
            results = run(np.array_split(mb_np, shards), mb)
            grad = torch.from_numpy(results[0][0].copy())
            for g, _ in results[1:]:
                grad += torch.from_numpy(g)
            offset = 0
            for p in params:
                p.grad = grad[offset:offset + p.numel()].view_as(p).clone()
                offset += p.numel()
            nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            opt.step()
            for k in STATS:
                totals[k] += sum(s[k] for _, s in results) / mb.n
            if teacher_coef > 0 and n_taught > 0:
                for k in ("teacher_loss", "teacher_agree"):
                    totals[k] += sum(s[k] for _, s in results) / n_taught
            batches += 1
    net.eval()
    return {k: v / batches for k, v in totals.items()}


def local_runner(net: PolicyNet, batch: dict[str, np.ndarray], critic: bool) -> ShardRunner:
    """Every shard computed here, one after another, with the learner's own network."""

    def run(parts: list[np.ndarray], mb: Minibatch) -> list[tuple[np.ndarray, dict[str, float]]]:
        return [shard_gradient(net, {k: v[idx] for k, v in batch.items()}, mb, critic)
                for idx in parts]
    return run


class ShardWorker:
    """A worker process's side: its copy of the network in training mode, fed the weights
    from the shared block, and the rows of every worker's batch."""

    def __init__(self, net: PolicyNet, critic: bool) -> None:
        import copy

        self.net = copy.deepcopy(net).train()
        self.critic = critic
        self.params = list(self.net.parameters())

    def gradient(self, weights: np.ndarray, batches: list[Rows], counts: list[int],
                 idx: np.ndarray, mb: Minibatch) -> tuple[np.ndarray, dict[str, float]]:
        """The shard of rows ``idx`` (global: worker 0's rows first) with ``weights``."""
        offset = 0
        w = torch.from_numpy(weights)
        with torch.no_grad():
            for p in self.params:
                p.copy_(w[offset:offset + p.numel()].view_as(p))
                offset += p.numel()
        starts = np.cumsum([0, *counts])
        owner = np.searchsorted(starts, idx, side="right") - 1
        rows: Rows = {}
        for field in batches[0]:
            first = batches[0][field]
            out = np.empty((len(idx), *first.shape[1:]), first.dtype)
            for j, b in enumerate(batches):
                sel = owner == j
                out[sel] = b[field][idx[sel] - starts[j]]
            rows[field] = out
        return shard_gradient(self.net, rows, mb, self.critic)
