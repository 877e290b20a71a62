"""Adapters for RL libraries whose conventions differ from PettingZoo's.

- :mod:`uno_env.integrations.rllib`: ``RLlibUnoEnv``, an RLlib ``MultiAgentEnv`` whose
  observations carry the keys RLlib's action-masking module reads (``"observations"``,
  ``"action_mask"``). Needs ``ray[rllib]``.
- :mod:`uno_env.integrations.tianshou`: ``CreditedPettingZooEnv``, Tianshou's
  ``PettingZooEnv`` with every agent's final reward on a transition of its own (Tianshou
  otherwise books a loss on the winner's transition). Needs ``tianshou``.
- :mod:`uno_env.integrations.openspiel`: registers every variant as a Python OpenSpiel game
  (``python_uno_<variant>``) when imported. Needs ``open_spiel`` (docs/openspiel.md).

Importing this package imports no RL library.

Gymnasium, Stable-Baselines3, SuperSuit and CleanRL-style loops need no adapter:
see docs/environments.md "Using uno-env with ..." and ``examples/``.
"""
