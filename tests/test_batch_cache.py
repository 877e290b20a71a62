"""The numba cache of the batch kernels is checked against every source they read."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
from pathlib import Path
from types import ModuleType

import numba
import pytest

import uno_env.batch
from uno_env.batch import cache

KERNEL = '''
from uno_env.batch.cache import njit


@njit(cache=True)
def add_one(x):
    return x + 1
'''


def _load(path: Path, name: str) -> ModuleType:
    """A fresh module (and so fresh dispatchers) from ``path``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_cache_written_from_other_sources_is_not_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "kernel_probe.py"
    path.write_text(KERNEL)
    first = _load(path, "kernel_probe_1")
    assert first.add_one(1) == 2 and first.add_one.stats.cache_misses
    index = [p.name for p in (tmp_path / "__pycache__").glob("*.nbi")]
    assert index and all(p.startswith("kernel_probe.add_one") for p in index)
    again = _load(path, "kernel_probe_2")
    assert again.add_one(1) == 2 and again.add_one.stats.cache_hits  # same sources: loaded
    monkeypatch.setattr(cache, "DIGEST", "the digest of other batch sources")
    other = _load(path, "kernel_probe_3")
    assert other.add_one(1) == 2
    assert other.add_one.stats.cache_misses and not other.add_one.stats.cache_hits
    assert [p.name for p in (tmp_path / "__pycache__").glob("*.nbi")] == index  # overwritten


def test_every_batch_kernel_uses_the_stamped_cache() -> None:
    """Declared with uno_env.batch.cache.njit, never numba's own (its cache would check only
    the file that defines the kernel)."""
    for path in cache.HERE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "numba":
                assert "njit" not in {a.name for a in node.names}, path.name
            if isinstance(node, ast.Attribute) and node.attr in ("njit", "jit"):
                assert path.name == "cache.py", f"{path.name}: numba.{node.attr}"
    kernels = []
    for info in pkgutil.iter_modules(uno_env.batch.__path__, "uno_env.batch."):
        if info.name.startswith("uno_env.batch.bench"):  # scripts (SB3, RLCard)
            continue
        module = importlib.import_module(info.name)
        kernels += [v for v in vars(module).values()
                    if isinstance(v, numba.core.registry.CPUDispatcher)]
    assert len(kernels) > 50
    assert all(isinstance(k._cache, cache.DigestCache) for k in kernels)
    stamp = kernels[0]._cache._impl.locator.get_source_stamp()
    assert stamp[1] == cache.DIGEST


def test_the_digest_covers_the_batch_modules_and_the_codes() -> None:
    names = {p.name for p in cache.SOURCES}
    assert {"step.py", "legal.py", "play.py", "codes.py"} <= names
    assert cache.sources_digest() == cache.DIGEST
    with pytest.raises(TypeError, match="keyword options only"):
        cache.njit(abs, error_model="numpy")  # numba.njit(fn, **options) is not ours
