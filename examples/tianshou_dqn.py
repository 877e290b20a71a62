"""Tianshou 2.x: DQN against a random opponent through Tianshou's multi-agent manager.

This is Tianshou's own PettingZoo tutorial (``test/pettingzoo/tic_tac_toe.py``) with the
environment changed, plus one fix. Tianshou stores each transition with the reward vector of
the step in which it was made, and gives an agent the rewards of its own transitions only.
In a turn-based game the loser's -1 is paid during the winner's move, so it lands on the
winner's transition and the loser never sees it.
:class:`uno_env.integrations.tianshou.CreditedPettingZooEnv` gives every agent that did not
make the final move one last transition of its own that carries its final reward.

Usage: ``python examples/tianshou_dqn.py [--epochs 5] [--epoch-steps 2000]``
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import uno_env
from uno_env.integrations.tianshou import CreditedPettingZooEnv


def make_env(variant: str = "classic", credited: bool = True, **kwargs: Any) -> PettingZooEnv:
    cls = CreditedPettingZooEnv if credited else PettingZooEnv
    return cls(uno_env.env(variant, 2, **kwargs))


def train(variant: str = "classic", epochs: int = 5, epoch_steps: int = 2000,
          num_envs: int = 4, batch_size: int = 64, seed: int = 0,
          max_steps: int = 2000) -> tuple[Any, MultiAgentOffPolicyAlgorithm]:
    """Train a DQN as player_0 against a random player_1; returns (result, algorithm)."""
    def env_fn() -> PettingZooEnv:
        return make_env(variant, max_steps=max_steps)

    env = env_fn()
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n,
              hidden_sizes=[128, 128])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                       eps_training=0.1, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, n_step_return_horizon=1,
        target_update_freq=320)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    train_envs = DummyVectorEnv([env_fn for _ in range(num_envs)])
    test_envs = DummyVectorEnv([env_fn for _ in range(num_envs)])
    np.random.seed(seed)
    torch.manual_seed(seed)
    train_envs.seed(seed)
    test_envs.seed(seed + 1)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(20_000, num_envs), exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=batch_size * num_envs)
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector, max_epochs=epochs,
        epoch_num_steps=epoch_steps, collection_step_num_env_steps=10,
        test_step_num_episodes=num_envs, batch_size=batch_size,
        update_step_num_gradient_steps_per_sample=0.1, test_in_training=False,
        show_progress=False, verbose=False,
        multi_agent_return_reduction=lambda rews: rews[:, 0]))  # player_0's return
    return result, algorithm


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="classic")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--epoch-steps", type=int, default=2000)
    a = p.parse_args()
    result, _ = train(a.variant, a.epochs, a.epoch_steps)
    print(f"best mean return of player_0 against random: {result.best_reward:.3f}")


if __name__ == "__main__":
    main()
