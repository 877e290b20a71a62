"""Stable-Baselines3's ``VecEnv`` over the learner vector env (``uno_env.batch.learner``).

``MaskablePPO("MlpPolicy", uno_env.sb3_vec_env(variant=..., num_envs=..., opponents=[...]))``
trains unchanged: sb3-contrib's ``get_action_masks`` calls ``env_method("action_masks")``,
which returns every game's mask, and steps follow ``DummyVecEnv``'s conventions: a finished
game is reset in the same step, its last observation in ``infos[i]["terminal_observation"]``,
``infos[i]["TimeLimit.truncated"]`` set when ``max_steps`` cut it, and ``reset_infos[i]`` the
new episode's info. Wrap it in ``VecMonitor`` for episode statistics. Needs
``stable-baselines3``. See docs/vector-interfaces.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from uno_env.batch.learner import LearnerVectorEnv

ENV_METHODS = ("action_masks",)  # what env_method serves (there are no sub-env objects)


class UnoVecEnv(VecEnv):
    """``num_envs`` UNO-v1 games stepped by one compiled call (see the module docstring)."""

    def __init__(self, venv: LearnerVectorEnv) -> None:
        if not venv.autoreset:
            raise ValueError("SB3 VecEnvs reset finished games themselves: give a "
                             "LearnerVectorEnv with autoreset=True")
        super().__init__(venv.num_envs, venv.single_observation_space,
                         venv.single_action_space)
        self.venv = venv
        self._actions: np.ndarray | None = None

    def reset(self) -> VecEnvObs:
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        if any(self._options):
            raise ValueError(f"reset options are not supported, got {self._options!r}")
        obs, info = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{"seat": int(s)} for s in info["seat"]]
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        venv = self.venv
        finished = venv.step_buffers(self._actions)
        self._actions = None
        dones = venv.dones.copy()
        infos: list[dict[str, Any]] = [{"TimeLimit.truncated": False}
                                       for _ in range(self.num_envs)]
        if finished:
            term, trunc, seat = venv.terminations, venv.truncations, venv.seats
            for i in np.flatnonzero(dones).tolist():
                infos[i] = {"TimeLimit.truncated": bool(trunc[i] and not term[i]),
                            "terminal_observation": venv.final_obs[i].copy()}
                self.reset_infos[i] = {"seat": int(seat[i])}
        return venv.obs.copy(), venv.rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    # --- the per-env calls of VecEnv, served by the batch -----------------------------------
    def _rows(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        if method_name not in ENV_METHODS:
            raise AttributeError(f"env_method({method_name!r}): the UNO vector env serves "
                                 f"{', '.join(ENV_METHODS)} only")
        masks = self.venv.action_masks()
        return [masks[i] for i in self._rows(indices)]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name in ENV_METHODS:
            return [getattr(self.venv, attr_name)] * len(self._rows(indices))
        if attr_name == "render_mode":
            return [None] * len(self._rows(indices))
        value = getattr(self.venv, attr_name)  # a setting shared by every game
        return [value] * len(self._rows(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"set_attr({attr_name!r}): the games of a UNO vector env share "
                             "one configuration; build a new env to change it")

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper],
                       indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._rows(indices))  # no per-game gymnasium.Env to wrap

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs


def sb3_vec_env(variant: str = "classic", num_players: int = 2, num_envs: int = 8,
                opponents: Sequence[str] = ("random",), **kwargs: Any) -> UnoVecEnv:
    """An SB3 ``VecEnv`` of ``num_envs`` UNO-v1 games; ``kwargs`` are UNO-v1's
    (``learner_seat``, ``reward``, ``max_steps``, ``illegal_action``, rule options)."""
    return UnoVecEnv(LearnerVectorEnv(num_envs, variant=variant, num_players=num_players,
                                      opponents=opponents, copy=False, **kwargs))
