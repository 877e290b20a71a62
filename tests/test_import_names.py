"""One import name per module: no .py file of the checkout loads as two modules.

With the checkout on ``sys.path`` (pytest, ``PYTHONPATH=.``, ``python -m`` from the root) the
folders ``agents/``, ``training/``, ``tournament/`` and ``configs/`` are reachable both as
``uno_env.agents`` (the links in ``uno_env/``, pyproject's package-dir) and as top-level
``agents``; a guard in each folder's ``__init__.py`` refuses the second name, so that
``agents.random_agent`` can never be a second module with a second ``RandomAgent`` class
(docs/architecture.md, Import paths).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# folder -> package (pyproject.toml's package-dir mapping, plus uno_env itself)
PACKAGE_DIRS = {folder: pkg for pkg, folder in tomllib.loads(
    (ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].items()}
PACKAGE_DIRS["uno_env"] = "uno_env"
# Scripts, run by their tool under one name: pytest (tests/ on sys.path), ``python FILE``,
# Sphinx (docs/conf.py). No module imports them by a dotted name.
SCRIPT_DIRS = ("tests", "examples", "docs")
# Not the checkout's sources (.gitignore): environments, builds, run outputs.
SKIP = {"build", "dist", "runs", "out", "results", "tournaments", "_build", "_autosummary",
        "__pycache__", "node_modules"}


def names_by_file() -> dict[Path, set[str]]:
    """Every dotted name under which the import system finds each .py file when the checkout
    root is on ``sys.path`` (links followed, folders without ``__init__`` included: they load
    as namespace packages)."""
    out: dict[Path, set[str]] = defaultdict(set)
    for dirpath, dirnames, filenames in os.walk(ROOT, followlinks=True):
        rel = Path(dirpath).relative_to(ROOT)
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in SKIP
                       and not d.endswith(".egg-info")]
        for f in filenames:
            if not f.endswith(".py"):
                continue
            parts = [*rel.parts, f[:-3]]
            if parts[-1] == "__init__":
                parts.pop()
            if parts and all(p.isidentifier() for p in parts):
                out[(Path(dirpath) / f).resolve()].add(".".join(parts))
    return out


NAMES = names_by_file()


def _canonical(path: Path) -> str:
    """The one name of a package module: its folder mapped by pyproject's package-dir."""
    rel = path.relative_to(ROOT)
    parts = [*PACKAGE_DIRS[rel.parts[0]].split("."), *rel.with_suffix("").parts[1:]]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top(path: Path) -> str:
    return path.relative_to(ROOT).parts[0]


def test_every_file_is_a_package_module_or_a_script() -> None:
    tops = {_top(p) for p in NAMES}
    assert tops <= {*PACKAGE_DIRS, *SCRIPT_DIRS}, (
        f"new top-level folders {sorted(tops - {*PACKAGE_DIRS, *SCRIPT_DIRS})}: map them in "
        "pyproject's package-dir (with the __init__ guard) or list them as scripts here")
    assert {"agents", "training", "tournament", "configs", "uno_env"} <= tops
    for path, names in NAMES.items():
        if _top(path) in PACKAGE_DIRS:
            ours = {n for n in names if n == "uno_env" or n.startswith("uno_env.")}
            assert ours == {_canonical(path)}, f"{path}: {sorted(ours)}"


def test_no_package_module_loads_under_a_second_name() -> None:
    """Each other name of a package module fails with an ImportError that names the right
    package, or gives the very module of its one name; a subprocess, with the checkout
    first on sys.path, tries every one."""
    others = {n: _canonical(p) for p, names in NAMES.items() if _top(p) in PACKAGE_DIRS
              for n in names if n != _canonical(p)}
    assert {"agents.random_agent", "training.selfplay.trainer", "tournament.web.server",
            "configs"} <= set(others)
    code = f"""
import importlib, json, sys
sys.path.insert(0, {str(ROOT)!r})
out = {{}}
for name, canonical in {others!r}.items():
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        out[name] = str(e)
    else:
        out[name] = module is importlib.import_module(canonical)
import uno_env.agents, uno_env.training, uno_env.tournament, uno_env.configs
print(json.dumps(out))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    for name, result in json.loads(run.stdout).items():
        package = ".".join(others[name].split(".")[:2])
        assert result is True or (isinstance(result, str) and package in result), (
            f"import {name}: {result!r}; want an ImportError naming {package}")


def test_scripts_are_not_imported_by_a_dotted_name() -> None:
    """tests/, examples/ and docs/ are run by their tools (pytest puts tests/ itself on
    sys.path: ``from conftest import ...``); ``tests.conftest`` would be a second module."""
    for path in NAMES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                mods = [node.module or ""]
            else:
                continue
            bad = [m for m in mods if m.split(".")[0] in SCRIPT_DIRS]
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_python_m_runs_a_module_by_its_one_name() -> None:
    run = subprocess.run([sys.executable, "-m", "uno_env.tournament.host", "random"],
                         input="", capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr  # served until stdin closed
    run = subprocess.run([sys.executable, "-m", "training.selfplay", "--help"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 1 and "uno_env.training" in run.stderr, run.stderr
