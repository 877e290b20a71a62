"""Every rule id that code, comments or tests cite is defined on a rules page of the docs.

A rule is defined by a MyST target before its heading on a page under ``docs/games/``
(``(G-uno)=``), so ``{ref}`G-uno``` links to it and a reader can look up any id met in the
code. Ids are ``G-`` (general), ``C-`` (classic), ``F-`` (Flip), ``X-`` (Flex) and ``E-``
(Express) followed by lower-case words joined by hyphens.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "docs" / "games"
CITED_IN = ("uno_env", "agents", "training", "tournament", "tests")
RULE_ID = re.compile(r"\b[GCFXE]-[a-z][a-z0-9]*(?:-[a-z0-9]+)*\b")
TARGET = re.compile(r"^\(([GCFXE]-[a-z0-9-]+)\)=$", re.M)
# the rules contract, beside the checkout (or beside the folder of git worktrees)
CONTRACTS = [ROOT.parent / "shared" / "RULES.md", ROOT.parent.parent / "shared" / "RULES.md"]


def defined() -> dict[str, Path]:
    """Rule id -> the page that defines it."""
    out: dict[str, Path] = {}
    for page in sorted(GAMES.glob("*.md")):
        for rule in TARGET.findall(page.read_text(encoding="utf-8")):
            assert rule not in out, f"{rule} is defined twice: {out[rule].name}, {page.name}"
            out[rule] = page
    return out


def cited() -> dict[str, set[str]]:
    """Rule id -> the files (relative paths) that cite it."""
    out: dict[str, set[str]] = {}
    seen: set[Path] = set()
    for top in CITED_IN:
        for path in sorted((ROOT / top).rglob("*.py")):
            real = path.resolve()  # uno_env/agents etc. are links to the top-level folders
            if real in seen or "__pycache__" in path.parts:
                continue
            seen.add(real)
            for rule in RULE_ID.findall(path.read_text(encoding="utf-8")):
                out.setdefault(rule, set()).add(str(real.relative_to(ROOT)))
    return out


def test_every_cited_rule_id_is_defined_on_a_rules_page() -> None:
    rules = defined()
    missing = {rule: sorted(files)[:3] for rule, files in cited().items() if rule not in rules}
    assert not missing, f"rule ids cited but defined on no page of docs/games/: {missing}"


def test_the_code_cites_many_rules_and_the_pages_define_them() -> None:
    """A guard on the scan itself: a broken pattern would find nothing and pass."""
    rules, uses = defined(), cited()
    assert len(rules) >= 50 and {"G-uno", "F-visibility", "X-flex-play", "E-end"} <= set(rules)
    assert len(uses) >= 40 and "uno_env/rules/effects.py" in uses["G-uno"] | uses["G-win-round"]


def test_the_pages_define_every_rule_of_the_contract() -> None:
    """The rules contract (``../shared/RULES.md``, beside the checkout) and the pages name
    the same rules."""
    found = [c for c in CONTRACTS if c.is_file()]
    if not found:
        pytest.skip(f"no rules contract at {CONTRACTS[0]}")
    text = found[0].read_text(encoding="utf-8")
    contract = set(re.findall(r"\*\*([GCFXE]-[a-z0-9-]+)\*\*", text))
    assert len(contract) >= 50
    assert contract - set(defined()) == set()
