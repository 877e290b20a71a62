"""An agent backed by a MaskablePPO model saved by ``uno_env.training.sb3_train``
(spec ``sb3:PATH``).

It acts deterministically: the most probable action among those the mask allows (what
``MaskablePPO.predict(..., deterministic=True)`` returns).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import numpy as np

from uno_env import Game, ObservationLayout
from uno_env.observation import HISTORY_PIECES


class SB3Agent:
    """Loads ``path`` (a ``model.zip``) for one configuration and checks that the model's
    observation and action sizes are this configuration's."""

    def __init__(self, path: str | Path, variant: str = "classic", num_players: int = 2,
                 seed: int | None = None, device: str = "cpu", **options: Any) -> None:
        p = Path(path)
        if not p.exists() and p.with_suffix(".zip").exists():
            p = p.with_suffix(".zip")
        if not p.is_file():
            raise ValueError(f"sb3 model {str(path)!r} not found (expected a model.zip written "
                             "by uno_env.training.sb3_train)")
        import torch
        from sb3_contrib import MaskablePPO

        self.path = p
        self.name = f"sb3:{p}"
        self.model = MaskablePPO.load(str(p), device=device)
        self._policy = self.model.policy
        self._policy.set_training_mode(False)
        self._torch = torch
        game = Game(variant, num_players, **options)

        layout = ObservationLayout(game)
        obs_size = layout.size
        got_obs = int(np.prod(self.model.observation_space.shape or ()))
        got_act = int(getattr(self.model.action_space, "n", -1))
        if (got_obs, got_act) != (obs_size, game.num_actions):
            old = obs_size - sum(layout.by_name[x].size for x in HISTORY_PIECES)
            raise ValueError(
                f"sb3 model {str(p)!r} has observations of {got_obs} and {got_act} actions; "
                f"{variant} with {num_players} players and options {options or {}} has "
                f"{obs_size} and {game.num_actions}: it was trained on another configuration, "
                f"or before the observation's pieces {list(HISTORY_PIECES)} were added (this "
                f"configuration's observation had {old} floats then; retrain it)")

    def seed(self, seed: int | None) -> None:
        """Deterministic: nothing to seed."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        # MaskablePPO.predict(deterministic=True) is the argmax of the masked action
        # distribution; computing the actor's logits directly gives the same action at a
        # fifth of the cost (the save/reload test checks they agree).
        policy = self._policy
        with self._torch.no_grad():
            obs = self._torch.as_tensor(observation, dtype=self._torch.float32,
                                        device=policy.device).reshape(1, -1)
            features = cast(Any, policy.extract_features(obs, policy.pi_features_extractor))
            logits = policy.action_net(policy.mlp_extractor.forward_actor(features))[0]
        masked = np.where(action_mask.astype(bool), logits.cpu().numpy(), -np.inf)
        return int(masked.argmax())

    def reset(self) -> None:
        pass
