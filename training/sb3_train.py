"""MaskablePPO (sb3-contrib) on the single-agent wrapper, from a YAML config.

One learning seat plays against opponents drawn from a pool (``random``, ``rule``, frozen
checkpoints as ``sb3:PATH`` / ``ppo:PATH``) in ``n_envs`` copies of
:class:`uno_env.training.single_agent.SingleAgentEnv`. The run writes, under ``output_dir``:
``model.zip`` (the final model; load it as the agent ``sb3:output_dir/model.zip``),
``checkpoints/model_<steps>_steps.zip``, ``tb/`` (TensorBoard logs) and ``config.yaml``
(the resolved config; keys and defaults in :class:`uno_env.training.config.SB3Config`).
``uno-env train classic_sb3`` runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from uno_env.training.config import SB3Config
from uno_env.training.single_agent import SingleAgentEnv

SCORE_SCALE = 500.0  # scale of the unbounded pieces (match scores)


class ScaledFlatten(BaseFeaturesExtractor):
    """Divides each observation entry by its bound (counts by the most copies of a face,
    hand sizes by the deck size, scores by 500), so that every input lies near [0, 1]. It
    is part of the saved policy: a loaded model scales its inputs the same way."""

    scale: torch.Tensor

    def __init__(self, observation_space: gymnasium.spaces.Box) -> None:
        super().__init__(observation_space, int(np.prod(observation_space.shape)))
        high = np.asarray(observation_space.high, dtype=np.float32).reshape(-1)
        scale = np.where(np.isfinite(high), high, SCORE_SCALE).clip(min=1.0)
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations.flatten(1) / self.scale


class ProgressBar(BaseCallback):
    """A tqdm bar over the learner's timesteps (SB3's own bar needs ``rich``)."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total
        self.bar: Any = None

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=self.total, unit="step", initial=0)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


def resolve_config(config: dict[str, Any]) -> dict[str, Any]:
    """The config (:class:`uno_env.training.config.SB3Config`: defaults, types, unknown keys
    refused) as a plain dict."""
    return SB3Config.from_dict(config).to_dict()


def make_env(cfg: dict[str, Any], rank: int) -> gymnasium.Env:
    env = SingleAgentEnv(cfg["variant"], cfg["num_players"], opponents=cfg["opponents"],
                         reward=cfg["reward"], max_steps=cfg["max_steps"], **cfg["options"])
    env.reset(seed=int(cfg["seed"]) * 1000 + rank)
    return Monitor(env)


def make_vec_env(cfg: dict[str, Any]) -> VecEnv:
    fns: list[Callable[[], gymnasium.Env]] = [
        partial(make_env, cfg, rank) for rank in range(int(cfg["n_envs"]))]
    if cfg["vec_env"] == "subproc":
        return SubprocVecEnv(fns)
    return DummyVecEnv(fns)


def build_model(cfg: dict[str, Any], venv: VecEnv) -> MaskablePPO:
    ppo = dict(cfg["ppo"])
    net_arch = ppo.pop("net_arch")
    lr = float(ppo.pop("learning_rate"))
    schedule: Any = lr
    if cfg["lr_schedule"] == "linear":
        def schedule(progress_remaining: float) -> float:
            return lr * progress_remaining
    out = Path(cfg["output_dir"])
    return MaskablePPO(
        "MlpPolicy", venv, learning_rate=schedule, seed=int(cfg["seed"]),
        tensorboard_log=str(out / "tb"), device=cfg["device"], verbose=int(cfg["verbose"]),
        policy_kwargs={"net_arch": list(net_arch), "features_extractor_class": ScaledFlatten},
        **ppo,
    )


def train(config: dict[str, Any]) -> Path:
    """Train as ``config`` says; returns the path of the final ``model.zip``."""
    return train_model(config)[1]


def train_model(config: dict[str, Any]) -> tuple[MaskablePPO, Path]:
    """:func:`train`, also returning the trained model."""
    cfg = resolve_config(config)
    if cfg["torch_threads"]:
        torch.set_num_threads(int(cfg["torch_threads"]))
    out = Path(cfg["output_dir"])
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    venv = make_vec_env(cfg)
    try:
        if cfg["resume"]:
            model = MaskablePPO.load(cfg["resume"], env=venv, device=cfg["device"],
                                     tensorboard_log=str(out / "tb"))
        else:
            model = build_model(cfg, venv)
        total = int(cfg["total_timesteps"])
        callbacks: list[BaseCallback] = [CheckpointCallback(
            save_freq=max(int(cfg["checkpoint_every"]) // int(cfg["n_envs"]), 1),
            save_path=str(out / "checkpoints"), name_prefix="model")]
        if cfg["progress"]:  # SB3 runs whole rollouts: the last one may pass `total`
            per_rollout = int(model.n_steps) * int(cfg["n_envs"])
            callbacks.append(ProgressBar(-(-total // per_rollout) * per_rollout))
        model.learn(total_timesteps=total, callback=CallbackList(callbacks),
                    tb_log_name="maskable_ppo", reset_num_timesteps=not cfg["resume"])
        path = out / "model.zip"
        model.save(str(path))
    finally:
        venv.close()
    return model, path
