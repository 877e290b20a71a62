"""Adapters for RL libraries whose conventions differ from PettingZoo's.

- :mod:`uno_env.integrations.rllib`: ``RLlibUnoEnv``, an RLlib ``MultiAgentEnv`` whose
  observations carry the keys RLlib's action-masking module reads (``"observations"``,
  ``"action_mask"``). Needs ``ray[rllib]``; importing this package imports no library.

Gymnasium, Stable-Baselines3, Tianshou, SuperSuit and CleanRL-style loops need no adapter:
see the README's "Using uno-env with ..." and ``examples/``.
"""
