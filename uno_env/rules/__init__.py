"""The rules engine: pure Python, no PettingZoo, no observation arrays."""

from uno_env.rules.game import Game
from uno_env.rules.state import PHASES, IllegalActionError, State

__all__ = ["PHASES", "Game", "IllegalActionError", "State"]
