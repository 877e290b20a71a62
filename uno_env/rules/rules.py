"""The rule switches of one configuration, resolved once into a typed, frozen object.

A variant declares its options (:class:`uno_env.variants.base.Option`); the engine reads them
only through :class:`Rules`, so a misspelt name is an error where the rules are resolved (an
unknown option key) or where they are read (an unknown attribute, which mypy also reports),
never a silent ``False``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from uno_env.rules.codes import UNO_DECISION, UNO_MODES, UNO_OFF


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule switch; a variant without an option plays with the value given here."""

    wd_challenge: bool = False  # G-wd-challenge
    stacking: bool = False  # C-stacking
    double_play: bool = False  # C-double-play
    jump_in: bool = False  # C-jump-in, E-jump-in
    reverse_back: bool = False  # E-reverse-back
    uno_catch: str = "off"  # G-uno: auto | decision | off
    catch_window: str = "turn"  # G-uno: turn | until-out
    voluntary_draw: bool = True  # G-draw
    scoring: str = "winner"  # G-score | penalty (F-alt-score, E-end)
    target_score: int = 500
    episode: str = "round"  # round | match
    allow_more_players: bool = False  # E-players

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> Rules:
        """The rules of a variant's resolved options; an option no field reads is an error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"option {unknown[0]!r} is not a rule the engine knows; "
                             f"rules: {', '.join(sorted(known))}")
        rules = cls(**options)
        if rules.uno_catch not in UNO_MODES:
            raise ValueError(f"uno_catch={rules.uno_catch!r}; allowed: {', '.join(UNO_MODES)}")
        return rules

    @property
    def uno_mode(self) -> int:
        return UNO_MODES[self.uno_catch]

    @property
    def uno_on(self) -> bool:
        return self.uno_mode != UNO_OFF

    @property
    def catch_until_out(self) -> bool:
        """G-uno: every decision of an opponent offers ``catch`` (no catch phase)."""
        return self.uno_mode == UNO_DECISION and self.catch_window == "until-out"

    @property
    def penalty_scoring(self) -> bool:
        return self.scoring == "penalty"

    @property
    def match(self) -> bool:
        return self.episode == "match"
