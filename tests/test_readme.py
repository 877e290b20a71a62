"""The README's tables are generated from the code (uno_env/docs.py); they must match it."""

from __future__ import annotations

from pathlib import Path

from uno_env.docs import all_tables, sync_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_tables_match_the_code() -> None:
    stale = sync_readme(str(README), check=True)
    assert not stale, f"README tables out of date: {stale}; run python -m uno_env.docs --sync"


def test_readme_has_every_table() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [name for name in all_tables() if f"<!-- table:{name} -->" not in text]
    assert not missing, f"README lacks generated tables: {missing}"


def test_readme_quick_start_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text
