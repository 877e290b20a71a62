"""PettingZoo's SB3 action-masking tutorial (MaskablePPO self-play), with the loser's reward.

The tutorial (pettingzoo.farama.org/tutorials/sb3/connect_four) wraps the AEC env as one
Gymnasium env in which both seats take turns and ``step`` returns the reward of the agent
that just acted. In a turn-based game the loser's -1 is paid during the winner's move, so it
never reaches the learner: the model only ever sees wins. ``SB3ActionMaskWrapper`` below is
the tutorial's wrapper with one change: when a game ends, every agent that did not make the
final move gets one last step of its own (its final observation, only action 0 allowed, the
action ignored) that returns its final reward and ends the episode.

The tutorial chains both seats' steps into one trajectory, so PPO's advantages still mix the
seats' rewards; :mod:`examples.sb3_maskable_ppo` (``gymnasium.make("uno_env/UNO-v1")``) gives
one seat's own trajectory instead.

Usage: ``python examples/sb3_pettingzoo_tutorial.py [--steps 20000]``
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium
import numpy as np
import pettingzoo.utils
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

import uno_env


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """The tutorial's wrapper (observation without the mask, ``action_mask()``), plus the
    final step of each agent that did not end the game."""

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])[
            "observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        self._owed: list[tuple[str, float]] = []  # (agent, final reward) still to hand out
        return self.observe(self.agent_selection), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._owed:  # the game is over: one agent's final step
            agent, reward = self._owed.pop(0)
            nxt = self._owed[0][0] if self._owed else agent
            return self.observe(nxt), reward, not self._owed, False, {}
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        reward = self._cumulative_rewards[current_agent]
        terminated = self.terminations[current_agent]
        truncated = self.truncations[current_agent]
        if terminated:
            # the fix: the others' rewards of the last move, each on a step of their own
            self._owed = [(a, float(self.rewards[a])) for a in self._seat_order(current_agent)]
            return self.observe(self._owed[0][0]), reward, False, False, {}
        return (self.observe(next_agent), reward, terminated, truncated,
                self.infos[current_agent])

    def _seat_order(self, agent: str) -> list[str]:
        seats = self.possible_agents
        i = seats.index(agent)
        return [seats[(i + k) % len(seats)] for k in range(1, len(seats))]

    def observe(self, agent: str) -> np.ndarray:
        return super().observe(agent)["observation"]  # type: ignore[no-any-return]

    def action_mask(self) -> np.ndarray:
        if self._owed:
            mask = np.zeros(self.action_space.n, dtype=bool)
            mask[0] = True  # the final step's one (ignored) action
            return mask
        return super().observe(self.agent_selection)["action_mask"].astype(bool)


def mask_fn(env: SB3ActionMaskWrapper) -> np.ndarray:
    return env.action_mask()


def make_env(variant: str = "classic", **kwargs: Any) -> ActionMasker:
    env = SB3ActionMaskWrapper(uno_env.env(variant, 2, **kwargs))
    env.reset(seed=0)
    return ActionMasker(env, mask_fn)


def train(variant: str = "classic", steps: int = 20_000, seed: int = 0,
          n_steps: int = 512) -> MaskablePPO:
    model = MaskablePPO("MlpPolicy", make_env(variant, max_steps=2000), n_steps=n_steps,
                        batch_size=64, seed=seed, verbose=0)
    return model.learn(total_timesteps=steps)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="classic")
    p.add_argument("--steps", type=int, default=20_000)
    a = p.parse_args()
    train(a.variant, a.steps)
    print("trained; evaluate the model with examples/sb3_maskable_ppo.py's evaluate()")


if __name__ == "__main__":
    main()
