"""What never changes during a play-out: variant, options, face tables, action table."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from uno_env import cards as K
from uno_env.rules.actions import ActionTable, build_actions
from uno_env.rules.codes import CORE_EFFECT_NAMES, effect_code
from uno_env.rules.rules import Rules
from uno_env.variants.base import Variant, find_variant

# Match tables per variant object (they depend on its deck only): see Game.__init__. Keyed
# by the object, not its name, so that two decks under one name never share tables.
_MATCH_TABLES: weakref.WeakKeyDictionary[Variant, tuple[list[list[int]], list[list[int]]]] = (
    weakref.WeakKeyDictionary())


def _check_effects(v: Variant) -> None:
    """Every face's effect must have a handler: the core's or the variant's own."""
    handled = set(CORE_EFFECT_NAMES) | set(v.effects)
    for face in v.faces:
        if face.targeted:
            raise ValueError(f"variant {v.name!r}: face {face.name!r} is targeted; only a flex "
                             "face may be (X-effects: the target is named for a flex play)")
    for face in (*v.faces, *(x for x in v.flex_faces if x is not None)):
        if face.effect not in handled:
            raise ValueError(
                f"variant {v.name!r}: face {face.name!r} has effect {face.effect!r}, which "
                f"neither the engine nor the variant's `effects` handles; allowed: "
                f"{', '.join(sorted(handled))}")


class Game:
    """One configuration of one variant: build it once, start many :class:`State` s from it."""

    def __init__(self, variant: Variant | str = "classic", num_players: int = 2,
                 **options: Any) -> None:
        v = find_variant(variant) if isinstance(variant, str) else variant
        self.variant = v
        self.options: dict[str, Any] = v.resolve_options(num_players, options)
        self.num_players = num_players
        self.rules = r = Rules.from_options(self.options)
        faces = v.faces
        _check_effects(v)
        self.faces = faces
        self.num_faces = len(faces)
        symbols: dict[str, int] = {}
        self.face_color = [f.color for f in faces]
        self.face_symbol = [symbols.setdefault(f.symbol, len(symbols)) for f in faces]
        self.face_effect = [effect_code(f.effect) for f in faces]
        self.face_draw = [f.draw for f in faces]
        self.face_points = [f.points for f in faces]
        self.face_wild = [f.is_wild for f in faces]
        self.face_color_on_last = [f.color_on_last for f in faces]  # F: Wild Draw Colour
        self.face_symbol_match = [f.symbol_match for f in faces]
        self.face_challengeable = [f.challengeable and r.wd_challenge for f in faces]
        self.face_names = [f.name for f in faces]
        self.face_side = [f.side for f in faces]  # Flip: 0 light, 1 dark
        # X-flex-play: the flex face of each kind (None: no flex face), as parallel tables.
        flex = list(v.flex_faces) or [None] * len(faces)
        self.has_flex = any(x is not None for x in flex)
        self.flex_faces = flex
        self.flex_effect = [-1 if x is None else effect_code(x.effect) for x in flex]
        self.flex_draw = [0 if x is None else x.draw for x in flex]
        self.flex_wild = [x is not None and x.is_wild for x in flex]
        # X-effects: a flex face whose player names its victim first (the target stage)
        self.flex_targeted = [x is not None and x.targeted for x in flex]
        self.flex_color = [-1 if x is None else x.color for x in flex]
        self.flex_challengeable = [x is not None and x.challengeable and r.wd_challenge
                                   for x in flex]
        self.power_flip = list(v.power_flip) or [False] * len(faces)  # X-power (ii)
        self.power_cards = v.power_cards
        self.first_wild_chooser = v.first_wild_chooser
        self.first_discard_numbers_only = v.first_discard_numbers_only
        self.num_sides = len(v.colors)
        self.colors = v.colors
        self.num_cards = len(v.cards)
        self.side_faces = [[c[s] for c in v.cards] for s in range(self.num_sides)]
        self.card_names = v.card_names
        self.cards_by_name: dict[str, list[int]] = {}
        for cid, name in enumerate(self.card_names):
            self.cards_by_name.setdefault(name, []).append(cid)
        F = range(self.num_faces)
        self.color_faces = [tuple(f for f in F if self.face_color[f] == col)
                            for col in range(K.WILD + 1)]
        # match_bits[active colour][top face]: the faces that may be played on it (G-match)
        # as a bit set, intersected with a hand's `present` bits once per turn; flex_match_bits
        # the same for flex faces (X-flex-play: a flex face matches only by its own colour,
        # number or symbol). They depend on the deck alone, so they are built once per variant.
        flex_symbol = [-1 if x is None else symbols.setdefault(x.symbol, len(symbols))
                       for x in flex]
        tables = _MATCH_TABLES.get(v)
        if tables is None:
            by_symbol: dict[int, int] = {}
            for f in F:
                if self.face_symbol_match[f]:
                    by_symbol[self.face_symbol[f]] = by_symbol.get(self.face_symbol[f], 0) | 1 << f
            wild_bits = sum(1 << f for f in F if self.face_wild[f])
            color_bits = [sum(1 << f for f in fs) for fs in self.color_faces]
            match = [[wild_bits | color_bits[col] | by_symbol.get(self.face_symbol[t], 0)
                      for t in F] for col in range(K.WILD + 1)]
            flex_by_symbol: dict[int, int] = {}
            for f in F:
                if flex[f] is not None:
                    flex_by_symbol[flex_symbol[f]] = flex_by_symbol.get(flex_symbol[f], 0) | 1 << f
            flex_wild = sum(1 << f for f in F if self.flex_wild[f])
            flex_color = [sum(1 << f for f in F if flex[f] is not None
                              and self.flex_color[f] == col) for col in range(K.WILD + 1)]
            flex_match = [[flex_wild | flex_color[col] | flex_by_symbol.get(self.face_symbol[t], 0)
                           for t in F] for col in range(K.WILD + 1)]
            tables = _MATCH_TABLES[v] = (match, flex_match)
        self.match_bits, self.flex_match_bits = tables
        # E-reverse-back: the Reverse of each colour (per side), -1 where there is none.
        self.reverse_face = [[-1] * K.NUM_COLORS for _ in range(self.num_sides)]
        for f, face in enumerate(faces):
            if face.effect == K.REVERSE and not face.is_wild:
                self.reverse_face[face.side][face.color] = f
        self.actions: ActionTable = build_actions(v, num_players, r)
        assert self.actions.play == list(F)  # "play <face f>" is action f
        self.num_actions = len(self.actions)
        self.hand_size = v.hand_size
        self.first_redraw = {effect_code(e) for e in v.first_discard_redraw}
        # rule switches as plain attributes (the hot path reads them every step)
        self.stacking = r.stacking
        self.double_play = r.double_play
        self.jump_in = r.jump_in
        self.reverse_back = r.reverse_back
        self.uno_mode = r.uno_mode
        # G-uno: with `until-out` and catching as a decision, every decision of an opponent
        # offers `catch` while an uncalled one-card hand stands (no catch phase after a play)
        self.catch_until_out = r.catch_until_out
        self.voluntary_draw = r.voluntary_draw  # G-draw
        self.uno_penalty = v.uno_penalty
        self.penalty_scoring = r.penalty_scoring
        self.target_score = r.target_score
        self.match = r.match

    def parse_deck(self, names: Sequence[str]) -> list[int]:
        """Card ids for a full deck order given as card names (top first).

        Refuses anything that is not a permutation of this variant's deck, saying why.
        """
        if isinstance(names, str) or not isinstance(names, Sequence):
            raise ValueError("deck must be a list of card names, top of the draw pile first")
        if len(names) != self.num_cards:
            raise ValueError(
                f"deck must list all {self.num_cards} cards of {self.variant.name}, "
                f"got {len(names)}"
            )
        pools = {name: list(ids) for name, ids in self.cards_by_name.items()}
        out: list[int] = []
        for name in names:
            pool = pools.get(name)
            if pool is None:
                raise ValueError(
                    f"unknown card {name!r} for {self.variant.name}; "
                    f"allowed: {', '.join(self.cards_by_name)}"
                )
            if not pool:
                want = len(self.cards_by_name[name])
                raise ValueError(
                    f"deck has too many {name!r}: {self.variant.name} has {want}"
                )
            out.append(pool.pop(0))
        return out

