"""The vector entry point of ``uno_env/UNO-v1``: the learner vector env with ``ppo:...``
opponent specs resolved to batched policies.

``uno_env.batch.learner.LearnerVectorEnv`` sits in the ``uno_env`` layer, below ``agents``, so
it plays compiled opponents (``"random"``, ``"rule"``) and takes policies as objects with
``act_batch(observations, masks)``. This module, above ``agents``, turns each ``"ppo:..."``
spec into one ``PPOBatch`` over the agent ``agents.load`` builds (greedy, as UNO-v1's
``ppo:`` opponents are), answered with one forward per tick for all its seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from uno_env import agents
from uno_env.agents.ppo import PPOAgent, PPOBatch
from uno_env.batch.learner import LearnerVectorEnv

ENV_KEYS = ("learner_seat", "reward", "max_steps", "illegal_action", "render_mode", "copy",
            "autoreset")  # the keywords of LearnerVectorEnv that are not rule options


def resolve_opponents(opponents: Sequence[Any], variant: str = "classic",
                      num_players: int = 2, **options: Any) -> list[Any]:
    """``opponents`` with every ``"ppo:..."`` spec replaced by a ``PPOBatch`` (one per
    distinct spec); ``options`` are the rule options."""
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        return opponents  # type: ignore[return-value]  # LearnerVectorEnv says what is wrong
    built: dict[str, PPOBatch] = {}
    out: list[Any] = []
    for o in opponents:
        if isinstance(o, str) and o.strip().lower().startswith("ppo:"):
            if o not in built:
                agent = agents.load(o, variant=variant, num_players=num_players, **options)
                assert isinstance(agent, PPOAgent)
                built[o] = PPOBatch(agent)
            out.append(built[o])
        else:
            out.append(o)
    return out


def make_learner_vec(num_envs: int = 1, variant: str = "classic", num_players: int = 2,
                     opponents: Sequence[Any] = ("random",), **kwargs: Any) -> LearnerVectorEnv:
    """``gymnasium.make_vec("uno_env/UNO-v1", vectorization_mode="vector_entry_point", ...)``."""
    options = {k: v for k, v in kwargs.items() if k not in ENV_KEYS}
    return LearnerVectorEnv(num_envs, variant=variant, num_players=num_players,
                            opponents=resolve_opponents(opponents, variant, num_players,
                                                        **options), **kwargs)
