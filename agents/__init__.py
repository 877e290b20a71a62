"""Agents that play UNO in the ``uno_env`` environments (random, heuristic, learned)."""
