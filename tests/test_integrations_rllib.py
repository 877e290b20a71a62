"""The RLlib adapter: the keys RLlib's action-masking module reads, rewards to the agent
they belong to, illegal actions lose instead of raising, and one PPO iteration trains."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="RLlib (ray[rllib]) is not installed")

from uno_env.integrations.rllib import RLlibUnoEnv  # noqa: E402


def _random_episode(env: RLlibUnoEnv, seed: int) -> tuple[dict[str, float], int]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.agents, 0.0)
    steps = 0
    while True:
        assert len(obs) == 1  # turn-based: only the agent to act observes
        ((agent, ob),) = obs.items()
        assert agent == env.aec.agent_selection
        assert set(ob) == {"observations", "action_mask"}
        assert env.observation_spaces[agent].contains(ob)
        action = int(rng.choice(np.flatnonzero(ob["action_mask"])))
        obs, rewards, terms, truncs, _ = env.step({agent: action})
        steps += 1
        for a, r in rewards.items():
            totals[a] += r
        if terms["__all__"] or truncs["__all__"]:
            assert set(obs) == set(env.agents)  # every agent gets its final observation
            return totals, steps


def test_rewards_reach_every_agent_and_sum_to_what_the_aec_env_paid() -> None:
    env = RLlibUnoEnv({"variant": "flip", "num_players": 3, "max_steps": 3000})
    for seed in range(5):
        totals, _ = _random_episode(env, seed)
        winners = env.aec.engine.winners()
        if winners:
            w = env.possible_agents[winners[0]]
            assert totals[w] == 1.0 and sum(totals.values()) == pytest.approx(0.0)
            assert all(v == -0.5 for a, v in totals.items() if a != w)
        with pytest.raises(RuntimeError, match="reset"):
            env.step({env.aec.agent_selection: 0})


def test_an_illegal_action_ends_the_episode_with_minus_one() -> None:
    env = RLlibUnoEnv({"variant": "classic"})
    obs, _ = env.reset(seed=0)
    ((agent, ob),) = obs.items()
    illegal = int(np.flatnonzero(ob["action_mask"] == 0)[0])
    obs, rewards, terms, truncs, infos = env.step({agent: illegal})
    assert rewards[agent] == -1.0 and terms["__all__"] and not truncs["__all__"]
    assert infos[agent]["illegal_action"]
    assert all(not o["action_mask"].any() for o in obs.values())


@pytest.mark.slow
def test_one_ppo_iteration_with_rllibs_action_masking_module() -> None:
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    ray.init(num_cpus=1, include_dashboard=False, ignore_reinit_error=True,
             log_to_driver=False)
    try:
        config = (
            PPOConfig()
            .environment(RLlibUnoEnv, env_config={"variant": "classic", "max_steps": 200})
            .multi_agent(policies={"shared"},
                         policy_mapping_fn=lambda agent_id, *args, **kwargs: "shared")
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
                "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                       model_config={"head_fcnet_hiddens": [32]})}))
            .env_runners(num_env_runners=0)
            .learners(num_learners=0)
            .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
        )
        algo = config.build_algo()
        result = algo.train()
        algo.stop()
    finally:
        ray.shutdown()
    env_steps = result["env_runners"]["num_env_steps_sampled_lifetime"]
    assert env_steps >= 256
    assert "shared" in result["learners"]
