"""uno-env: UNO, UNO Flip, UNO Flex and UNO Express as PettingZoo environments.

``uno_env.env(variant="classic", num_players=2, **options)`` is the wrapped AEC env,
``uno_env.raw_env(...)`` the bare one, ``uno_env.vector_env(variant, num_players, num_envs)``
many games at once on the compiled batch engine (numba, loaded on first use),
``uno_env.list_variants()`` the registered variants.
The Gymnasium id ``uno_env.GYM_ID`` (``"uno_env/UNO-v0"``) is one learning seat against
opponents (``gymnasium.make(uno_env.GYM_ID, variant=..., num_players=..., opponents=[...])``).

The rules engine (``uno_env.rules``, ``Game``, ``State``) needs neither PettingZoo nor
Gymnasium, so they are imported only when the environments are first used: ``env``,
``raw_env`` and ``DEFAULT_MAX_STEPS`` load ``uno_env.env``; ``GYM_ID`` (or importing
Gymnasium before ``uno_env``, or ``uno_env.env``) registers the Gymnasium id.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from uno_env.observation import ObservationLayout
from uno_env.rules import PHASES, Game, IllegalActionError, State
from uno_env.variants import find_variant, list_variants

if TYPE_CHECKING:
    from uno_env.batch.vector import VectorEnv, vector_env
    from uno_env.env import DEFAULT_MAX_STEPS, env, raw_env

_GYM_ID = "uno_env/UNO-v0"
_FROM_ENV = ("env", "raw_env", "DEFAULT_MAX_STEPS")


def register_gym() -> str:
    """Register the Gymnasium id (once) and return it. A string entry point: the env
    (uno_env.training.single_agent, above the agents layer) is imported by gymnasium.make only."""
    import gymnasium

    if _GYM_ID not in gymnasium.registry:
        gymnasium.register(_GYM_ID, entry_point="uno_env.training.single_agent:SingleAgentEnv")
    return _GYM_ID


class _Package(types.ModuleType):
    """``uno_env.env`` stays the env() function after the submodule ``uno_env.env`` is
    imported (the import system binds a loaded submodule to its package attribute)."""

    @property
    def env(self) -> Any:
        return _load("env")

    @env.setter
    def env(self, value: Any) -> None:  # the submodule's binding: ignored
        pass


def _load(name: str) -> Any:
    module = importlib.import_module("uno_env.env")
    register_gym()  # uno_env.env imports Gymnasium anyway
    return getattr(module, name)


def __getattr__(name: str) -> Any:
    if name in _FROM_ENV:
        return _load(name)
    if name == "GYM_ID":
        return register_gym()
    if name in ("vector_env", "VectorEnv"):  # the batch engine (and numba) on first use
        from uno_env.batch import vector

        return getattr(vector, name)
    raise AttributeError(f"module 'uno_env' has no attribute {name!r}")


sys.modules[__name__].__class__ = _Package
if "gymnasium" in sys.modules:
    register_gym()

__all__ = ["DEFAULT_MAX_STEPS", "GYM_ID", "PHASES", "Game", "IllegalActionError",
           "ObservationLayout", "State", "VectorEnv", "env", "find_variant", "list_variants",
           "raw_env", "register_gym", "vector_env"]
__version__ = "0.2.0"
