"""uno-env: UNO, UNO Flip, UNO Flex and UNO Express as PettingZoo environments.

``uno_env.env(variant="classic", num_players=2, **options)`` is the wrapped AEC env,
``uno_env.raw_env(...)`` the bare one, ``uno_env.vector_env(variant, num_players, num_envs)``
many games at once on the compiled batch engine (numba, loaded on first use),
``uno_env.list_variants()`` the registered variants.
The Gymnasium id ``uno_env.GYM_ID`` (``"uno_env/UNO-v1"``) is one learning seat against
opponents (``gymnasium.make(uno_env.GYM_ID, variant=..., num_players=..., opponents=[...])``);
``gymnasium.make_vec(uno_env.GYM_ID, num_envs=N, vectorization_mode="vector_entry_point",
...)`` runs ``N`` of those games on the compiled batch engine (``uno_env.batch.learner``),
and ``uno_env.sb3_vec_env(...)`` / ``uno_env.torchrl_env(...)`` wrap it for SB3 and TorchRL
(docs/vector-interfaces.md).

The rules engine (``uno_env.rules``, ``Game``, ``State``) needs neither PettingZoo nor
Gymnasium, so they are imported only when the environments are first used: ``env``,
``raw_env`` and ``DEFAULT_MAX_STEPS`` load the module ``uno_env.aec`` (the PettingZoo env,
not named ``env`` so that ``uno_env.env`` is only ever the function). ``import uno_env``
registers the Gymnasium ids (it imports Gymnasium, a dependency, but none of the env
modules: the entry points are strings), so ``import uno_env, gymnasium;
gymnasium.make("uno_env/UNO-v1")`` works, as does Gymnasium's idiom
``gymnasium.register_envs(uno_env)``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from uno_env.observation import ObservationLayout
from uno_env.rules import PHASES, Game, IllegalActionError, State
from uno_env.variants import find_variant, list_variants

if TYPE_CHECKING:
    from uno_env.aec import DEFAULT_MAX_STEPS, env, raw_env
    from uno_env.batch.learner import LearnerVectorEnv
    from uno_env.batch.vector import VectorEnv, vector_env
    from uno_env.integrations.sb3 import sb3_vec_env
    from uno_env.integrations.torchrl import torchrl_env

_GYM_ID = "uno_env/UNO-v1"  # the version: see CHANGELOG.md (v0 raises DeprecatedEnv)
_FROM_ENV = ("env", "raw_env", "DEFAULT_MAX_STEPS")


def register_gym() -> str:
    """Register the Gymnasium id (once) and return it. String entry points: the env
    (uno_env.training.single_agent, above the agents layer) and the vector env (numba) are
    imported by gymnasium.make / make_vec only."""
    import gymnasium

    if _GYM_ID not in gymnasium.registry:
        gymnasium.register(_GYM_ID, entry_point="uno_env.training.single_agent:SingleAgentEnv",
                           vector_entry_point="uno_env.training.vector_learner:make_learner_vec")
    return _GYM_ID


def _load(name: str) -> Any:
    module = importlib.import_module("uno_env.aec")
    register_gym()  # uno_env.aec imports Gymnasium anyway
    return getattr(module, name)


def __getattr__(name: str) -> Any:
    if name in _FROM_ENV:
        return _load(name)
    if name == "GYM_ID":
        return register_gym()
    if name in ("vector_env", "VectorEnv"):  # the batch engine (and numba) on first use
        from uno_env.batch import vector

        return getattr(vector, name)
    if name == "LearnerVectorEnv":
        from uno_env.batch import learner

        return learner.LearnerVectorEnv
    if name == "sb3_vec_env":  # Stable-Baselines3 (the sb3 extra) on first use
        from uno_env.integrations import sb3

        return sb3.sb3_vec_env
    if name == "torchrl_env":  # TorchRL (the torchrl extra) on first use
        from uno_env.integrations import torchrl

        return torchrl.torchrl_env
    raise AttributeError(f"module 'uno_env' has no attribute {name!r}")


register_gym()  # importing the package registers its ids, as ale_py does

__all__ = ["DEFAULT_MAX_STEPS", "GYM_ID", "PHASES", "Game", "IllegalActionError",
           "LearnerVectorEnv", "ObservationLayout", "State", "VectorEnv", "env", "find_variant",
           "list_variants", "raw_env", "register_gym", "sb3_vec_env", "torchrl_env",
           "vector_env"]
__version__ = "0.2.0"
