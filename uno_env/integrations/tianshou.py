"""Tianshou's ``PettingZooEnv`` with every agent's final reward on a transition of its own.

Tianshou stores each transition with the reward vector of the step in which it was made,
and its multi-agent manager gives an agent the rewards of its own transitions only (the rows
whose ``obs.agent_id`` is that agent). In a turn-based game the loser's -1 is paid during the
winner's move, so it lands on the winner's transition and the loser's learner never sees a
loss. :class:`CreditedPettingZooEnv` gives every agent that did not make the final move one
last transition of its own (its final observation, only action 0 allowed, the action
ignored) carrying its final reward; the last of them ends the episode. Rewards paid in the
middle of a game (``reward="points"`` matches) still come with the step that paid them.
Needs ``tianshou``.
"""

from __future__ import annotations

from typing import Any

from tianshou.env.pettingzoo_env import PettingZooEnv


class CreditedPettingZooEnv(PettingZooEnv):
    """``CreditedPettingZooEnv(uno_env.env(...))``, used as Tianshou's ``PettingZooEnv``."""

    def reset(self, *args: Any, **kwargs: Any) -> tuple[dict, dict]:
        self._owed: list[str] = []  # agents still to receive their final transition
        self._final: dict[str, float] = {}
        self._terminated = True
        return super().reset(*args, **kwargs)

    def _final_obs(self, agent: str) -> dict[str, Any]:
        ob = self.env.observe(agent)
        mask = [False] * int(self.action_space.n)
        mask[0] = True  # one dummy action, ignored
        return {"agent_id": agent, "obs": ob["observation"], "mask": mask}

    def step(self, action: Any) -> tuple[dict, list[float], bool, bool, dict]:  # type: ignore[override]
        rew = [0.0] * len(self.agents)
        if self._owed:  # the game is over: the next agent's final transition
            agent = self._owed.pop(0)
            rew[self.agent_idx[agent]] = self._final[agent]
            done = not self._owed
            obs = self._final_obs(self._owed[0] if self._owed else agent)
            return obs, rew, done and self._terminated, done and not self._terminated, {}
        actor = self.env.agent_selection
        obs, rewards, term, trunc, info = super().step(action)
        if (term or trunc) and len(self.agents) > 1:
            self._final = {a: float(self.env.rewards.get(a, 0.0)) for a in self.agents}
            self._terminated = bool(term)
            start = self.agents.index(actor)
            self._owed = [self.agents[(start + k) % len(self.agents)]
                          for k in range(1, len(self.agents))]
            rew[self.agent_idx[actor]] = self._final[actor]
            return self._final_obs(self._owed[0]), rew, False, False, info
        return obs, [float(r) for r in rewards], term, trunc, info
