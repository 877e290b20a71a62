"""The policy/value network of the self-play learner and its checkpoint format (here, in
``agents``, because playing a checkpoint needs it; ``training`` builds on it).

One MLP reads the flat observation (scaled piece by piece, see :func:`observation_scale`)
and gives a logit per action plus a value. Illegal actions are masked by setting their logits
to a large negative number, so softmax and argmax never pick them.

A *policy file* (``agents/checkpoints/<variant>_<n>p.pt``, ``final.pt`` of a run) holds only
what acting needs: the configuration it was trained for, the layer sizes and the weights, all
as plain tensors and built-in types so that ``torch.load(weights_only=True)`` reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env import Game, ObservationLayout

FORMAT = "uno-env-ppo"
FORMAT_VERSION = 1
MASKED_LOGIT = -1e9  # an illegal action's logit: exp() of it is exactly 0 in float32


def observation_scale(layout: ObservationLayout, cap: float = 10.0) -> np.ndarray:
    """Per-feature multipliers that bring every piece to roughly [0, 1].

    Counts bounded by a small ``high`` (face counts, one-hots) are divided by it; counts with a
    large bound (draw pile, hand sizes: up to the deck size) by ``cap`` instead, so that the
    differences that matter (1 card vs 7) stay visible; unbounded match scores by the
    target score.
    """
    high = layout.high.astype(np.float64)
    target = float(layout.game.target_score) or 1.0
    scale = np.where(np.isfinite(high), 1.0 / np.clip(np.minimum(high, cap), 1.0, None),
                     1.0 / target)
    return scale.astype(np.float32)


class PolicyNet(nn.Module):
    """MLP trunk (ReLU) with a policy head (one logit per action) and a value head.

    With ``critic_extra > 0`` the value comes from a separate MLP that reads the observation
    plus ``critic_extra`` privileged features (the other players' hands, during training
    only: an asymmetric actor-critic). The policy never reads them.
    """

    obs_scale: torch.Tensor
    extra_scale: torch.Tensor

    def __init__(self, obs_dim: int, num_actions: int, hidden: Sequence[int] = (256, 256),
                 obs_scale: np.ndarray | None = None, critic_extra: int = 0,
                 extra_scale: float = 1.0) -> None:
        super().__init__()
        self.obs_dim = int(obs_dim)
        self.num_actions = int(num_actions)
        self.hidden = [int(h) for h in hidden]
        self.critic_extra = int(critic_extra)
        scale = np.ones(obs_dim, np.float32) if obs_scale is None else obs_scale
        if scale.shape != (obs_dim,):
            raise ValueError(f"obs_scale must have shape ({obs_dim},), got {scale.shape}")
        self.register_buffer("obs_scale", torch.as_tensor(scale, dtype=torch.float32).clone())
        layers: list[nn.Module] = []
        width = obs_dim
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(width, num_actions)
        self.value_head = nn.Linear(width, 1)
        self.register_buffer("extra_scale", torch.tensor(float(extra_scale)))
        self.value_trunk: nn.Sequential | None = None
        if self.critic_extra:
            layers = []
            width = obs_dim + self.critic_extra
            for h in self.hidden:
                layers += [nn.Linear(width, h), nn.ReLU()]
                width = h
            self.value_trunk = nn.Sequential(*layers)
        for trunk in (self.trunk, self.value_trunk or ()):
            for m in trunk:
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, gain=float(np.sqrt(2.0)))
                    nn.init.zeros_(m.bias)
        # Small policy weights: the first policy is near-uniform over the legal actions.
        nn.init.orthogonal_(self.policy_head.weight, gain=0.01)
        nn.init.zeros_(self.policy_head.bias)
        nn.init.orthogonal_(self.value_head.weight, gain=1.0)
        nn.init.zeros_(self.value_head.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor, extra: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits ``(B, A)`` and values ``(B,)``; ``mask`` is bool or 0/1; ``extra``
        the privileged critic features (zeros when not given: the value is then not
        meaningful, the logits are unaffected)."""
        x = obs * self.obs_scale
        h = self.trunk(x)
        logits = self.policy_head(h)
        logits = logits.masked_fill(~mask.bool(), MASKED_LOGIT)
        if self.value_trunk is None:
            return logits, self.value_head(h).squeeze(-1)
        if extra is None:
            extra = obs.new_zeros(obs.shape[0], self.critic_extra)
        v = self.value_trunk(torch.cat([x, extra * self.extra_scale], dim=-1))
        return logits, self.value_head(v).squeeze(-1)


def config_key(variant: str, num_players: int, options: dict[str, Any]) -> dict[str, Any]:
    """What a policy file records about the game it plays (checked when loading)."""
    game = Game(variant, num_players, **options)
    layout = ObservationLayout(game)
    return {
        "variant": game.variant.name,
        "num_players": num_players,
        "options": dict(game.options),
        "obs_dim": layout.size,
        "num_actions": game.num_actions,
        "action_meanings": list(game.actions.meanings),
    }


def policy_payload(net: PolicyNet, key: dict[str, Any], extra: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
    """The policy-file dict for ``net`` (weights copied, detached from training)."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        **key,
        "hidden": list(net.hidden),
        "critic_extra": net.critic_extra,
        "model": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "info": dict(extra or {}),
    }


def save_policy(path: str | Path, net: PolicyNet, key: dict[str, Any],
                extra: dict[str, Any] | None = None) -> Path:
    """Write a small policy file (weights only, no optimiser state)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    torch.save(policy_payload(net, key, extra), tmp)
    tmp.replace(p)
    return p


def net_from_payload(payload: dict[str, Any]) -> PolicyNet:
    """Build the network a policy-file dict describes."""
    if payload.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} policy file (format={payload.get('format')!r})")
    if payload.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{FORMAT} format version {payload.get('format_version')!r} is not "
                         f"supported; this code reads version {FORMAT_VERSION}")
    net = PolicyNet(payload["obs_dim"], payload["num_actions"], payload["hidden"],
                    critic_extra=int(payload.get("critic_extra", 0)))
    net.load_state_dict(payload["model"])
    net.eval()
    return net


def load_policy(path: str | Path) -> tuple[PolicyNet, dict[str, Any]]:
    """Read a policy file (or a full training checkpoint, which embeds one under ``policy``).

    Returns the network (in eval mode) and the file's dict.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no PPO checkpoint at {str(p)!r}")
    payload = torch.load(p, map_location="cpu", weights_only=True)
    if isinstance(payload, dict) and "policy" in payload and "format" not in payload:
        payload = payload["policy"]
    if not isinstance(payload, dict):
        raise ValueError(f"{str(p)!r} is not a {FORMAT} policy file")
    return net_from_payload(payload), payload
