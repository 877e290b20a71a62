"""The PPO update of the self-play learner (one rollout's batch, several epochs)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from uno_env.agents.policy import PolicyNet
from uno_env.training.config import SelfPlayConfig

# a term added to every minibatch's loss: (the weighted loss, statistics to average)
ExtraLoss = Callable[[PolicyNet], tuple[torch.Tensor, dict[str, float]]]


def ppo_update(net: PolicyNet, opt: torch.optim.Optimizer, cfg: SelfPlayConfig,
               batch: dict[str, np.ndarray], rng: np.random.Generator, ent_coef: float,
               teacher_coef: float, device: torch.device, critic: bool,
               extra_loss: ExtraLoss | None = None) -> dict[str, float]:
    """PPO epochs over one rollout's trainable decisions (see ``DecisionBuffer.batch``):
    clipped objective, minibatches shuffled by ``rng``, advantages normalised per minibatch,
    plus the kickstarting cross-entropy towards the teacher's actions (``teacher >= 0``),
    plus ``extra_loss(net)`` per minibatch when given (the expert loop's distillation term,
    :mod:`uno_env.training.expert.loss`; its statistics are averaged like the others)."""
    t = {k: torch.from_numpy(v).to(device) for k, v in batch.items()}
    obs, mask, act, old_logp = t["obs"], t["mask"], t["act"], t["logp"]
    t_adv, t_ret, teacher = t["adv"], t["ret"], t["teacher"]
    extra = t["extra"] if critic else None
    count = len(act)
    n_mb = max(1, round(count / cfg.minibatch_size))
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0,
             "clip_frac": 0.0, "teacher_loss": 0.0, "teacher_agree": 0.0}
    batches = 0
    net.train()
    for _ in range(cfg.epochs):
        perm = rng.permutation(count)
        for mb_np in np.array_split(perm, n_mb):
            mb = torch.from_numpy(mb_np).to(device)
            logits, value = net(obs[mb], mask[mb], None if extra is None else extra[mb])
            logp_all = torch.log_softmax(logits, dim=-1)
            logp = logp_all.gather(1, act[mb][:, None])[:, 0]
            entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
            a = t_adv[mb]
            if len(mb) > 1:
                a = (a - a.mean()) / (a.std() + 1e-8)
            log_ratio = logp - old_logp[mb]
            ratio = log_ratio.exp()
            pg = -torch.min(ratio * a,
                            ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
            v_loss = 0.5 * (value - t_ret[mb]).pow(2).mean()
            loss = pg + cfg.vf_coef * v_loss - ent_coef * entropy
            t_mb = teacher[mb]
            taught = t_mb >= 0
            if teacher_coef > 0 and bool(taught.any()):
                t_logp = logp_all[taught].gather(1, t_mb[taught][:, None])[:, 0]
                t_loss = -t_logp.mean()
                loss = loss + teacher_coef * t_loss
                with torch.no_grad():
                    stats["teacher_loss"] += float(t_loss)
                    stats["teacher_agree"] += float(
                        (logits[taught].argmax(-1) == t_mb[taught]).float().mean())
            if extra_loss is not None:
                x_loss, x_stats = extra_loss(net)
                loss = loss + x_loss
                for k, v in x_stats.items():
                    stats[k] = stats.get(k, 0.0) + v
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["policy_loss"] += float(pg)
                stats["value_loss"] += float(v_loss)
                stats["entropy"] += float(entropy)
                stats["approx_kl"] += float(((ratio - 1) - log_ratio).mean())
                stats["clip_frac"] += float(((ratio - 1).abs() > cfg.clip).float().mean())
            batches += 1
    net.eval()
    return {k: v / batches for k, v in stats.items()}
