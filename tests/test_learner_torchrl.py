"""``uno_env.torchrl_env``: TorchRL's ``EnvBase`` over the learner vector env, checked by
TorchRL's own ``check_env_specs``, its synchronous collector (``Collector``, TorchRL 0.14's
name for ``SyncDataCollector``) and a ``MaskedCategorical`` actor; its games are UNO-v1's."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from tensordict.nn import TensorDictModule  # noqa: E402
from torchrl.collectors import Collector  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402
from torchrl.modules import MaskedCategorical, ProbabilisticActor  # noqa: E402

import uno_env  # noqa: E402


def test_torchrl_checks_the_specs() -> None:
    env = uno_env.torchrl_env("flip", 3, num_envs=4, opponents=["rule"])
    check_env_specs(env, seed=0)
    td = env.reset()
    assert td["action_mask"].shape == (4, env.action_spec.space.n)
    # the action spec's mask is the legal actions: random actions are legal
    for _ in range(20):
        td = env.rand_step(td)
        assert td["action_mask"].gather(-1, td["action"].unsqueeze(-1)).all()
        td = env.step_mdp(td) if not td["next", "done"].any() else env.reset()


def test_sync_data_collector_with_a_masked_categorical_actor() -> None:
    env = uno_env.torchrl_env("classic", 2, num_envs=8, opponents=["random", "rule"],
                              max_steps=80)
    dim, na = env.observation_spec["observation"].shape[-1], env.action_spec.space.n
    net = TensorDictModule(torch.nn.Sequential(torch.nn.Linear(dim, 64), torch.nn.Tanh(),
                                               torch.nn.Linear(64, na)),
                           in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(net, in_keys={"logits": "logits", "mask": "action_mask"},
                               out_keys=["action"], distribution_class=MaskedCategorical,
                               return_log_prob=True)
    collector = Collector(env, actor, frames_per_batch=160, total_frames=480)
    batches = 0
    episodes = 0
    for batch in collector:
        batches += 1
        mask = batch["action_mask"]
        assert mask.gather(-1, batch["action"].unsqueeze(-1)).all()  # only legal actions
        episodes += int(batch["next", "done"].sum())
    collector.shutdown()
    assert batches == 3 and episodes > 0


def test_games_are_uno_v1_games() -> None:
    kw = dict(variant="classic", num_players=2, opponents=["rule"])
    env = uno_env.torchrl_env(num_envs=2, **kw)
    env.set_seed(5)
    td = env.reset()
    singles = [gymnasium.make(uno_env.GYM_ID, **kw) for _ in range(2)]
    obs = [e.reset(seed=5 + i)[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(80):
        for i in range(2):
            np.testing.assert_array_equal(td["observation"][i].numpy(), obs[i])
        actions = [int(rng.choice(np.flatnonzero(m))) for m in td["action_mask"].numpy()]
        td["action"] = torch.tensor(actions)
        td, nxt = env.step_and_maybe_reset(td)
        for i, e in enumerate(singles):
            o, r, te, tr, _ = e.step(actions[i])
            assert td["next", "reward"][i, 0].item() == pytest.approx(r)
            assert bool(td["next", "terminated"][i, 0]) == te
            np.testing.assert_array_equal(td["next", "observation"][i].numpy(), o)
            if te or tr:
                ends += 1
                o, _ = e.reset()
            obs[i] = o
        td = nxt
    assert ends >= 2


def test_bad_construction_says_what_to_do() -> None:
    from uno_env.batch.learner import LearnerVectorEnv
    from uno_env.integrations.torchrl import UnoTorchRLEnv

    with pytest.raises(ValueError, match="autoreset=False"):
        UnoTorchRLEnv(LearnerVectorEnv(2))
    with pytest.raises(ValueError, match="allowed: 'random', 'rule'"):
        uno_env.torchrl_env(opponents=["ppo:x.pt"])
