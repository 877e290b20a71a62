"""numba's on-disk kernel cache, checked against every source the kernels read.

numba stamps a cached kernel with the contents of the one file that defines it, yet our
kernels inline rule functions from the other batch modules and freeze constants from
``uno_env/rules/codes.py``: after an edit or a branch switch a kernel could load with stale
inlined code (seen as heap corruption). So every kernel of ``uno_env.batch`` is declared with
this module's :func:`njit`, whose cache adds :data:`DIGEST` (a hash of all those sources) to
numba's source stamp: a cache written from other sources no longer matches and the kernel
is compiled again, its index and data files overwritten in place, as numba does for an edited
file. Nothing is deleted, no environment variable or numba setting is touched, and
importing a module does nothing but read the sources (a process's cache folder stays what
numba chooses: ``__pycache__`` beside the sources, or ``NUMBA_CACHE_DIR`` when the program
running it sets one).

Several processes may fill one cache at once (the trainer's rollout workers compile the same
kernels side by side). numba's own index update is a read-modify-write with no lock and
numbers new data files from what it read, so two processes saving two signatures of one
kernel at the same moment took the same number: the index then sent one signature to the
other's data file, and a later process "loaded" an overload for the wrong types (a worker
failed typing ``opponent_clear`` for plain arrays with only its borrowed-ref overload), or
lost entries. :class:`DigestCache` writes each entry under an exclusive ``flock`` of the
cache folder (data file first, then the index), and stores the key in the data file: an
entry whose file holds another key is a miss, compiled again.

This leans on numba's cache classes (``numba.core.caching``), internal API: pyproject.toml
pins numba to the tested range.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, overload

import numba
from numba.core.caching import CompileResultCacheImpl, FunctionCache, IndexDataCacheFile

try:
    import fcntl
except ImportError:  # Windows: no lock; the key check still refuses another key's file
    fcntl = None  # type: ignore[assignment]

HERE = Path(__file__).resolve().parent
SOURCES = sorted(HERE.glob("*.py")) + [HERE.parent / "rules" / "codes.py"]


def sources_digest() -> str:
    h = hashlib.sha256()
    for p in SOURCES:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


F = TypeVar("F", bound=Callable[..., Any])
DIGEST = sources_digest()
"""The sources the kernels read, as they were when this process imported them."""


def _with_digest(locator: Any) -> Any:
    """``locator`` (one of numba's: in-tree, NUMBA_CACHE_DIR, user-wide, ...) with
    :data:`DIGEST` in its source stamp; the cache folder it picks is unchanged."""

    def get_source_stamp(self: Any) -> Any:
        return (locator.get_source_stamp(self), DIGEST)

    return type(f"Digest{locator.__name__}", (locator,), {"get_source_stamp": get_source_stamp})


class _DigestCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_with_digest(c) for c in CompileResultCacheImpl._locator_classes]


@contextlib.contextmanager
def _folder_lock(folder: str) -> Iterator[None]:
    """An exclusive ``flock`` of ``folder`` (held by one process at a time; no file made)."""
    if fcntl is None:
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        # a file system without locks (some network ones): saved unlocked, the key check
        with contextlib.suppress(OSError):  # still refuses another key's file
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


class _KeyedCacheFile(IndexDataCacheFile):
    """numba's index and data files, safe for several processes (module docstring): saved
    under the folder's lock, the data before the index entry that names it, each data file
    holding its key (named ``<kernel>.k<n>.nbc``: never a file of numba's own format, which
    a process of an older version may still read)."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: Any) -> None:
        super().__init__(cache_path, filename_base, source_stamp)
        self._data_name_pattern = f"{filename_base}.k{{number:d}}.nbc"

    def save(self, key: Any, data: Any) -> None:
        with _folder_lock(self._cache_path):
            overloads = self._load_index()
            name = overloads.get(key)
            if name is None:
                taken = set(overloads.values())
                name = next(n for n in map(self._data_name, itertools.count(1))
                            if n not in taken)
            self._save_data(name, (key, data))
            if overloads.get(key) != name:
                overloads[key] = name
                self._save_index(overloads)

    def load(self, key: Any) -> Any:
        name = self._load_index().get(key)
        if name is None:
            return None
        try:
            stored = self._load_data(name)
        except OSError:  # removed since the index named it
            return None
        if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key):
            return None  # another key's data (or numba's own format): compile again
        return stored[1]


class DigestCache(FunctionCache):
    """numba's FunctionCache of a kernel, stamped with the digest of the batch sources and
    safe to fill from several processes at once."""

    _impl_class = _DigestCacheImpl

    def __init__(self, py_func: Callable[..., Any]) -> None:
        super().__init__(py_func)
        self._cache_file = _KeyedCacheFile(
            cache_path=self._cache_path, filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp())


@overload
def njit(fn: F, /) -> F: ...
@overload
def njit(**options: Any) -> Callable[[F], F]: ...
def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` for the batch kernels: with ``cache=True`` the cache is
    :class:`DigestCache` (the module docstring says why). Use it as ``@njit(...)`` or ``@njit``."""
    cache = options.pop("cache", False)

    def wrap(fn: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(**options)(fn)
        if cache:  # what numba's own enable_caching does, with the stamped cache
            dispatcher._cache = DigestCache(dispatcher.py_func)
        return dispatcher

    if args:
        if len(args) != 1 or not callable(args[0]) or options:
            raise TypeError("njit takes keyword options only, or the one function it compiles")
        return wrap(args[0])
    return wrap


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
        return fn(*args)

    def clear(self) -> None:
        self._fns.clear()
