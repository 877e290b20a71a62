"""The batch engine reads the rule facts the Python engine reads, and refuses a variant whose
effects, phases or hooks its kernels lack (docs/architecture.md, "Rule facts both engines
read"). No numba compilation: the check and the tables are plain Python and numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import uno_env
from uno_env.batch import tables as T
from uno_env.batch.support import PASS_JUMP_IN, PASS_NONE, check_variant, problems
from uno_env.cards import SKIP
from uno_env.rules import Game
from uno_env.rules.codes import PHASES
from uno_env.variants import find_variant
from uno_env.variants.classic import Classic
from uno_env.variants.express import Express


@pytest.mark.parametrize("variant", uno_env.list_variants())
def test_every_shipped_variant_is_known_to_the_kernels(variant: str) -> None:
    assert problems(find_variant(variant)) == []


@pytest.mark.parametrize("variant", uno_env.list_variants())
def test_the_tables_carry_the_facts_the_python_engine_reads(variant: str) -> None:
    game = Game(variant, 3)
    v = game.variant
    t = T.build_tables(game, uno_env.raw_env(variant, 3).layout, "win", None)
    nf = game.num_faces
    assert list(t.ft[T.FT_COLOR_ON_LAST, :nf]) == [int(x) for x in game.face_color_on_last]
    assert list(t.ft[T.FT_FLEX_TARGETED, :nf]) == [int(x) for x in game.flex_targeted]
    answers = [PHASES[k] for k in np.flatnonzero(t.ft[T.FT_PHASE_ANSWERS, :len(PHASES)])]
    assert answers == list(v.answers)
    passes = {PHASES[k]: int(t.ft[T.FT_PHASE_PASS, k]) for k in range(len(PHASES))}
    assert passes == {p: PASS_JUMP_IN if p in v.passes else PASS_NONE for p in PHASES}
    assert t.honest_wild == v.other_wild_dishonest == (variant == "flex")


def _own_skip(s: Any, p: int, f: int, draw: int, last: bool) -> bool:
    s.next_seat = (p + 2 * s.direction) % s.n
    return False


def _own_decisions(s: Any, p: int, legal: list[int]) -> None:
    legal.append(s.game.actions.accept)


def _own_pass(s: Any, p: int) -> bool:
    return False


class _OwnSkip(Classic):
    effects = {SKIP: _own_skip}  # a known effect name, a handler the kernels do not mirror


class _OwnPhase(Express):
    decisions = {**Express.decisions, "target": _own_decisions}
    passes = {"jump-in": _own_pass}


class _OwnHonesty(Classic):
    def is_honest(self, counts: Any, color_faces: Any, prior_color: int) -> bool:
        return True


def test_a_handler_the_kernels_do_not_mirror_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"does not support variant 'classic': effect 'skip' "
                                         r"\(handler .*_own_skip\) has no kernel"):
        check_variant(_OwnSkip())


def test_an_unknown_phase_hook_or_pass_is_refused() -> None:
    found = problems(_OwnPhase())
    assert any("phase 'target' (decisions" in p and "_own_decisions" in p for p in found)
    assert any("a pass in phase 'jump-in'" in p and "_own_pass" in p for p in found)
    assert len(found) == 2


def test_an_overridden_honesty_rule_is_refused() -> None:
    (found,) = problems(_OwnHonesty())
    assert "is_honest is overridden" in found and "other_wild_dishonest" in found


def test_the_honesty_rule_is_data_both_engines_read() -> None:
    """X-effects: Flex's other wilds make a wild draw dishonest; classic's do not."""
    game = Game("flex", 2)
    wild = game.color_faces[4][0]
    red = 0
    counts = [0] * game.num_faces
    counts[wild] = 1
    assert not find_variant("flex").is_honest(counts, game.color_faces, red)
    assert find_variant("classic").is_honest(counts, game.color_faces, red)
