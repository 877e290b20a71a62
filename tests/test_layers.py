"""The import graph: the engine is a DAG at the bottom, and no module cycle anywhere.

Imports are read from the source with ``ast`` (also those inside functions and under
``TYPE_CHECKING``: a lazy import that closes a cycle is still a cycle of the design).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# package -> its folder in the repository (pyproject.toml's package-dir mapping)
PACKAGES = {"uno_env": "uno_env", "uno_env.agents": "agents", "uno_env.training": "training",
            "uno_env.tournament": "tournament"}


def _modules() -> dict[str, Path]:
    out = {}
    for pkg, folder in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):  # rglob does not follow uno_env/agents etc.
            parts = [*pkg.split("."), *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _project(name: str) -> str | None:
    """The project module an import of ``name`` loads (its longest known prefix)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    """The project modules ``module`` imports anywhere in its source."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(filter(None, (_project(a.name) for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = package
                for _ in range(node.level - 1):
                    pkg = pkg.rpartition(".")[0]
                base = f"{pkg}.{base}" if base else pkg
            for a in node.names:
                sub = f"{base}.{a.name}"
                hit = _project(sub) if sub in MODULES else _project(base)
                if hit:
                    found.add(hit)
    found.discard(module)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_among_the_project_modules() -> None:
    graph = {m: imports_of(m) for m in MODULES}
    assert _cycles(graph) == []
    # the checker finds a cycle when there is one
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_engine_imports_only_cards_variants_and_itself() -> None:
    allowed = ("uno_env.cards", "uno_env.variants", "uno_env.rules")
    for m in MODULES:
        if m.startswith(("uno_env.rules", "uno_env.variants")):
            bad = {i for i in imports_of(m) if not i.startswith(allowed)}
            if m.startswith("uno_env.variants"):
                bad |= {i for i in imports_of(m) if i.startswith("uno_env.rules")}
            assert not bad, f"{m} imports {sorted(bad)}"
    # the codes live in one module; the action table inside the engine package
    assert "uno_env.rules.codes" in imports_of("uno_env.rules.state")
    assert imports_of("uno_env.actions") <= {"uno_env.rules.actions", "uno_env.rules.codes"}


def _layer(module: str) -> str:
    """``agents``, ``training``, ``tournament`` (``uno_env.agents...``), else ``uno_env``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and f"uno_env.{parts[1]}" in PACKAGES else "uno_env"


def test_layers_import_only_downwards() -> None:
    """uno_env <- agents <- training, tournament (docs/architecture.md, The layers)."""
    below = {"uno_env": (), "agents": ("uno_env",)}
    for m in MODULES:
        top = _layer(m)
        if top in below:
            bad = {i for i in imports_of(m) if _layer(i) not in (top, *below[top])}
            assert not bad, f"{m} imports {sorted(bad)}"
    assert _layer("uno_env.agents.rule") == "agents" and _layer("uno_env.env") == "uno_env"
    assert "uno_env.agents" in imports_of("uno_env.training.selfplay.opponents")


def test_import_rules_loads_no_pettingzoo_and_registers_the_gym_ids() -> None:
    """The engine's modules import neither library (the import graph above); the package
    imports Gymnasium only to register its ids on import (as ale_py does), never PettingZoo."""
    code = ("import sys, uno_env.rules, uno_env.variants; "
            "s = uno_env.rules.State(uno_env.rules.Game('flip', 3), seed=1); "
            "import gymnasium; print('pettingzoo' in sys.modules, "
            "'uno_env.env' in sys.modules, 'uno_env/UNO-v1' in gymnasium.registry)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=60)
    assert out.stdout.split() == ["False", "False", "True"], out.stdout + out.stderr


def test_env_stays_the_function_after_its_module_is_imported() -> None:
    code = ("import uno_env.env, uno_env; from uno_env.env import raw_env; "
            "e = uno_env.env('classic', 2); print(type(e).__name__, "
            "uno_env.raw_env is raw_env, uno_env.GYM_ID)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=60)
    assert out.stdout.split() == ["OrderEnforcingWrapper", "True", "uno_env/UNO-v1"]
