"""The rules engine: pure Python, no PettingZoo, no observation arrays."""

from uno_env.rules.codes import PHASES
from uno_env.rules.game import Game
from uno_env.rules.state import IllegalActionError, State

__all__ = ["PHASES", "Game", "IllegalActionError", "State"]
