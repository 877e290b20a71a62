"""The numba cache of the batch kernels is checked against every source they read."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import sys
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


SIGNATURES = ("int64", "float64", "int32", "float32")
SAVE_AT_ONCE = '''
import sys, threading
import numba
from numba.core import caching


def run(folder, sig, shared):
    """Compile one signature; every process reads the index, then all write at once (a
    process that cannot reach the meeting point, as under a lock, goes on after 3 s)."""
    write_index = caching.IndexDataCacheFile._save_index

    def at_once(self, overloads):
        try:
            shared.wait(3.0)
        except threading.BrokenBarrierError:
            pass
        write_index(self, overloads)
    caching.IndexDataCacheFile._save_index = at_once
    sys.path.insert(0, folder)
    import kernel_race
    kernel_race.add_one.compile((getattr(numba, sig),))
'''


def _compile_at_once(folder: Path) -> None:
    import multiprocessing as mp

    (folder / "race_driver.py").write_text(SAVE_AT_ONCE)
    sys.path.insert(0, str(folder))
    try:
        import race_driver  # type: ignore[import-not-found]
        ctx = mp.get_context("spawn")
        shared = ctx.Barrier(len(SIGNATURES))
        procs = [ctx.Process(target=race_driver.run, args=(str(folder), s, shared)) for s in SIGNATURES]
        for p in procs:
            p.start()
        for p in procs:
            p.join(300)
        assert [p.exitcode for p in procs] == [0] * len(procs)
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("race_driver", None)


def test_processes_filling_the_cache_at_once_keep_every_signature(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four processes save four signatures of one kernel at the same moment (the rollout
    workers on a cold cache): numba's own index update lost three of them and sent the
    survivors to one another's data files; here each loads its own overload afterwards."""
    (tmp_path / "kernel_race.py").write_text(KERNEL)
    _compile_at_once(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # imported under the name it was cached by
    fresh = importlib.import_module("kernel_race")
    monkeypatch.delitem(sys.modules, "kernel_race")
    for name in SIGNATURES:
        sig = (getattr(numba, name),)
        fresh.add_one.compile(sig)
        assert list(fresh.add_one.overloads)[-1] == sig, name  # its own, not another's
    assert not fresh.add_one.stats.cache_misses  # all four were kept
    assert len(fresh.add_one.stats.cache_hits) == len(SIGNATURES)


def test_an_entry_naming_another_signatures_file_is_a_miss(tmp_path: Path) -> None:
    """The index (written by a process that raced another) sends ``float64`` to the data of
    ``int64``: the kernel compiles for ``float64`` instead of taking the other overload."""
    path = tmp_path / "kernel_swap.py"
    path.write_text(KERNEL)
    first = _load(path, "kernel_swap_1")
    for t in (numba.int64, numba.float64):
        first.add_one.compile((t,))
    files = first.add_one._cache._cache_file
    index = files._load_index()
    (k_int,) = [k for k in index if k[0] == (numba.int64,)]
    (k_float,) = [k for k in index if k[0] == (numba.float64,)]
    index[k_float] = index[k_int]
    files._save_index(index)
    again = _load(path, "kernel_swap_2")
    again.add_one.compile((numba.float64,))
    assert list(again.add_one.overloads) == [(numba.float64,)]
    assert again.add_one(0.5) == 1.5
    assert again.add_one.stats.cache_misses  # compiled, not loaded from the wrong file
