"""PettingZoo's standard AEC wrappers, subclassed only to read the hot attributes directly.

PettingZoo's ``BaseWrapper.__getattr__`` resolves them through every wrapper layer on each
access, which costs more than the game itself; behaviour is otherwise PettingZoo's own.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


class _Forward:
    """Direct forwarding of the attributes read every step.

    PettingZoo's ``BaseWrapper.__getattr__`` resolves them through every wrapper layer on
    each access, which costs more than the game itself; these properties read the bare env
    directly. Behaviour is otherwise the wrapper's own.
    """

    _raw: Any  # the bare uno_env.aec.raw_env (not imported: aec.py imports this module)

    @property
    def agent_selection(self) -> Any:
        return self._raw.agent_selection

    @property
    def agents(self) -> Any:
        return self._raw.agents

    @property
    def rewards(self) -> Any:
        return self._raw.rewards

    @property
    def terminations(self) -> Any:
        return self._raw.terminations

    @property
    def truncations(self) -> Any:
        return self._raw.truncations

    @property
    def infos(self) -> Any:
        return self._raw.infos

    @property
    def _cumulative_rewards(self) -> Any:
        return self._raw._cumulative_rewards

    @property
    def possible_agents(self) -> Any:
        return self._raw.possible_agents


class TerminateIllegalWrapper(_Forward, wrappers.TerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper; legal moves take a short path, illegal ones are
    handed to PettingZoo's own code (the offender gets ``illegal_reward``, the game ends)."""

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        self._raw = env.unwrapped
        super().__init__(env, illegal_reward)

    def observe(self, agent: str) -> Any:
        obs = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = obs
            info = raw.infos.get(agent)
            self._prev_info = {} if info is None else info
        return obs

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if self._prev_obs is None:
            self.observe(agent)
        obs = self._prev_obs
        mask = obs["action_mask"] if isinstance(obs, dict) else self._prev_info["action_mask"]
        dead = raw.terminations[agent] or raw.truncations[agent]
        if not dead and not self._terminated and mask[action]:
            self._prev_obs = None
            self._prev_info = None
            self.env.step(action)
        else:
            ended = self._terminated
            super().step(action)
            if self._terminated and not ended:
                raw.end_by_illegal_move()


class AssertOutOfBoundsWrapper(_Forward, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper; plain in-range ints skip the space lookup."""

    def __init__(self, env: AECEnv) -> None:
        self._raw = env.unwrapped
        super().__init__(env)
        self._n = self._raw.game.num_actions

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._n:
            self.env.step(action)
        else:
            super().step(action)


class OrderEnforcingWrapper(_Forward, wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper (same errors before reset), fast attribute access."""

    def __init__(self, env: AECEnv) -> None:
        self._raw = env.unwrapped
        super().__init__(env)

    def _checked(self, name: str) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    agent_selection = property(lambda self: self._checked("agent_selection"))
    agents = property(lambda self: self._checked("agents"))
    rewards = property(lambda self: self._checked("rewards"))
    terminations = property(lambda self: self._checked("terminations"))
    truncations = property(lambda self: self._checked("truncations"))
    infos = property(lambda self: self._checked("infos"))

    def step(self, action: Any) -> None:
        if self._has_reset and self._raw.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def observe(self, agent: str) -> Any:
        if self._has_reset:
            return self.env.observe(agent)
        return super().observe(agent)

    def last(self, observe: bool = True) -> Any:
        """AECEnv.last reading the bare env's dicts directly (the same values)."""
        if not self._has_reset:
            return super().last(observe)  # PettingZoo's error before reset
        raw = self._raw
        agent = raw.agent_selection
        obs = self.observe(agent) if observe else None
        return (obs, raw._cumulative_rewards[agent], raw.terminations[agent],
                raw.truncations[agent], raw.infos[agent])
