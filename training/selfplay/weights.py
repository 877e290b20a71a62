"""Which saved weights a self-play run may start from, and how they are fitted to its network:
a resumed checkpoint must match the run exactly; an ``init`` policy may have read fewer
observation pieces (``widen_inputs``) or had a shared-trunk critic where the run has a
privileged one (``privileged_critic``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from uno_env import ObservationLayout
from uno_env.agents.policy import (
    PolicyNet,
    input_index,
    policy_pieces,
    privileged_critic,
    widen_inputs,
)

GAME_KEYS = ("variant", "num_players", "num_actions", "action_meanings")


def fitted_weights(pol: dict[str, Any], path: str | Path, key: dict[str, Any],
                   layout: ObservationLayout, net: PolicyNet, critic: str, widen: bool
                   ) -> dict[str, torch.Tensor]:
    """The weights of policy dict ``pol`` (read from ``path``) for ``net``, whose game and
    pieces ``key`` describes; refuse those made for another game, network shape or critic
    (``critic`` is the run's setting, named in the error). ``widen``: the init fits above."""
    for k in GAME_KEYS:
        if pol[k] != key[k]:
            raise ValueError(f"checkpoint {str(path)!r} is for another game ({k}: "
                             f"{pol[k]!r} vs {key[k]!r})")
    if list(pol["hidden"]) != net.hidden:
        raise ValueError(f"checkpoint {str(path)!r} has hidden={pol['hidden']}, the "
                         f"config asks for {net.hidden}")
    theirs = int(pol.get("critic_extra", 0))
    # init may move a shared-trunk critic to a privileged one (not back: that would drop
    # what the value learned from the hands)
    to_state = widen and theirs == 0 and net.critic_extra > 0
    if theirs != net.critic_extra and not to_state:
        raise ValueError(f"checkpoint {str(path)!r} was trained with another critic than "
                         f"critic={critic!r}")
    model: dict[str, torch.Tensor] = pol["model"]
    pieces = policy_pieces(pol, layout)
    if pieces != key["pieces"]:
        if not widen:
            raise ValueError(f"checkpoint {str(path)!r} reads the observation pieces "
                             f"{pieces}; this run's network reads {key['pieces']}")
        index = input_index(pol, layout)
        assert index is not None  # fewer pieces than the whole observation
        model = widen_inputs(model, index, net)
    if to_state:
        model = privileged_critic(model, net)
    return model
