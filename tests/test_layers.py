"""The import graph: the engine is a DAG at the bottom, and no module cycle anywhere.

Imports are read from the source with ``ast`` (also those inside functions and under
``TYPE_CHECKING``: a lazy import that closes a cycle is still a cycle of the design).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# package -> its folder in the repository (pyproject.toml's package-dir mapping)
PACKAGES = {"uno_env": "uno_env", **tomllib.loads((ROOT / "pyproject.toml").read_text())
            ["tool"]["setuptools"]["package-dir"]}


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
    """``agents``, ``training``, ``tournament``, ``configs`` (``uno_env.agents...``), else
    ``uno_env``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and f"uno_env.{parts[1]}" in PACKAGES else "uno_env"


# configs (data) <- uno_env <- agents <- training, tournament (docs/architecture.md, The
# layers): a module imports its own layer and the layers of lower rank; training and
# tournament, of equal rank, do not import each other.
RANK = {"configs": -1, "uno_env": 0, "agents": 1, "training": 2, "tournament": 2}


def _allowed(importer: str, target: str) -> bool:
    a, b = _layer(importer), _layer(target)
    return a == b or RANK[b] < RANK[a]


def test_layers_import_only_downwards() -> None:
    assert set(RANK) == {_layer(p) for p in PACKAGES}  # every package has its place
    for m in MODULES:
        bad = {i for i in imports_of(m) if not _allowed(m, i)}
        assert not bad, f"{m} imports {sorted(bad)}"
    assert _layer("uno_env.agents.rule") == "agents" and _layer("uno_env.aec") == "uno_env"
    assert "uno_env.agents" in imports_of("uno_env.training.selfplay.opponents")
    assert not _allowed("uno_env.agents", "uno_env.training.cli")
    assert not _allowed("uno_env.tournament.pool", "uno_env.training.cli")


# Imports by name in a string: an entry point ("module:attr"), a module for importlib or
# ``python -m``, a package for importlib.resources.
STRING_IMPORT = re.compile(r"uno_env(\.\w+)+(:\w+)?")

# The string imports that point upward, each a registration the package makes without
# importing its target (the layer above is loaded only when the registration is used): the
# Gymnasium ids and the ``uno-env`` subcommands. Listed one by one, so that a new upward
# reference is a decision (docs/architecture.md, Import paths).
UPWARD = {
    ("uno_env", "uno_env.training.single_agent:SingleAgentEnv"),
    ("uno_env", "uno_env.training.vector_learner:make_learner_vec"),
    ("uno_env.cli", "uno_env.tournament.demo:add_parser"),
    ("uno_env.cli", "uno_env.tournament.play:add_parser"),
    ("uno_env.cli", "uno_env.tournament.replay_cli:add_parser"),
    ("uno_env.cli", "uno_env.tournament.web.server:add_parser"),
    ("uno_env.cli", "uno_env.tournament.cli:add_tournament_parser"),
    ("uno_env.cli", "uno_env.tournament.check:add_parser"),
    ("uno_env.cli", "uno_env.training.cli:add_train_parser"),
    ("uno_env.cli", "uno_env.training.cli:add_evaluate_parser"),
    ("uno_env.cli", "uno_env.training.exploit:add_parser"),
    ("uno_env.cli", "uno_env.training.benchmark:add_parser"),
    ("uno_env.cli", "uno_env.training.cli:add_expert_parser"),
}


def string_imports() -> set[tuple[str, str]]:
    """(module, target) for every string literal of a project module that names a module."""
    found = set()
    for m, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and STRING_IMPORT.fullmatch(node.value)):
                found.add((m, node.value))
    return found


def _defines(module: str, name: str) -> bool:
    """``module`` binds ``name`` at its top level (a def, class, assignment or import)."""
    for node in ast.parse(MODULES[module].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
                (a.asname or a.name) == name for a in node.names):
            return True
    return False


def test_string_imports_resolve_and_follow_the_layers() -> None:
    found = string_imports()
    for m, target in sorted(found):
        module, _, attr = target.partition(":")
        assert module in MODULES, f"{m} names {target!r}: no such module"
        assert not attr or _defines(module, attr), f"{m} names {target!r}: {module} has no {attr}"
        assert _allowed(m, module) or (m, target) in UPWARD, (
            f"{m} names {target!r}, a layer above it: import downwards, or list it in UPWARD")
    assert found >= UPWARD, f"listed but gone: {sorted(UPWARD - found)}"
    # what the scan sees: the Gymnasium entry points, the CLI's table, importlib and -m
    assert {("uno_env.agents", "uno_env.agents.ppo"), ("uno_env.shipped", "uno_env.configs"),
            ("uno_env.tournament.players", "uno_env.tournament.host")} <= found
    assert not _defines("uno_env.cli", "no_such_function")


def test_import_rules_loads_no_pettingzoo_and_registers_the_gym_ids() -> None:
    """The engine's modules import neither library (the import graph above); the package
    imports Gymnasium only to register its ids on import (as ale_py does), never PettingZoo."""
    code = ("import sys, uno_env.rules, uno_env.variants; "
            "s = uno_env.rules.State(uno_env.rules.Game('flip', 3), seed=1); "
            "import gymnasium; print('pettingzoo' in sys.modules, "
            "'uno_env.aec' in sys.modules, 'uno_env/UNO-v1' in gymnasium.registry)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=60)
    assert out.stdout.split() == ["False", "False", "True"], out.stdout + out.stderr


def test_env_is_the_function_and_the_package_a_plain_module() -> None:
    """The env module is ``uno_env.aec``: no submodule shadows the function ``uno_env.env``,
    so the package is a plain module (no module-class swap)."""
    assert not any(p.stem == "env" for p in (ROOT / "uno_env").iterdir())
    code = ("import types, uno_env.aec, uno_env; from uno_env.aec import raw_env; "
            "e = uno_env.env('classic', 2); print(type(e).__name__, "
            "uno_env.raw_env is raw_env, uno_env.env is uno_env.aec.env, "
            "type(uno_env) is types.ModuleType, uno_env.GYM_ID)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=60)
    assert out.stdout.split() == ["OrderEnforcingWrapper", "True", "True", "True",
                                  "uno_env/UNO-v1"], out.stdout + out.stderr
