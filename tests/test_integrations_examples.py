"""The examples under examples/ run (tiny step counts) and credit rewards to the right agent:
SB3 (ours and PettingZoo's tutorial wrapper, fixed), Tianshou's multi-agent DQN, and a
CleanRL-style PPO loop."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_sb3_maskable_ppo_on_the_registered_env() -> None:
    ex = _example("sb3_maskable_ppo")
    model = ex.train(steps=128, n_steps=64)
    assert model.num_timesteps >= 128
    assert -1.0 <= ex.evaluate(model, episodes=2, max_steps=300) <= 1.0


def test_sb3_tutorial_wrapper_hands_the_loser_its_minus_one() -> None:
    """Every finished game ends with the last mover's reward and then the other seat's
    reward on a step of its own: the loser's -1 always reaches the learner."""
    ex = _example("sb3_pettingzoo_tutorial")
    env = ex.make_env("classic", max_steps=3000)
    rng = np.random.default_rng(0)
    finished = 0
    for ep in range(8):
        env.reset(seed=ep)
        steps: list[tuple[str, float]] = []
        while True:
            inner = env.env
            agent = inner._owed[0][0] if inner._owed else inner.agent_selection
            _, r, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            steps.append((agent, float(r)))
            if term or trunc:
                break
        if term:
            finished += 1
            # the last mover's reward (usually the winner's +1; a loser's when a catch window
            # or forced decision fell to them), then the other seat's on a step of its own
            (mover, r_mover), (other, r_other) = steps[-2:]
            assert sorted([r_mover, r_other]) == [-1.0, 1.0] and mover != other
            assert all(r == 0.0 for _, r in steps[:-2])
    assert finished >= 3
    model = ex.train(steps=128, n_steps=64)
    assert model.num_timesteps >= 128


def _own_returns(credited: bool, games: int) -> list[list[float]]:
    """Per finished game, each agent's rewards summed over its own transitions: the rows
    whose ``obs["agent_id"]`` is that agent, reward column ``agent_idx[agent]``, which is
    what Tianshou's MARLDispatcher gives that agent's learner. The policy is random but
    never draws while it has another choice (short games)."""
    ex = _example("tianshou_dqn")
    env = ex.make_env("classic", credited=credited)
    draw = env.env.unwrapped.action_index("draw")
    rng = np.random.default_rng(0)
    out = []
    for seed in range(games):
        obs, _ = env.reset(seed=seed)
        own = [0.0] * len(env.agents)
        while True:
            agent = obs["agent_id"]
            legal = np.flatnonzero(obs["mask"])
            choice = legal[legal != draw] if len(legal) > 1 else legal
            obs, rew, term, trunc, _ = env.step(int(rng.choice(choice)))
            own[env.agent_idx[agent]] += rew[env.agent_idx[agent]]
            if term or trunc:
                break
        assert term
        out.append(own)
    return out


def test_tianshou_rewards_are_credited_to_the_agent_they_belong_to() -> None:
    pytest.importorskip("tianshou")
    fixed = _own_returns(credited=True, games=6)
    assert all(sorted(r) == [-1.0, 1.0] for r in fixed)
    plain = _own_returns(credited=False, games=6)  # Tianshou's own PettingZooEnv
    # only the last mover's result arrives (usually the winner's: the loser never loses)
    assert all(sorted(r) in ([0.0, 1.0], [-1.0, 0.0]) for r in plain)
    assert [0.0, 1.0] in [sorted(r) for r in plain]


def test_tianshou_dqn_trains_against_random() -> None:
    pytest.importorskip("tianshou")
    ex = _example("tianshou_dqn")
    result, algorithm = ex.train(epochs=1, epoch_steps=20, num_envs=1, batch_size=16,
                                 max_steps=100)
    assert np.isfinite(result.best_reward)
    assert algorithm.get_algorithm("player_0") is not None


def test_cleanrl_style_ppo_loop() -> None:
    ex = _example("cleanrl_ppo")
    agent, returns = ex.train(ex.Args(total_timesteps=128, num_envs=2, num_steps=64,
                                      opponents=("rule",), max_steps=100, update_epochs=1))
    assert returns and set(returns) <= {-1.0, 0.0, 1.0}
    assert -1.0 in returns  # losses reach the learner
    assert all(np.isfinite(p.detach().numpy()).all() for p in agent.parameters())
