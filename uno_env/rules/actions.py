"""The action table of one (variant, player count, options): index <-> meaning <-> decision.

Every decision listed in docs/games/index.md that the options enable has a
fixed index, so the action space is one ``Discrete(n)`` per configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from uno_env.cards import NUMBER
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
from uno_env.rules.rules import Rules
from uno_env.variants.base import Variant


@dataclass
class ActionTable:
    """Parallel lists: ``meanings[i]``, ``types[i]``, ``args[i]`` describe action ``i``."""

    meanings: list[str] = field(default_factory=list)
    types: list[int] = field(default_factory=list)
    args: list[int] = field(default_factory=list)
    play: list[int] = field(default_factory=list)  # face -> index
    play_two: list[int] = field(default_factory=list)  # face -> index, -1 when none
    play_flex: list[int] = field(default_factory=list)  # face -> index, -1 when none
    color: list[list[int]] = field(default_factory=list)  # side -> colour -> index
    target: list[int] = field(default_factory=list)  # k-1 -> index of "target +k"
    draw: int = -1
    pass_: int = -1
    challenge: int = -1
    accept: int = -1
    uno: int = -1
    catch: int = -1

    def add(self, meaning: str, kind: int, arg: int = 0) -> int:
        self.meanings.append(meaning)
        self.types.append(kind)
        self.args.append(arg)
        return len(self.meanings) - 1

    def __len__(self) -> int:
        return len(self.meanings)

    def index(self, meaning: str) -> int:
        """The index of an action given its meaning (``"play red-7"``, ``"draw"``, ...)."""
        try:
            return self._by_meaning[meaning.strip()]
        except KeyError:
            raise ValueError(
                f"unknown action {meaning!r}; allowed: {', '.join(self.meanings)}"
            ) from None

    def finish(self) -> ActionTable:
        self._by_meaning = {m: i for i, m in enumerate(self.meanings)}
        return self


def build_actions(variant: Variant, num_players: int, rules: Rules) -> ActionTable:
    """Lay out the action space for this configuration."""
    t = ActionTable()
    t.play = [t.add(f"play {f.name}", PLAY, i) for i, f in enumerate(variant.faces)]
    t.play_flex = [-1] * len(variant.faces)
    for i, flex in enumerate(variant.flex_faces):
        if flex is not None:  # X-flex-play: the same card by its flex face
            t.play_flex[i] = t.add(f"play {variant.faces[i].name} flex", PLAY_FLEX, i)
    t.play_two = [-1] * len(variant.faces)
    if rules.double_play:
        for i, f in enumerate(variant.faces):
            if f.effect == NUMBER:
                t.play_two[i] = t.add(f"play-two {f.name}", PLAY_TWO, i)
    t.draw = t.add("draw", DRAW)
    t.pass_ = t.add("pass", PASS)
    t.color = [[t.add(f"color {c}", COLOR, ci) for ci, c in enumerate(palette)]
               for palette in variant.colors]
    if rules.wd_challenge:
        t.challenge = t.add("challenge", CHALLENGE)
    if rules.wd_challenge or rules.stacking or rules.reverse_back:
        t.accept = t.add("accept", ACCEPT)
    if rules.uno_on:
        t.uno = t.add("uno", UNO)
    if rules.uno_catch == "decision":
        t.catch = t.add("catch", CATCH)
    if any(f is not None and f.targeted for f in variant.flex_faces):
        t.target = [t.add(f"target +{k}", TARGET, k) for k in range(1, num_players)]
    return t.finish()
