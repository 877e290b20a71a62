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

This leans on numba's cache classes (``numba.core.caching``), internal API: pyproject.toml
pins numba to the tested range.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, overload

import numba
from numba.core.caching import CompileResultCacheImpl, FunctionCache

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


class DigestCache(FunctionCache):
    """numba's FunctionCache of a kernel, stamped with the digest of the batch sources."""

    _impl_class = _DigestCacheImpl


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
