"""The action table now lives in the engine package (:mod:`uno_env.rules.actions`); this
module re-exports it for code that imported it from here. The engine never imports it."""

from uno_env.rules.actions import ActionTable, build_actions
from uno_env.rules.codes import (
    ACCEPT,
    CATCH,
    CHALLENGE,
    COLOR,
    DRAW,
    PASS,
    PLAY,
    PLAY_FLEX,
    PLAY_TWO,
    TARGET,
    UNO,
)

__all__ = ["ACCEPT", "CATCH", "CHALLENGE", "COLOR", "DRAW", "PASS", "PLAY", "PLAY_FLEX",
           "PLAY_TWO", "TARGET", "UNO", "ActionTable", "build_actions"]
