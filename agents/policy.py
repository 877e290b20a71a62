"""The policy/value network of the self-play learner and its checkpoint format (here, in
``agents``, because playing a checkpoint needs it; ``training`` builds on it).

One MLP reads the flat observation (scaled piece by piece, see :func:`observation_scale`)
and gives a logit per action plus a value. Illegal actions are masked by setting their logits
to a large negative number, so softmax and argmax never pick them.

A *policy file* (``agents/checkpoints/<variant>_<n>p.pt``, ``final.pt`` of a run) holds only
what acting needs: the configuration it was trained for, the layer sizes and the weights, all
as plain tensors and built-in types so that ``torch.load(weights_only=True)`` reads it.
It names the observation pieces its network reads (``pieces``), so a file stays playable when
pieces are added to the observation: the network picks its inputs out of the longer vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env import Game, ObservationLayout
from uno_env.observation import HISTORY_PIECES

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
                 extra_scale: float = 1.0, obs_index: np.ndarray | None = None) -> None:
        super().__init__()
        # the observation positions this network reads (None: the whole vector, in order);
        # not saved with the weights: it follows from the file's `pieces` (input_index)
        self.obs_index: torch.Tensor | None
        if obs_index is None:
            self.obs_index = None
        else:
            if len(obs_index) != obs_dim:
                raise ValueError(f"obs_index has {len(obs_index)} positions, obs_dim is "
                                 f"{obs_dim}")
            self.register_buffer("obs_index", torch.as_tensor(obs_index, dtype=torch.long),
                                 persistent=False)
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
        if self.obs_index is not None:
            obs = obs.index_select(-1, self.obs_index)
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
        "env_version": game.variant.version,  # uno_<variant>_v<N>: agents.load refuses another
        "num_players": num_players,
        "options": dict(game.options),
        "obs_dim": layout.size,
        "pieces": [p.name for p in layout.pieces],
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
                    critic_extra=int(payload.get("critic_extra", 0)),
                    obs_index=input_index(payload))
    net.load_state_dict(payload["model"])
    net.eval()
    return net


def _layout_of(payload: dict[str, Any]) -> ObservationLayout:
    return ObservationLayout(Game(payload["variant"], int(payload["num_players"])))


def policy_pieces(payload: dict[str, Any], layout: ObservationLayout | None = None
                  ) -> list[str]:
    """The observation pieces a policy file's network reads, in order (a file from before
    ``pieces`` were recorded reads every piece but :data:`HISTORY_PIECES`)."""
    if "pieces" in payload:
        return [str(x) for x in payload["pieces"]]
    if layout is None:
        layout = _layout_of(payload)
    return [p.name for p in layout.pieces if p.name not in HISTORY_PIECES]


def input_index(payload: dict[str, Any], layout: ObservationLayout | None = None
                ) -> np.ndarray | None:
    """Where a policy file's inputs sit in today's observation vector of its game (None:
    the whole vector, in order). Piece sizes follow from the variant and the player count
    only, so any table of that game has the same positions."""
    if layout is None:
        layout = _layout_of(payload)
    names = policy_pieces(payload, layout)
    missing = [x for x in names if x not in layout.by_name]
    if missing:
        raise ValueError(f"the policy file reads observation pieces {missing} that "
                         f"{payload['variant']} with {payload['num_players']} players does "
                         f"not have (it has {[p.name for p in layout.pieces]})")
    spans = [layout.by_name[x] for x in names]
    index = np.concatenate([np.arange(p.start, p.stop) for p in spans])
    if len(index) != int(payload["obs_dim"]):
        raise ValueError(f"the policy file's network reads {payload['obs_dim']} inputs, but "
                         f"its pieces {names} make {len(index)}")
    if len(index) == layout.size and np.array_equal(index, np.arange(layout.size)):
        return None
    return index


def widen_inputs(model: dict[str, torch.Tensor], index: np.ndarray, net: PolicyNet
                 ) -> dict[str, torch.Tensor]:
    """The weights of a network that read the observation positions ``index``, for ``net``,
    which reads the whole vector: zero weights from the positions it did not read, so the
    widened network computes the same function until training changes them."""
    out = dict(model)
    idx = torch.as_tensor(index, dtype=torch.long)
    k = len(index)
    mine = net.state_dict()
    for name in ("trunk.0.weight", "value_trunk.0.weight"):
        if name not in model:
            continue
        old, new = model[name], torch.zeros_like(mine[name])
        new[:, idx] = old[:, :k]
        new[:, net.obs_dim:] = old[:, k:]  # a privileged critic's extra features
        out[name] = new
    scale = mine["obs_scale"].clone()
    scale[idx] = model["obs_scale"]
    out["obs_scale"] = scale
    return out


def privileged_critic(model: dict[str, torch.Tensor], net: PolicyNet
                      ) -> dict[str, torch.Tensor]:
    """The weights of a shared-trunk network (``critic: obs``) for ``net``, which has a
    privileged critic: the value MLP starts as a copy of the trunk with zero weights from the
    other hands, so the network's values and logits are the file's until training teaches
    the critic to read the hands (fine-tuning a trained agent with ``critic: state``)."""
    if net.value_trunk is None:
        raise ValueError("privileged_critic needs a network with critic_extra > 0")
    out = dict(model)
    out.update({"value_" + k: v.clone() for k, v in model.items() if k.startswith("trunk.")})
    first = model["trunk.0.weight"]
    out["value_trunk.0.weight"] = torch.cat(
        [first, first.new_zeros(first.shape[0], net.critic_extra)], dim=1)
    return out


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
