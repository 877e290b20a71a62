"""Every Python snippet of the README's "Using uno-env with ..." section runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
NEEDS = {"ray": "ray.rllib", "tianshou": "tianshou", "supersuit": "supersuit"}


def _snippets() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Using uno-env with")
    end = text.index("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def test_the_section_has_a_snippet_for_each_library() -> None:
    joined = "\n".join(_snippets())
    for name in ("gymnasium", "sb3_contrib", "stable_baselines3", "supersuit",
                 "turn_based_aec_to_parallel", "ray.rllib", "tianshou", "SyncVectorEnv"):
        assert name in joined, name


@pytest.mark.parametrize("index", range(len(_snippets())))
def test_readme_snippet_runs(index: int) -> None:
    code = _snippets()[index]
    for word, module in NEEDS.items():
        if re.search(rf"^(from|import) {word}\b", code, flags=re.M):
            pytest.importorskip(module)
    exec(compile(code, f"README snippet {index}", "exec"), {"__name__": "readme_snippet"})
