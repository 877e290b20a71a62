"""The PPO update shared by the rollout workers (training/selfplay/sharded.py): the same
update as one core's up to rounding, and when a run uses it (docs/training.md, "Every
core")."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from uno_env.agents.policy import PolicyNet  # noqa: E402
from uno_env.training.config import SelfPlayConfig  # noqa: E402
from uno_env.training.selfplay.ppo import ppo_update  # noqa: E402
from uno_env.training.selfplay.sharded import local_runner, sharded_update  # noqa: E402


def fake_batch(rows: int, obs_dim: int, actions: int, extra: int, seed: int = 0
               ) -> dict[str, np.ndarray]:
    """Decisions as ``DecisionBuffer.batch`` gives them (legal actions taken, some rows
    labelled by a teacher)."""
    rng = np.random.default_rng(seed)
    mask = rng.random((rows, actions)) < 0.3
    act = rng.integers(actions, size=rows)
    mask[np.arange(rows), act] = True
    teacher = np.where(rng.random(rows) < 0.5, rng.integers(actions, size=rows), -1)
    mask[np.arange(rows)[teacher >= 0], teacher[teacher >= 0]] = True
    return {"obs": rng.normal(size=(rows, obs_dim)).astype(np.float32), "mask": mask,
            "act": act.astype(np.int64),
            "logp": np.log(rng.uniform(0.05, 1.0, rows)).astype(np.float32),
            "teacher": teacher.astype(np.int64),
            "extra": rng.integers(0, 4, (rows, extra)).astype(np.float32),
            "adv": rng.normal(size=rows).astype(np.float32),
            "ret": rng.normal(size=rows).astype(np.float32)}


@pytest.mark.parametrize(("shards", "critic"), [(2, False), (3, True)])
def test_the_sharded_update_is_one_cores_update_up_to_rounding(shards: int, critic: bool
                                                                ) -> None:
    """The same minibatches (shuffled by the same generator), the same loss terms and
    statistics: each term's minibatch mean is the sum of the shards' sums over its rows
    (advantages normalised over the whole minibatch, the teacher term over its labelled
    rows), so the weights after three epochs differ only by rounding."""
    cfg = SelfPlayConfig.from_dict({"epochs": 3, "minibatch_size": 96, "clip": 0.2,
                                    "vf_coef": 0.5, "max_grad_norm": 0.5})
    extra = 6 if critic else 0
    batch = fake_batch(300, 20, 9, extra)
    torch.manual_seed(0)
    one = PolicyNet(20, 9, [32, 32], critic_extra=extra)
    every, start = copy.deepcopy(one), copy.deepcopy(one)
    opts = [torch.optim.Adam(n.parameters(), lr=1e-3, eps=1e-5) for n in (one, every)]
    s_one = ppo_update(one, opts[0], cfg, batch, np.random.default_rng(5), 0.01, 0.7,
                       torch.device("cpu"), critic)
    s_every = sharded_update(every, opts[1], cfg, batch, np.random.default_rng(5), 0.01, 0.7,
                             shards, local_runner(every, batch, critic))
    assert s_every.keys() == s_one.keys()
    for k, v in s_one.items():
        assert s_every[k] == pytest.approx(v, rel=1e-4, abs=1e-6), k
    moved = 0.0
    for p, q, p0 in zip(one.parameters(), every.parameters(), start.parameters(),
                        strict=True):
        torch.testing.assert_close(q, p, rtol=1e-4, atol=1e-5)
        moved = max(moved, float((p - p0).detach().abs().max()))
    assert moved > 1e-3  # the update did move the weights


def test_which_runs_share_the_update() -> None:
    """``policy_lag: auto`` is 0 and the workers share the update, with one learner thread,
    whenever there are two workers or more on a CPU learner; a lag, Ray actors or a GPU keep
    the update in the learner (its threads: as many as the workers)."""
    def cfg(**over: object) -> SelfPlayConfig:
        return SelfPlayConfig.from_dict({"num_envs": 8, **over}).resolved()

    shared = cfg(workers=2)
    assert (shared.policy_lag, shared.threads, shared.sharded_update) == (0, 1, True)
    assert cfg(workers=2, worker_processes=False).sharded_update  # the same numbers
    assert cfg(workers=3, threads=2).threads == 2
    for over, lag, threads in (({"workers": 1}, 0, 1), ({"workers": 2, "policy_lag": 1}, 1, 2),
                               ({"workers": 2, "ray": True}, 1, 2),
                               ({"workers": 2, "device": "cuda"}, 0, 2)):
        c = cfg(**over)
        assert (c.policy_lag, c.threads, c.sharded_update) == (lag, threads, False), over
    # a trainer with an update of its own (the expert loop's distillation) keeps the lag
    from uno_env.training.expert.train import DistillTrainer
    assert not DistillTrainer.SHARES_UPDATE
    own = SelfPlayConfig.from_dict({"num_envs": 8, "workers": 2}).resolved(share_update=False)
    assert (own.policy_lag, own.threads) == (1, 2)
