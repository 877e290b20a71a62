"""The state table (uno_env/rules/table.py, docs/architecture.md "The state table"): the
generated blocks are current, and every place that lists the state agrees with it.
No numba compilation here: the conversion between engines is plain numpy."""

from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env import codegen
from uno_env.batch import layout as L
from uno_env.batch import tables as T
from uno_env.batch.convert import from_state, to_state
from uno_env.batch.layout import Batch, allocate
from uno_env.rules import Game, State
from uno_env.rules.fields import StateFields
from uno_env.rules.table import ARRAYS, FIELDS, PY_FIELDS, S_FIELDS, Field


def test_the_generated_blocks_are_current() -> None:
    stale = codegen.stale()
    assert not stale, f"run `python -m uno_env.codegen`; stale: {sorted(map(str, stale))}"
    assert codegen.main(["--check"]) == 0


def test_a_new_field_changes_every_block_it_belongs_to(monkeypatch: pytest.MonkeyPatch) -> None:
    new = Field("streak", "seat", "int16", py="list[int]", batch="streak", snap="streak",
                copy="list", doc="a field added for the test")
    monkeypatch.setattr(codegen, "ARRAYS", (*ARRAYS, new))
    assert "    streak: np.ndarray  # [B, N] int16: a field added for the test" in \
        codegen.layout_batch()
    assert "        streak=np.zeros((b, n), np.int16)," in codegen.layout_batch()
    assert "        borrow(s.streak)," in codegen.borrow_functions()
    col = Field("clock", "game", col="CLOCK")
    monkeypatch.setattr(codegen, "S_FIELDS", (*S_FIELDS, col))
    assert codegen.layout_columns()[-2:] == [f"CLOCK = {len(S_FIELDS)}",
                                             f"NFIELDS = {len(S_FIELDS) + 1}"]
    assert {p.name for p in codegen.stale()} >= {"layout.py", "borrow.py"}


def test_render_replaces_only_its_block_and_refuses_a_missing_one() -> None:
    text = "a = 1\n    # <generated x>\n    old\n    # </generated x>\nb = 2\n"
    out = codegen.render(text, "x", ["new: int", "", "more"])
    assert out.startswith("a = 1\n    # <generated x>: python -m uno_env.codegen")
    assert "    new: int\n\n    more\n    # </generated x>\nb = 2\n" in out
    with pytest.raises(ValueError, match="no '# <generated y>'"):
        codegen.render(text, "y", [])


def test_the_engines_declarations_follow_the_table() -> None:
    slots = [s for s in StateFields.__slots__ if not s.startswith("_")]
    assert slots == [f.name for f in PY_FIELDS]
    assert Batch._fields == ("S", *(f.batch for f in ARRAYS))
    assert [getattr(L, f.col) for f in S_FIELDS if f.col] == list(range(L.NFIELDS))
    assert len(S_FIELDS) == L.NFIELDS
    assert [getattr(T, f"FT_{r.upper()}") for r in T.FT_ROWS] == list(range(len(T.FT_ROWS)))
    names = [f.name for f in FIELDS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("variant", uno_env.list_variants())
def test_a_state_converts_to_the_batch_and_back_unchanged(variant: str) -> None:
    """Every field both engines hold crosses convert.py (the generic ones from the table)."""
    game = Game(variant, 3)
    env = uno_env.raw_env(variant, 3)
    t = T.build_tables(game, env.layout, "win", None)
    s = allocate(t, 2)
    rng = np.random.default_rng(1)
    st = State(game, seed=5)
    for _ in range(40):  # into the middle of a round: history, powers, a flipped side
        before = st.clone()
        st.step(int(rng.choice(st.legal)))
        if not st.legal:  # the round ended: keep the position before the last decision
            st = before
            break
    from_state(s, t, st, 1)
    back = to_state(s, t, game, 1)
    assert back.to_dict() == st.to_dict()
    for f in PY_FIELDS:
        if f.name not in ("book", "held", "present", "rng"):
            assert getattr(back, f.name) == getattr(st, f.name), f.name
    clone = st.clone()
    for f in PY_FIELDS:
        if f.name not in ("book", "rng"):
            assert getattr(clone, f.name) == getattr(st, f.name), f.name
