"""uno-env: UNO, UNO Flip, UNO Flex and UNO Express as PettingZoo environments.

``uno_env.env(variant="classic", num_players=2, **options)`` is the wrapped AEC env,
``uno_env.raw_env(...)`` the bare one, ``uno_env.vector_env(variant, num_players, num_envs)``
many games at once on the compiled batch engine, ``uno_env.list_variants()`` the registered
variants.
Importing it registers the Gymnasium id ``"uno_env/UNO-v0"``: one learning seat against
opponents (``gymnasium.make("uno_env/UNO-v0", variant=..., num_players=..., opponents=[...])``).
"""

from typing import Any

import gymnasium

from uno_env.env import DEFAULT_MAX_STEPS, env, raw_env
from uno_env.observation import ObservationLayout
from uno_env.rules import PHASES, Game, IllegalActionError, State
from uno_env.variants import find_variant, list_variants

GYM_ID = "uno_env/UNO-v0"
if GYM_ID not in gymnasium.registry:
    # A string entry point: the env (training.single_agent, above the agents layer) is
    # imported by gymnasium.make, never by `import uno_env`.
    gymnasium.register(GYM_ID, entry_point="training.single_agent:SingleAgentEnv")

__all__ = ["DEFAULT_MAX_STEPS", "GYM_ID", "PHASES", "Game", "IllegalActionError",
           "ObservationLayout", "State", "VectorEnv", "env", "find_variant", "list_variants",
           "raw_env", "vector_env"]


def __getattr__(name: str) -> Any:
    """``vector_env`` and ``VectorEnv`` load the batch engine (and numba) on first use."""
    if name in ("vector_env", "VectorEnv"):
        from uno_env.batch import vector

        return getattr(vector, name)
    raise AttributeError(f"module 'uno_env' has no attribute {name!r}")
__version__ = "0.1.0"
