"""UNO as an RLlib ``MultiAgentEnv`` (new API stack), ready for RLlib's action masking.

RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes``) reads a
dict observation with the keys ``"observations"`` and ``"action_mask"`` (a float mask: it
takes its logarithm); PettingZoo's key is ``"observation"``. This env renames it and follows
RLlib's turn-based convention: each step returns the observation of the agent to act next
only, and rewards for every agent the step paid (so a loser's -1 reaches it at once). At the
end every agent gets its final observation. An illegal action ends the episode with -1 for
the agent that made it (as :func:`uno_env.env` does) instead of raising, so RLlib's
pre-checks and random sampling never see an exception.

``env_config`` keys: ``variant``, ``num_players``, ``reward``, ``max_steps``, and any rule
option (``stacking=True``, ...). Usage::

    from ray.rllib.algorithms.ppo import PPOConfig
    from uno_env.integrations.rllib import RLlibUnoEnv

    config = PPOConfig().environment(RLlibUnoEnv, env_config={"variant": "flip"})
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from uno_env.aec import DEFAULT_MAX_STEPS, raw_env

ILLEGAL_REWARD = -1.0

Obs = dict[str, np.ndarray]
MultiAgentDict = dict[Any, Any]  # RLlib's own alias: keys are agent ids


class RLlibUnoEnv(MultiAgentEnv):
    """A turn-based ``MultiAgentEnv`` over :class:`uno_env.raw_env`; see the module doc."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        cfg = dict(config or {})
        variant = cfg.pop("variant", "classic")
        num_players = int(cfg.pop("num_players", 2))
        reward = cfg.pop("reward", "win_loss")
        max_steps = cfg.pop("max_steps", DEFAULT_MAX_STEPS)
        self.aec = raw_env(variant, num_players, reward=reward, max_steps=max_steps, **cfg)
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        n_act = self.aec.game.num_actions
        space = gymnasium.spaces.Dict({
            "observations": gymnasium.spaces.Box(0.0, self.aec.layout.high, dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0.0, 1.0, (n_act,), dtype=np.float32),
        })
        self.observation_spaces = {a: space for a in self.agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(n_act) for a in self.agents}
        self._over = True

    def _obs(self, agent: Any) -> Obs:
        ob = self.aec.observe(agent)
        assert isinstance(ob, dict)
        return {"observations": ob["observation"],
                "action_mask": ob["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[MultiAgentDict, MultiAgentDict]:
        self.aec.reset(seed=seed, options=options)
        self._over = False
        return {self.aec.agent_selection: self._obs(self.aec.agent_selection)}, {}

    def step(self, action_dict: MultiAgentDict) -> tuple[  # type: ignore[override]
            MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        aec = self.aec
        agent = aec.agent_selection
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        if agent not in action_dict:
            raise ValueError(f"{agent} is to act; got actions for {sorted(action_dict)}")
        action = int(action_dict[agent])
        legal = 0 <= action < aec.game.num_actions and aec.infos[agent]["action_mask"][action]
        if legal:
            aec.step(action)
            rewards = {a: float(r) for a, r in aec.rewards.items()}
            over = any(aec.terminations.values()) or any(aec.truncations.values())
            truncated = over and not any(aec.terminations.values())
        else:  # as env()'s TerminateIllegalWrapper: the offender loses, the game stops
            rewards = {a: ILLEGAL_REWARD if a == agent else 0.0 for a in aec.possible_agents}
            over, truncated = True, False
            aec.end_by_illegal_move()
        if over:
            self._over = True
            obs = {a: self._obs(a) for a in self.agents}
            infos: MultiAgentDict = {a: {"illegal_action": not legal} for a in self.agents}
        else:
            obs = {aec.agent_selection: self._obs(aec.agent_selection)}
            infos = {}
        return (obs, rewards, {"__all__": over and not truncated}, {"__all__": truncated},
                infos)

    def render(self) -> Any:
        return self.aec.render()
