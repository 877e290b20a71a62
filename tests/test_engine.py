"""The engine's own API: typed rule switches, clone(), the Hands helper, file sizes."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from conftest import VARIANTS, maximal_options, player_counts

import uno_env
from uno_env.rules.hands import Hands
from uno_env.rules.rules import Rules


def test_rules_are_typed_frozen_and_strict() -> None:
    g = uno_env.Game("classic", 2, stacking=True, uno_catch="decision")
    r = g.rules
    assert isinstance(r, Rules) and r.stacking is True and r.uno_catch == "decision"
    assert r.catch_until_out and not r.voluntary_draw  # the classic defaults
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.stacking = False  # type: ignore[misc]
    with pytest.raises(ValueError, match="'stackin' is not a rule"):
        Rules.from_options({"stackin": True})
    with pytest.raises(AttributeError):
        _ = r.stackin  # type: ignore[attr-defined]
    # a variant without an option plays with the Rules default
    assert uno_env.Game("flip", 2).rules.stacking is False


@pytest.mark.parametrize("variant", VARIANTS)
def test_clone_plays_on_identically_and_independently(variant: str) -> None:
    opts = maximal_options(variant)
    rng = random.Random(3)
    for n in player_counts(variant, opts)[:2]:
        state = uno_env.State(uno_env.Game(variant, n, **opts), seed=n)
        for _ in range(150):
            if state.is_over:
                break
            if rng.random() < 0.2:
                copy = state.clone()
                before = state.to_dict()
                move = rng.choice(copy.legal)
                copy.step(move)
                assert state.to_dict() == before  # the original is untouched
                state.step(move)
                assert copy.to_dict() == state.to_dict()
                assert copy.legal == state.legal and copy.rng.state == state.rng.state
            else:
                state.step(rng.choice(state.legal))


def test_hands_keep_their_four_views_in_step() -> None:
    faces_of = [0, 0, 1, 2, 2]
    h = Hands(2, 3)
    h.add(0, [0, 2, 1], faces_of)
    assert h.held[0] == [[0, 1], [2], []] and list(h.counts[0]) == [2, 1, 0]
    assert h.size == [3, 0] and h.present == [0b011, 0]
    assert h.remove(0, 0) == 0 and h.remove(0, 1) == 2
    assert h.held[0] == [[1], [], []] and h.present[0] == 0b001 and h.size[0] == 1
    h.regroup(0, [1], [2, 2, 2, 2, 2])
    assert h.held[0] == [[], [], [1]] and h.present[0] == 0b100 and h.size[0] == 1
    c = h.copy()
    c.add(1, [3], faces_of)
    assert h.size == [1, 0] and c.size == [1, 1]


def test_engine_files_stay_short() -> None:
    root = Path(uno_env.__file__).resolve().parent
    for path in [*(root / "rules").glob("*.py"), *(root / "variants").glob("*.py")]:
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines < 400, f"{path.name} has {lines} lines"


def test_effects_dispatch_to_the_variant_handlers() -> None:
    """A variant's own effects live in its file (Variant.effects) over the core's: here a
    Classic whose Skip skips nobody, written in the test alone."""
    from scenario_helpers import make_deck

    from uno_env.cards import SKIP
    from uno_env.rules.effects import CORE_EFFECTS, effect_table
    from uno_env.variants.base import EffectTable
    from uno_env.variants.classic import Classic
    from uno_env.variants.flex import Flex, target_draw
    from uno_env.variants.flip import Flip, flip_sides

    def gentle_skip(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
        s.next_seat = (p + s.direction) % s.n
        return False

    class Gentle(Classic):
        effects = {SKIP: gentle_skip}

    from uno_env.rules.codes import E_FLIP, E_SKIP, E_TARGET_DRAW

    assert effect_table(Flip())[E_FLIP] is flip_sides
    assert effect_table(Flex())[E_TARGET_DRAW] is target_draw
    assert effect_table(Gentle())[E_SKIP] is gentle_skip
    assert effect_table(Classic())[E_SKIP] is CORE_EFFECTS[E_SKIP]
    deck = make_deck("classic", 3, 0, hands={1: ["red-skip"]}, first="red-5")
    for variant, nxt in ((Classic(), 0), (Gentle(), 2)):
        s = uno_env.State(uno_env.Game(variant, 3, voluntary_draw=True), deck=deck, dealer=0)
        s.step(s.game.actions.index("play red-skip"))
        assert s.current == nxt


def test_a_new_effect_is_a_change_in_one_file() -> None:
    """A variant may give a face an effect no engine file names (here "skip-two", written in
    the test alone): it gets a code of its own and the variant's handler runs it. A face
    whose effect nobody handles is refused when the game is built, with what is allowed."""
    from dataclasses import replace

    from scenario_helpers import make_deck

    from uno_env.cards import SKIP
    from uno_env.rules.codes import CORE_EFFECT_NAMES, EFFECT_CODES
    from uno_env.rules.effects import CORE_EFFECTS
    from uno_env.variants.base import EffectTable
    from uno_env.variants.classic import Classic

    def skip_two(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
        s.next_seat = (p + 3 * s.direction) % s.n
        return False

    class SkipTwo(Classic):
        effects = {"skip-two": skip_two}

        def build_deck(self):  # type: ignore[no-untyped-def]
            faces, cards = super().build_deck()
            return [replace(f, effect="skip-two") if f.effect == SKIP else f
                    for f in faces], cards

    class Orphan(SkipTwo):
        effects = {}

    deck = make_deck("classic", 4, 0, hands={1: ["red-skip"]}, first="red-5")
    for variant, nxt in ((Classic(), 3), (SkipTwo(), 0)):
        s = uno_env.State(uno_env.Game(variant, 4, voluntary_draw=True), deck=deck, dealer=0)
        s.step(s.game.actions.index("play red-skip"))
        assert s.current == nxt
    assert EFFECT_CODES["skip-two"] >= 13  # after every code the batch engine knows
    assert set(CORE_EFFECTS) == {EFFECT_CODES[n] for n in CORE_EFFECT_NAMES}
    with pytest.raises(ValueError, match="'skip-two', which neither the engine nor"):
        uno_env.Game(Orphan(), 2)


def test_pending_draws_of_the_variant_own_kind() -> None:
    """Variant.take_pending decides how a victim takes a pending draw (Flip: until the named
    colour); here a Classic whose Draw Two victims draw one card, written in the test alone."""
    from scenario_helpers import make_deck

    from uno_env.variants.base import EffectTable
    from uno_env.variants.classic import Classic
    from uno_env.variants.flip import Flip, draw_until_color

    def one_only(s: EffectTable, victim: int) -> bool:
        s._draw(victim, 1)
        return True

    class Mild(Classic):
        take_pending = one_only

    assert Flip.hook("take_pending") is draw_until_color and Classic.hook("take_pending") is None
    deck = make_deck("classic", 2, 0, hands={1: ["red-draw-two"]}, first="red-5")
    for variant, got in ((Classic(), 9), (Mild(), 8)):
        s = uno_env.State(uno_env.Game(variant, 2, voluntary_draw=True, wd_challenge=False),
                          deck=deck, dealer=0)
        s.step(s.game.actions.index("play red-draw-two"))
        assert s.hand_len[0] == got and s.pending == 0


def test_match_tables_are_per_deck_not_per_name() -> None:
    """G-match: the match tables are cached per variant object, so a deck that reuses a
    registered name (here a Classic whose Skips match only by colour) gets its own."""
    from dataclasses import replace

    from uno_env.cards import SKIP
    from uno_env.variants.classic import Classic

    class ColourSkips(Classic):
        def build_deck(self):  # type: ignore[no-untyped-def]
            faces, cards = super().build_deck()
            return [replace(f, symbol_match=f.effect != SKIP) for f in faces], cards

    plain, odd = uno_env.Game(Classic(), 2), uno_env.Game(ColourSkips(), 2)
    assert odd.variant.name == plain.variant.name
    red, yellow = plain.face_names.index("red-skip"), plain.face_names.index("yellow-skip")
    assert plain.match_bits[0][red] >> yellow & 1
    assert not odd.match_bits[0][red] >> yellow & 1


def test_phase_decisions_dispatch_to_the_variant_hooks() -> None:
    """The legal decisions of the variant phases (jump-in, E-reverse-back, X target) come
    from Variant.decisions in the variant files; a misspelt phase name is refused."""
    import pytest

    from uno_env.rules.codes import P_JUMP_IN, P_REVERSE_BACK, P_TARGET
    from uno_env.rules.legal import decision_table
    from uno_env.variants.base import jump_in_decisions
    from uno_env.variants.classic import Classic
    from uno_env.variants.express import Express, reverse_back_decisions
    from uno_env.variants.flex import Flex, target_decisions

    assert decision_table(Classic())[P_JUMP_IN] is jump_in_decisions
    assert decision_table(Classic())[P_REVERSE_BACK] is None
    assert decision_table(Express())[P_REVERSE_BACK] is reverse_back_decisions
    assert decision_table(Flex())[P_TARGET] is target_decisions

    class Misspelt(Classic):
        decisions = {"jumpin": jump_in_decisions}

    with pytest.raises(ValueError, match="unknown phase 'jumpin'"):
        decision_table(Misspelt())


def test_the_jump_in_window_is_the_variant_hook() -> None:
    """C-jump-in: when the window opens after a play and what a pass in it does are the
    variant's (Variant.window, Variant.passes); here a Classic without the window, written
    in the test alone, never asks even with the jump_in option on."""
    from scenario_helpers import make_deck

    from uno_env.rules.codes import P_JUMP_IN, P_PLAY
    from uno_env.variants.classic import Classic

    class NoWindow(Classic):
        window = None

    deck = make_deck("classic", 2, 0, hands={1: ["red-5"], 0: ["red-5"]}, first="red-3")
    for variant, phase in ((Classic(), P_JUMP_IN), (NoWindow(), P_PLAY)):
        s = uno_env.State(uno_env.Game(variant, 2, jump_in=True, voluntary_draw=True),
                          deck=deck, dealer=0)
        s.step(s.game.actions.index("play red-5"))
        assert (s.current, s.phase) == (0, phase)
    s = uno_env.State(uno_env.Game(Classic(), 2, jump_in=True, voluntary_draw=True),
                      deck=deck, dealer=0)
    s.step(s.game.actions.index("play red-5"))
    s.step(s.game.actions.pass_)  # nobody else holds the twin: the turn goes on to seat 0
    assert (s.current, s.phase) == (0, P_PLAY)
