"""The generated tables of the docs pages (uno_env/docs.py) match the code; the README is
the front door it should be."""

from __future__ import annotations

import re
from pathlib import Path

from uno_env.docs import all_tables, doc_pages, sync_docs

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def test_generated_tables_match_the_code() -> None:
    stale = sync_docs(ROOT, check=True)
    assert not stale, f"tables out of date: {stale}; run python -m uno_env.docs --sync"


def test_the_docs_have_every_table() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in doc_pages(ROOT))
    missing = [name for name in all_tables() if f"<!-- table:{name} -->" not in text]
    assert not missing, f"no docs page holds the generated tables: {missing}"


def test_readme_quick_start_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text


def test_readme_is_a_front_door() -> None:
    """Short, and linking into the site for the rest."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 260
    for page in ("getting-started", "games/index", "environments", "agents", "training",
                 "tournaments", "benchmarks", "architecture", "api"):
        assert f"docs/{page}.md" in text, page


def test_readme_links_point_at_files_of_the_checkout() -> None:
    """The README is read on its own (GitHub, PyPI), outside the site's link checks."""
    text = README.read_text(encoding="utf-8")
    links = [m for m in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in m]
    assert len(links) >= 15
    missing = [m for m in links if not (ROOT / m.split("#")[0]).exists()]
    assert not missing, missing
