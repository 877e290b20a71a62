"""One play loop: observe, act, step over an AEC env until the game ends.

Every caller that plays whole games with agents (the CLI's ``simulate``, evaluation, the
demo) uses :func:`play_episode`, so the loop, its stopping rule and its illegal-action check
are written once. It knows agents only through the ``agents/base.py`` protocol (an object
with ``act(observation, action_mask)``, or a plain callable with that signature), so it sits
in ``uno_env`` below ``agents``, ``training`` and ``tournament``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env.rules import IllegalActionError

Act = Callable[[np.ndarray, np.ndarray], Any]
OnStep = Callable[[str, int], None]


@dataclass
class Episode:
    """What one :func:`play_episode` call played (a game, or the part of it up to a stop)."""

    steps: int
    truncated: bool
    over: bool
    rewards: dict[str, float]
    winners: list[int]
    actions: list[int] = field(default_factory=list)


def _policies(env: Any, agents: Sequence[Any] | Mapping[str, Any]) -> dict[str, Act]:
    names = list(env.possible_agents)
    if isinstance(agents, Mapping):
        unknown = sorted(set(agents) - set(names))
        if unknown:
            raise ValueError(f"agents names {unknown} are not seats of this env; allowed: {names}")
        pairs = [(n, agents[n]) for n in names if n in agents]
    else:
        if len(agents) != len(names):
            raise ValueError(f"got {len(agents)} agents for {len(names)} seats; give one per "
                             f"seat (in seat order) or a mapping from seat name to agent")
        pairs = list(zip(names, agents, strict=True))
    out: dict[str, Act] = {}
    for name, ag in pairs:
        act = getattr(ag, "act", None)
        if callable(act):
            out[name] = act
        elif callable(ag):
            out[name] = ag
        else:
            raise TypeError(f"agent for {name} is {ag!r}: it needs an act(observation, "
                            f"action_mask) method or to be such a callable")
    return out


def play_episode(env: Any, agents: Sequence[Any] | Mapping[str, Any], *,
                 max_steps: int | None = None, on_step: OnStep | None = None,
                 record_actions: bool = False) -> Episode:
    """Play ``env`` (a raw_env with ``obs_type="dict"``, already reset) until it ends.

    ``agents``: one per seat in seat order, or a mapping ``{"player_i": agent}``; a seat
    whose name the mapping lacks stops the loop when it must decide (``over`` is then False).
    ``max_steps``: decisions this call makes at most (the env's own ``max_steps`` truncates
    the game; this one only pauses the loop). ``on_step(name, action)`` runs before each step.
    An agent returning an action its mask forbids raises ``IllegalActionError`` (a
    ValueError) before the step, so the game is left as it was.
    """
    if max_steps is not None and max_steps < 0:
        raise ValueError(f"max_steps={max_steps!r} is not valid; allowed: None or an int >= 0")
    policies = _policies(env, agents)
    mapping = env.agent_name_mapping
    terms, truncs = env.terminations, env.truncations
    totals = {name: 0.0 for name in env.possible_agents}
    rewards = env.rewards
    actions: list[int] = []
    steps = 0
    while max_steps is None or steps < max_steps:
        sel = env.agent_selection
        if terms[sel] or truncs[sel]:
            break
        act = policies.get(sel)
        if act is None:
            break
        ob = env.observe(sel)
        mask = ob["action_mask"]
        action = act(ob["observation"], mask)
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool) \
                or not 0 <= action < len(mask) or not mask[action]:
            raise IllegalActionError(
                f"agent for {sel} (seat {mapping[sel]}) chose {action!r}, which its action "
                f"mask forbids; allowed: {np.flatnonzero(mask).tolist()}")
        action = int(action)
        if on_step is not None:
            on_step(sel, action)
        env.step(action)
        steps += 1
        if record_actions:
            actions.append(action)
        for name, r in rewards.items():
            if r:
                totals[name] += r
        terms, truncs = env.terminations, env.truncations
    g = env.engine
    return Episode(steps=steps, truncated=any(truncs.values()), over=g.is_over,
                   rewards=totals, winners=list(g.winners()) if g.is_over else [],
                   actions=actions)
