"""Stable-Baselines3 / sb3-contrib: MaskablePPO on the registered Gymnasium env.

One learning seat against opponents that move inside the env (``opponents=["random"]``,
``"rule"``, ``"ppo:classic"``, ...); the reward is exactly what the game paid the learner's
seat, losses included. MaskablePPO reads the mask through ``env.action_masks()``.

Usage: ``python examples/sb3_maskable_ppo.py [--variant flip] [--steps 50000]``
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks

import uno_env


def train(variant: str = "classic", steps: int = 20_000, seed: int = 0,
          n_steps: int = 512) -> MaskablePPO:
    env = gymnasium.make(uno_env.GYM_ID, variant=variant, num_players=2,
                         opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=64, seed=seed,
                        verbose=0)
    return model.learn(total_timesteps=steps)


def evaluate(model: MaskablePPO, variant: str = "classic", episodes: int = 50,
             seed: int = 1000, max_steps: int = uno_env.DEFAULT_MAX_STEPS) -> float:
    """Mean reward of the trained seat against random opponents (+1 win, -1 loss, 0 for a
    game cut at ``max_steps``)."""
    env = gymnasium.make(uno_env.GYM_ID, variant=variant, num_players=2,
                         opponents=["random"], max_steps=max_steps)
    total = 0.0
    for ep in range(episodes):
        obs, info = env.reset(seed=seed + ep)
        done = False
        while not done:
            masks = get_action_masks(env)
            assert np.array_equal(masks, info["action_mask"].astype(bool))
            action, _ = model.predict(obs, action_masks=masks, deterministic=True)
            obs, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            done = terminated or truncated
    return total / episodes


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="classic")
    p.add_argument("--steps", type=int, default=20_000)
    a = p.parse_args()
    model = train(a.variant, a.steps)
    print(f"mean reward against random: {evaluate(model, a.variant):+.3f}")


if __name__ == "__main__":
    main()
