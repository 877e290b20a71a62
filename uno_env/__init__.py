"""uno-env: UNO, UNO Flip, UNO Flex and UNO Express as PettingZoo environments.

``uno_env.env(variant="classic", num_players=2, **options)`` is the wrapped AEC env,
``uno_env.raw_env(...)`` the bare one, ``uno_env.list_variants()`` the registered variants.
"""

from uno_env.env import env, raw_env
from uno_env.observation import ObservationLayout
from uno_env.rules import PHASES, Game, IllegalActionError, State
from uno_env.variants import find_variant, list_variants

__all__ = ["PHASES", "Game", "IllegalActionError", "ObservationLayout", "State", "env",
           "find_variant", "list_variants", "raw_env"]
__version__ = "0.1.0"
