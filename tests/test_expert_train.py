"""The train phase of expert iteration: PPO plus the distillation term, and distillation alone
(uno_env.training.expert.train; docs/expert-loop.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_expert_loss import real_labels  # noqa: E402
from test_selfplay import params, same, tiny  # noqa: E402

from uno_env.agents.policy import PolicyNet, load_policy, save_policy  # noqa: E402
from uno_env.training.expert.loss import targets  # noqa: E402
from uno_env.training.expert.train import DistillTrainer, distill  # noqa: E402
from uno_env.training.selfplay import SelfPlayTrainer  # noqa: E402


def run(trainer: SelfPlayTrainer) -> dict[str, torch.Tensor]:
    trainer.run()
    return params(trainer.out / "checkpoint_last.pt")


def test_weight_zero_is_plain_ppo_and_a_positive_weight_changes_the_run(tmp_path: Path
                                                                        ) -> None:
    labels = targets(real_labels(120, 1), 0.1, 2)
    plain = run(SelfPlayTrainer(tiny(tmp_path / "plain")))
    zero = run(DistillTrainer(tiny(tmp_path / "zero"), labels, 0.0, 0.5, 32))
    assert same(plain, zero)
    mixed = DistillTrainer(tiny(tmp_path / "mixed"), labels, 1.0, 0.5, 32)
    assert not same(plain, run(mixed))
    assert {"distill_policy_loss", "distill_kl", "distill_value_loss"} <= set(mixed.last_stats)


def test_a_resumed_distill_run_ends_as_the_uninterrupted_one(tmp_path: Path) -> None:
    """The label minibatches' generator is checkpointed with the run."""
    labels = targets(real_labels(120, 2), 0.1, 2)
    const = {"lr_schedule": "constant", "ent_schedule": "constant"}
    first = DistillTrainer(tiny(tmp_path / "whole", **const), labels, 1.0, 0.5, 32)
    whole = run(first)
    part = DistillTrainer(tiny(tmp_path / "part", total_steps=100, **const), labels, 1.0,
                          0.5, 32)
    part.run()
    assert 0 < part.updates < first.updates
    resumed = DistillTrainer(tiny(tmp_path / "part", resume="auto", **const), labels, 1.0,
                             0.5, 32)
    assert same(whole, run(resumed))


def test_distillation_alone_moves_the_network_towards_the_targets(tmp_path: Path) -> None:
    raw = real_labels(200, 3)
    labels = targets(raw, 0.05, 2)
    torch.manual_seed(0)
    net = PolicyNet(raw["obs"].shape[1], raw["mask"].shape[1], [32])
    from uno_env.agents.policy import config_key

    key = config_key("classic", 2, {})
    prior = save_policy(tmp_path / "prior.pt", net, key)
    first = distill(prior, tmp_path / "one.pt", labels, 1, 64, 1e-3, 0.5, seed=0)
    later = distill(prior, tmp_path / "many.pt", labels, 30, 64, 1e-3, 0.5, seed=0)
    assert later["distill_kl"] < 0.8 * first["distill_kl"]
    again = distill(prior, tmp_path / "again.pt", labels, 30, 64, 1e-3, 0.5, seed=0)
    assert again == later  # seeded: the same numbers
    new, payload = load_policy(tmp_path / "many.pt")
    assert payload["pieces"] == key["pieces"] and payload["info"]["trainer"] == "expert-distill"
    assert not np.allclose(new.policy_head.weight.detach(), net.policy_head.weight.detach())
