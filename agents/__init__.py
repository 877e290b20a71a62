"""Agents that play UNO in the ``uno_env`` environments (random, heuristic, learned).

Every agent follows one protocol (:class:`Agent`): ``act(observation, action_mask) -> int``
on the flat observation vector and the action mask of its seat, and ``reset()`` between
games. :func:`load` builds one from a short spec string:

========================  ===========================================================
``random``                uniform over the legal actions (:class:`RandomAgent`)
``rule``                  the documented heuristic of :mod:`uno_env.agents.rule`
``ppo:PATH``              a checkpoint of the native PyTorch self-play trainer
``ppo:VARIANT``           the checkpoint shipped for that variant (e.g. ``ppo:classic``)
``sb3:PATH``              a MaskablePPO model saved by ``uno_env.training.sb3_train``
``ismcts[:k=v;...]``      information-set MCTS (:mod:`uno_env.agents.ismcts`); keys ``simulations``,
                          ``time_per_move`` (seconds), ``prior`` (``rule``, ``ppo:classic``,
                          a path), ``rollouts`` (per leaf), ``leaf`` (``rollout`` /
                          ``value``), ``c``, ``infer`` (``false``: no inference from draws),
                          ``draws`` (``forced``: read every draw as made with nothing
                          playable, a model of the opponent), ``search`` (``tree`` / ``pimc``;
                          ``pimc`` with ``prior=ppo:...``: playouts by the network, see
                          :mod:`uno_env.agents.policy_pimc`, with keys ``z`` and ``opponent``),
                          e.g. ``ismcts:time_per_move=0.25;prior=ppo:classic``
========================  ===========================================================
"""

from __future__ import annotations

if __name__ != "uno_env.agents":  # one import name per module (docs/architecture.md)
    raise ImportError(f"the folder agents/ of the uno-env checkout is the package "
                      f"uno_env.agents: import uno_env.agents... instead of {__name__}...")

import importlib
from typing import Any

from uno_env.agents.base import Agent, legal_actions, seed_agent
from uno_env.agents.random_agent import RandomAgent
from uno_env.agents.rule import RuleAgent

SPECS = ("random", "rule", "ppo:PATH", "ppo:VARIANT", "sb3:PATH", "ismcts[:k=v;...]")
def _flag(v: str) -> bool:
    if v.lower() not in ("true", "false", "1", "0"):
        raise ValueError(v)
    return v.lower() in ("true", "1")


_flag.__name__ = "bool (true / false)"
ISMCTS_KEYS: dict[str, Any] = {"simulations": int, "time_per_move": float, "prior": str,
                               "c": float, "rollouts": int, "infer": _flag, "leaf": str,
                               "search": str, "draws": str, "opponent": str, "z": float}


def load(spec: str, variant: str = "classic", num_players: int = 2, seed: int | None = None,
         **options: Any) -> Agent:
    """The agent described by ``spec`` for this configuration (see the module docstring).

    ``options`` are the rule options of the game (``stacking=True``, ...): agents that
    decode observations or map actions need the same configuration as the environment.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string; allowed: {', '.join(SPECS)}")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "random" and not rest:
        return RandomAgent(seed=seed)
    if kind == "rule" and not rest:
        return RuleAgent(variant, num_players, seed=seed, **options)
    if kind == "ppo" and rest:
        ppo = importlib.import_module("uno_env.agents.ppo")
        agent: Agent = ppo.load_ppo(rest, variant=variant, num_players=num_players, seed=seed,
                                    **options)
        return agent
    if kind == "ismcts":
        from uno_env.agents.ismcts import ISMCTSAgent

        search = {k: options.pop(k) for k in list(options) if k in ISMCTS_KEYS}
        search.update(_parse_keys(spec, rest))
        return ISMCTSAgent(variant, num_players, seed=seed, **search, **options)
    if kind == "sb3" and rest:
        from uno_env.agents.sb3_agent import SB3Agent

        return SB3Agent(rest, variant=variant, num_players=num_players, seed=seed, **options)
    raise ValueError(f"unknown agent spec {spec!r}; allowed: {', '.join(SPECS)}")


def _parse_keys(spec: str, rest: str) -> dict[str, Any]:
    """``k=v;k=v`` (or ``,``) after ``ismcts:``; a value may hold ``:`` (``prior=ppo:classic``).
    ``;`` keeps a spec in one piece where a list of specs is split at commas (``--agents``)."""
    out: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.replace(";", ",").split(","))):
        k, eq, v = item.partition("=")
        k = k.strip()
        if not eq or k not in ISMCTS_KEYS:
            raise ValueError(f"bad ismcts setting {item!r} in {spec!r}; allowed: "
                             f"{', '.join(f'{x}=...' for x in ISMCTS_KEYS)}")
        try:
            out[k] = None if v.strip().lower() == "none" else ISMCTS_KEYS[k](v.strip())
        except ValueError:
            raise ValueError(f"ismcts setting {k} must be a {ISMCTS_KEYS[k].__name__}, got "
                             f"{v!r} in {spec!r}") from None
    return out


def trained_options(spec: str, num_players: int = 2) -> dict[str, Any]:
    """The rule options an agent must play with: a PPO checkpoint's training table (its
    env must be built with them: :func:`load` refuses another); ``{}`` for other agents."""
    kind, _, rest = spec.strip().partition(":")
    if kind.lower() == "ppo" and rest:
        ppo = importlib.import_module("uno_env.agents.ppo")
        opts: dict[str, Any] = ppo.trained_options(rest, num_players)
        return opts
    return {}


__all__ = ["SPECS", "Agent", "RandomAgent", "RuleAgent", "legal_actions", "load", "seed_agent",
           "trained_options"]
