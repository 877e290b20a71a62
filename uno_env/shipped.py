"""The YAML configs shipped with the package, found by name or by path.

They live in ``configs/train/`` and ``configs/tournament/`` of the repository and install as
the data package ``uno_env.configs``, so that ``uno-env train classic_selfplay`` works from a
wheel as well as from the checkout (where ``uno_env/configs`` links to ``configs``).
"""

from __future__ import annotations

import importlib
from pathlib import Path

KINDS = ("train", "tournament", "benchmark")
SUFFIXES = (".yaml", ".yml")


def config_dir(kind: str) -> Path:
    """The folder of the shipped configs of ``kind`` (``train`` or ``tournament``)."""
    if kind not in KINDS:
        raise ValueError(f"config kind {kind!r}; allowed: {', '.join(KINDS)}")
    package = importlib.import_module("uno_env.configs")
    folder = Path(str(package.__file__)).parent / kind
    if not folder.is_dir():
        raise FileNotFoundError(f"no shipped {kind} configs: {folder} is not a folder")
    return folder


def shipped_configs(kind: str) -> dict[str, Path]:
    """Name (the file's stem) -> path of every shipped config of ``kind``, sorted by name."""
    paths = (p for p in config_dir(kind).iterdir() if p.suffix in SUFFIXES)
    return {p.stem: p for p in sorted(paths)}


def find_config(kind: str, spec: str | Path) -> Path:
    """``spec`` as a path when that file exists, else the shipped config of that name
    (``classic_selfplay`` or ``classic_selfplay.yaml``). Anything else: a ValueError that
    lists the shipped names."""
    path = Path(spec)
    if path.is_file():
        return path
    shipped = shipped_configs(kind)
    name = path.stem if path.suffix in SUFFIXES else path.name
    if path.parent == Path(".") and name in shipped:
        return shipped[name]
    raise ValueError(f"{kind} config {str(spec)!r}: no such file and no shipped config of "
                     f"that name; shipped: {', '.join(shipped) or 'none'} "
                     f"(uno-env {kind} --list)")


def describe(path: Path) -> str:
    """The first comment line of a config that is not a command line: what it is for."""
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text.startswith("#"):
            if text:
                break
            continue
        text = text.lstrip("#").strip()
        if text and not text.startswith("uno-env "):
            return text
    return ""


def format_list(kind: str) -> str:
    """The shipped configs of ``kind``, one a line: name and what it is for."""
    shipped = shipped_configs(kind)
    width = max((len(n) for n in shipped), default=0)
    return "\n".join(f"{name:<{width}}  {describe(path)}" for name, path in shipped.items())
