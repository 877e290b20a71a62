"""Keep numba's on-disk kernel cache true to the sources.

numba checks a cached kernel only against the timestamp of the file that defines it, yet
our kernels inline rule functions from the other batch modules and freeze constants from
``uno_env/rules/codes.py``. After an edit or a branch switch a kernel could load with stale
inlined code (seen as heap corruption). So on import we hash every source the kernels read
and, when the hash changed, delete the cached ``*.nbi``/``*.nbc`` files beside them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCES = sorted(HERE.glob("*.py")) + [HERE.parent / "rules" / "codes.py"]
STAMP = "sources.sha256"


def sources_digest() -> str:
    h = hashlib.sha256()
    for p in SOURCES:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _cached(cache_dir: Path) -> list[Path]:
    return [*cache_dir.glob("*.nbi"), *cache_dir.glob("*.nbc")]


def refresh(cache_dir: Path = HERE / "__pycache__") -> bool:
    """Drop the cached kernels in ``cache_dir`` unless a stamp says they were compiled from
    the sources as they are now; True when files were dropped. Nothing is written here (a
    file left in an installed package's folder would outlive ``pip uninstall``); ``mark``
    writes the stamp once kernels were compiled. A read-only install is left alone."""
    stamp = cache_dir / STAMP
    try:
        if stamp.read_text() == sources_digest():
            return False
    except OSError:
        pass
    dropped = False
    try:
        for f in _cached(cache_dir):
            f.unlink()
            dropped = True
        stamp.unlink(missing_ok=True)
    except OSError:
        pass
    return dropped


def mark(cache_dir: Path = HERE / "__pycache__") -> None:
    """Record that the cached kernels match the sources (after compiling them)."""
    stamp = cache_dir / STAMP
    try:
        if cache_dir.is_dir() and _cached(cache_dir) and not stamp.exists():
            stamp.write_text(sources_digest())
    except OSError:
        pass


class EntryPoints:
    """Kernels called through their compiled entry point for the argument types of the
    first call, looked up once: numba's per-call type dispatch over a batch state's many
    arrays costs microseconds a call, several calls a step (the buffers' types never
    change)."""

    def __init__(self) -> None:
        self._fns: dict[Any, Any] = {}

    def run(self, kernel: Any, *args: Any) -> Any:
        fn = self._fns.get(kernel)
        if fn is None:
            fn = self._fns[kernel] = kernel.compile(tuple(kernel.typeof_pyval(x) for x in args))
            mark()
        return fn(*args)

    def clear(self) -> None:
        self._fns.clear()
