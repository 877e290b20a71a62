"""The train phase of expert iteration: the self-play PPO trainer with the distillation term
added to each minibatch's loss (mode ``ppo``), or passes over the labels alone (mode
``distill``); targets and loss in :mod:`uno_env.training.expert.loss`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env.agents.policy import load_policy, save_policy
from uno_env.seeding import derive_seed
from uno_env.training.config import SelfPlayConfig
from uno_env.training.expert.loss import LabelStore
from uno_env.training.selfplay.trainer import SelfPlayTrainer

PAYLOAD_OWN = ("format", "format_version", "hidden", "critic_extra", "model", "info")
LABEL_STREAM = 2  # derive_seed(seed, LABEL_STREAM): the order label minibatches are drawn in


class DistillTrainer(SelfPlayTrainer):
    """``SelfPlayTrainer`` whose PPO loss gains ``coef`` times the distillation loss on
    ``batch`` label rows per minibatch (drawn by a generator of its own, checkpointed with
    the run). With ``coef == 0`` or no labels it is the plain trainer, number for number.
    Its update (with the distillation term) stays in the learner: the workers play beside
    it (``policy_lag: auto`` is 1 with worker processes, as before the shared update)."""

    SHARES_UPDATE = False

    def __init__(self, config: dict[str, Any] | SelfPlayConfig,
                 labels: dict[str, np.ndarray] | None, coef: float, value_coef: float,
                 batch: int) -> None:
        super().__init__(config)
        if self.critic_extra:
            raise ValueError("the distillation term trains the shared value head: use "
                             "critic: obs in the selfplay: section")
        self.coef, self.value_coef, self.batch = float(coef), float(value_coef), int(batch)
        self.store: LabelStore | None = None
        if self.coef > 0 and labels is not None:
            rng = np.random.default_rng(derive_seed(self.cfg.seed, LABEL_STREAM))
            self.store = LabelStore(labels, self.device, rng)

    def _extra(self, net: Any) -> tuple[torch.Tensor, dict[str, float]]:
        assert self.store is not None
        loss, stats = self.store.loss(net, self.batch, self.value_coef)
        return self.coef * loss, stats

    def _update(self, batch: dict[str, np.ndarray], ent_coef: float, teacher_coef: float
                ) -> dict[str, float]:
        from uno_env.training.selfplay.ppo import ppo_update

        return ppo_update(self.net, self.opt, self.cfg, batch, self.rng_shuffle, ent_coef,
                          teacher_coef, self.device, self.critic_extra > 0,
                          None if self.store is None else self._extra)

    def checkpoint_dict(self) -> dict[str, Any]:
        ck = super().checkpoint_dict()
        if self.store is not None:
            ck["labels_rng"] = self.store.rng.bit_generator.state
        return ck

    def load_checkpoint(self, path: str | Path) -> None:
        super().load_checkpoint(path)
        if self.store is not None:
            ck = torch.load(Path(path), map_location="cpu", weights_only=True)
            self.store.rng.bit_generator.state = ck["labels_rng"]


def distill(prior: str | Path, out: str | Path, labels: dict[str, np.ndarray], epochs: int,
            batch: int, lr: float, value_coef: float, seed: int, threads: int = 1
            ) -> dict[str, float]:
    """Mode ``distill``: ``epochs`` shuffled passes of Adam over the labels alone, from the
    policy file ``prior``; writes the new policy file ``out``; returns the last epoch's
    mean statistics."""
    net, payload = load_policy(prior)
    # the file's game and the observation pieces its network reads, kept as they were
    key = {k: v for k, v in payload.items() if k not in PAYLOAD_OWN}
    store = LabelStore(labels, torch.device("cpu"), np.random.default_rng(seed))
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr, eps=1e-5)
    prev = torch.get_num_threads()
    torch.set_num_threads(threads)
    stats: dict[str, float] = {}
    try:
        net.train()
        for _ in range(epochs):
            perm = torch.randperm(store.size, generator=gen).numpy()
            totals: dict[str, float] = {}
            parts = np.array_split(perm, max(1, round(store.size / batch)))
            for rows in parts:
                loss, s = store.loss(net, batch, value_coef, rows)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
                for k, v in s.items():
                    totals[k] = totals.get(k, 0.0) + v
            stats = {k: v / len(parts) for k, v in totals.items()}
        net.eval()
    finally:
        torch.set_num_threads(prev)
    save_policy(out, net, key, {"trainer": "expert-distill", "seed": seed})
    return stats
