"""Packaging: one import namespace (``uno_env``) and a wheel that stands on its own.

The fast tests read the source; ``test_wheel_in_a_fresh_venv`` (marker ``wheel``, deselect
with ``-m "not wheel"``) builds the wheel from a copy of the checkout, installs it with the
training and tournament extras into a new virtualenv and uses it from outside the checkout.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import uno_env
from uno_env.cli import main as uno_main
from uno_env.shipped import KINDS, find_config, shipped_configs

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
TOPS = ("agents", "training", "tournament")
# modules that need an extra the wheel test does not install (web, ray, bench, integrations,
# openspiel)
OPTIONAL = {"fastapi", "starlette", "pydantic", "uvicorn", "playwright", "httpx", "httpx2",
            "ray", "rlcard", "tianshou", "supersuit", "pyspiel", "open_spiel", "shimmy",
            "torchrl", "tensordict"}
# what is not the project's source: virtualenvs, caches, and (at the top) run outputs
SKIP = {".venv", ".git", "build", "dist", "node_modules", "__pycache__", ".mypy_cache",
        ".ruff_cache", ".hypothesis", ".pytest_cache"}
SKIP_TOP = {"runs", "results", "out", "tournaments"}


def _skipped(folder: str, names: list[str]) -> set[str]:
    top = Path(folder).resolve() == ROOT
    return {n for n in names if n in SKIP or n.endswith(".egg-info") or (top and n in SKIP_TOP)}


def _folder(package: str) -> Path:
    """The repository folder of ``package`` by pyproject's package-dir mapping."""
    mapping = SETUPTOOLS["package-dir"]
    parts = package.split(".")
    for i in range(len(parts), 0, -1):
        head = ".".join(parts[:i])
        if head in mapping:
            return ROOT / mapping[head] / Path(*parts[i:])
    return ROOT / Path(*parts)


def _source_modules() -> list[str]:
    """Every module of every listed package (public ones: no ``_`` name, no ``__main__``)."""
    out = []
    for package in SETUPTOOLS["packages"]:
        folder = _folder(package)
        if (folder / "__init__.py").exists():
            out.append(package)
        out += [f"{package}.{p.stem}" for p in sorted(folder.glob("*.py"))
                if not p.stem.startswith("_")]
    return out


def test_every_code_package_is_listed_and_mapped() -> None:
    listed = set(SETUPTOOLS["packages"])
    found = set()
    for package in [p for p in listed if p.count(".") <= 1]:
        folder = _folder(package)
        for init in folder.rglob("__init__.py"):  # rglob does not follow the links
            rel = init.parent.relative_to(folder).parts
            found.add(".".join((package, *rel)))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert all(_folder(p).is_dir() for p in listed)
    assert all(p == "uno_env" or p.startswith("uno_env.") for p in listed)
    # the links that give the same names in the checkout point where the mapping does
    for package, folder in SETUPTOOLS["package-dir"].items():
        link = ROOT / Path(*package.split("."))
        assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve(), link


def _repo_files(suffixes: set[str]) -> list[Path]:
    """The project's files (no virtualenv, caches or run outputs; links not followed)."""
    out = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(set(dirs) - _skipped(folder, dirs))
        out += [Path(folder) / f for f in sorted(files) if Path(f).suffix in suffixes]
    return out


def test_no_code_or_doc_names_a_bare_top_level_package() -> None:
    subs = {top: sorted({m.split(".")[2] for m in _source_modules()
                         if m.startswith(f"uno_env.{top}.")}) for top in TOPS}
    dotted = re.compile(r"(?<![\w./-])(" + "|".join(
        f"{top}\\.(?:{'|'.join(names)})\\b" for top, names in subs.items()) + ")")
    importing = re.compile(rf"^\s*(from|import)\s+({'|'.join(TOPS)})\b", re.M)
    bad = []
    for path in _repo_files({".py", ".md", ".yaml", ".yml"}):
        rel = path.relative_to(ROOT)
        if rel == Path("tests/test_import_names.py"):  # imports the bare names to see them fail
            continue
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(text)):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom)
                         and not node.level else [])
                bad += [f"{rel}:{node.lineno}: import {n}" for n in names
                        if n.split(".")[0] in TOPS]
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    bad += [f"{rel}:{node.lineno}: {m}" for m in dotted.findall(node.value)]
        else:
            bad += [f"{rel}: {m.group(0).strip()}" for m in importing.finditer(text)]
            bad += [f"{rel}: {m}" for m in dotted.findall(text)]
    assert bad == []


def test_one_version_source() -> None:
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert SETUPTOOLS["dynamic"]["version"] == {"attr": "uno_env.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", uno_env.__version__)
    assert PYPROJECT["project"]["readme"] == "README.md"


def test_shipped_configs_by_name_or_path(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    for kind in KINDS:
        shipped = shipped_configs(kind)
        on_disk = sorted(p.stem for p in (ROOT / "configs" / kind).glob("*.yaml"))
        assert sorted(shipped) == on_disk and on_disk
        for name, path in shipped.items():
            assert find_config(kind, name) == path == find_config(kind, f"{name}.yaml")
    own = tmp_path / "classic_selfplay.yaml"  # a file of that name wins over the shipped one
    own.write_text("trainer: selfplay\n")
    assert find_config("train", own) == own
    with pytest.raises(ValueError, match="classic_selfplay.*smoke|no such file"):
        find_config("tournament", "no_such_config")
    with pytest.raises(ValueError, match="no shipped config"):
        find_config("train", "somewhere/classic_selfplay.yaml")  # a path that is not there
    assert uno_main(["train", "--list"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in shipped_configs("train"))
    assert "self-play" in listing.lower()
    assert uno_main(["tournament", "--list"]) == 0
    assert "classic_2p" in capsys.readouterr().out
    assert uno_main(["train", "no_such_config"]) == 2
    assert "classic_selfplay" in capsys.readouterr().err


# --- the wheel ------------------------------------------------------------------------------
def _run(cmd: list[str], cwd: Path, timeout: int = 900, check: bool = True,
         ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}  # nothing of the checkout
    env["PATH"] = f"{Path(cmd[0]).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and out.returncode != 0:
        raise AssertionError(f"{cmd} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    return out


def _copy_checkout(dest: Path) -> None:
    """The files git tracks plus the untracked ones it does not ignore (links kept); without
    git, the tree less virtualenvs, caches and run outputs."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True) if shutil.which("git") else None
    if listed is None or listed.returncode != 0:
        shutil.copytree(ROOT, dest, symlinks=True, ignore=_skipped)
        return
    for name in filter(None, listed.stdout.decode().split("\0")):
        src, dst = ROOT / name, dest / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            dst.symlink_to(src.readlink())
        elif src.is_file():
            shutil.copy2(src, dst)


IMPORT_ALL = """
import importlib, sys
failed, optional = [], []
for name in sys.argv[2].split(","):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as err:
        (optional if err.name.split(".")[0] in sys.argv[1].split(",") else failed).append(
            f"{name}: {err}")
    except Exception as err:
        failed.append(f"{name}: {type(err).__name__}: {err}")
from uno_env import agents
a = agents.load("ppo:classic", **agents.trained_options("ppo:classic"))
print("FAILED", failed, "OPTIONAL", optional, type(a).__name__)
"""


@pytest.mark.wheel
@pytest.mark.timeout(1800)
def test_wheel_in_a_fresh_venv(tmp_path: Path) -> None:
    src, dist, work = tmp_path / "src", tmp_path / "dist", tmp_path / "work"
    work.mkdir()
    _copy_checkout(src)
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-q", "-w", str(dist)],
         cwd=work)
    (wheel,) = dist.glob("uno_env-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(f"uno_env-{uno_env.__version__}.dist-info/METADATA").decode()
    assert {n.split("/")[0] for n in names} == {"uno_env", f"uno_env-{uno_env.__version__}"
                                                ".dist-info"}
    for package in SETUPTOOLS["packages"]:
        if (_folder(package) / "__init__.py").exists():
            assert f"{package.replace('.', '/')}/py.typed" in names, package
    for folder, pattern in [("agents/checkpoints", "*.pt"), ("configs/train", "*.yaml"),
                            ("configs/tournament", "*.yaml"), ("configs/benchmark", "*.yaml"),
                            ("tournament/web/static", "*")]:
        for path in (ROOT / folder).glob(pattern):
            assert f"uno_env/{folder}/{path.name}" in names
    assert "Description-Content-Type: text/markdown" in meta and "# uno-env" in meta
    assert f"Version: {uno_env.__version__}" in meta

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py, bindir = env_dir / "bin" / "python", env_dir / "bin"
    pip = [str(py), "-m", "pip", "install", "-q", "--no-compile"]
    _run([*pip, "torch==2.13.0"], cwd=work)  # first, as the Makefile does: the CPU wheel
    _run([*pip, f"{wheel}[train,tournament]"], cwd=work)

    demo = _run([str(bindir / "uno-env"), "demo", "--games", "20"], cwd=work).stdout
    assert "ppo:classic" in demo and "uno-env tournament classic_2p" in demo
    out = _run([str(py), "-c", IMPORT_ALL, ",".join(sorted(OPTIONAL)),
                ",".join(_source_modules())], cwd=work).stdout
    assert "FAILED [] OPTIONAL" in out and out.strip().endswith("PPOAgent"), out
    for top in TOPS:
        gone = _run([str(py), "-c", f"import {top}"], cwd=work, check=False)
        assert gone.returncode != 0 and f"No module named '{top}'" in gone.stderr
    listing = _run([str(bindir / "uno-env"), "train", "--list"], cwd=work).stdout
    assert "classic_selfplay" in listing
    # the shipped config is found by name and read (the unknown key stops it before training)
    bad = _run([str(bindir / "uno-env"), "train", "classic_selfplay", "--set", "nope=1"],
               cwd=work, check=False)
    assert bad.returncode == 2 and "nope" in bad.stderr, bad.stderr
    _run([str(bindir / "uno-env"), "tournament", "smoke", "--workers", "1", "--games", "4",
          "--no-replay-pages", "--out", str(work / "t")], cwd=work)
    assert (work / "t" / "results.json").is_file()

    # an editable install of the copy resolves the namespaced packages from that copy
    _run([*pip, "--no-deps", "-e", str(src)], cwd=work)
    where = _run([str(py), "-c", "import uno_env.agents, uno_env.training.selfplay, "
                  "uno_env.tournament.web, uno_env.shipped as s; print(uno_env.agents.__file__,"
                  " uno_env.training.selfplay.__file__, s.config_dir('train'))"], cwd=work)
    for path in where.stdout.split():
        assert Path(path).resolve().is_relative_to(src.resolve()), where.stdout
    # in the copy, its folders refuse their top-level names (tests/test_import_names.py)
    for top in TOPS:
        two = _run([str(py), "-c", f"import {top}"], cwd=src, check=False)
        assert two.returncode != 0 and f"package uno_env.{top}" in two.stderr, two.stderr
