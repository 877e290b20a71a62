"""Every Python code block of README.md and of every page under docs/ runs as written.

The blocks of one page run in order in one namespace, as a reader would type them. A block
is left out only when it is not Python (bash, json, text, a MyST directive) or when the line
right above its fence says so, with the reason: ``<!-- no-test: needs a GPU -->``.
Blocks that import an optional library (ray, tianshou, supersuit) are skipped, saying so,
where that library is not installed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from uno_env.docs import doc_pages

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
NO_TEST = re.compile(r"^\s*<!-- no-test: \S.* -->\s*$")
PYTHON = {"python", "py", "python3"}
NEEDS = {"ray": "ray.rllib", "tianshou": "tianshou", "supersuit": "supersuit"}


def code_blocks(text: str) -> list[tuple[int, str, str, bool]]:
    """``(line, language, code, marked no-test)`` of every fenced block (lines from 1)."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = m["indent"], m["fence"]
        lang = m["info"].strip().split(" ")[0] if m["info"].strip() else ""
        marked = i > 0 and bool(NO_TEST.match(lines[i - 1]))
        body = []
        j = i + 1
        while j < len(lines) and not (lines[j].startswith(indent + fence[0] * len(fence))
                                      and lines[j].strip() == fence[0] * len(fence)):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        out.append((i + 1, lang, "\n".join(body) + "\n", marked))
        i = j + 1
    return out


PAGES = doc_pages(ROOT)


def python_blocks(page: Path) -> list[tuple[int, str, str, bool]]:
    """The blocks of ``page`` that run: Python and not marked no-test."""
    return [b for b in code_blocks(page.read_text(encoding="utf-8"))
            if b[1] in PYTHON and not b[3]]


RUNNABLE = [p for p in PAGES if python_blocks(p)]


def test_the_pages_are_found_and_have_python_blocks() -> None:
    """A guard on the scan: the README and the main pages are read and hold Python."""
    names = {str(p.relative_to(ROOT)) for p in PAGES}
    assert {"README.md", "docs/environments.md", "docs/games/classic.md"} <= names
    assert len(RUNNABLE) >= 5


def test_the_fence_scanner() -> None:
    text = ("x\n```python\na = 1\n```\n<!-- no-test: shows an error -->\n```python\nboom\n```\n"
            "- item\n\n  ```bash\n  make test\n  ```\n````{note}\n```python\nb\n```\n````\n")
    blocks = code_blocks(text)
    assert [(b[1], b[3]) for b in blocks] == [("python", False), ("python", True),
                                               ("bash", False), ("{note}", False)]
    assert blocks[0][2] == "a = 1\n" and blocks[2][2] == "make test\n"


@pytest.mark.parametrize("page", RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in RUNNABLE])
def test_page_code_blocks_run(page: Path) -> None:
    blocks = python_blocks(page)
    for _, _, code, _ in blocks:
        for word, module in NEEDS.items():
            if re.search(rf"^(from|import) {word}\b", code, flags=re.M):
                pytest.importorskip(module)
    namespace: dict[str, object] = {"__name__": "docs_snippet"}
    rel = page.relative_to(ROOT)
    for line, _, code, _ in blocks:
        exec(compile(code, f"{rel}, the block at line {line}", "exec"), namespace)


def test_the_integrations_section_has_a_snippet_for_each_library() -> None:
    text = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    start = text.index("## Using uno-env with other libraries")
    section = text[start:text.index("\n## ", start + 1)]
    joined = "\n".join(b[2] for b in code_blocks(section) if b[1] in PYTHON)
    for name in ("gymnasium", "sb3_contrib", "stable_baselines3", "supersuit",
                 "turn_based_aec_to_parallel", "ray.rllib", "tianshou", "SyncVectorEnv"):
        assert name in joined, name
