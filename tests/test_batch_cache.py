"""The numba cache is dropped when any source the kernels read changes."""

from __future__ import annotations

from pathlib import Path

import uno_env
from uno_env.batch import cache


def _touch(d: Path, *names: str) -> None:
    for n in names:
        (d / n).write_bytes(b"x")


def test_changed_sources_drop_cached_kernels(tmp_path: Path) -> None:
    _touch(tmp_path, "play.apply-1.py311.nbi", "play.apply-1.py311.1.nbc", "keep.txt")
    assert cache.refresh(tmp_path)  # no stamp: kernels of unknown sources are dropped
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]  # and nothing written
    assert not cache.refresh(tmp_path)
    cache.mark(tmp_path)  # nothing compiled yet: still nothing written
    assert not (tmp_path / cache.STAMP).exists()
    _touch(tmp_path, "step.step_kernel-9.py311.nbi")
    cache.mark(tmp_path)  # compiled now: stamped with the current sources
    assert (tmp_path / cache.STAMP).read_text() == cache.sources_digest()
    assert not cache.refresh(tmp_path)  # same sources: the cache stays
    assert (tmp_path / "step.step_kernel-9.py311.nbi").exists()
    (tmp_path / cache.STAMP).write_text("an older digest")
    assert cache.refresh(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_a_vector_env_stamps_the_kernels_it_compiled() -> None:
    v = uno_env.vector_env("classic", 2, 2)
    v.reset(seed=0)
    stamp = cache.HERE / "__pycache__" / cache.STAMP
    assert stamp.read_text() == cache.sources_digest()


def test_the_digest_covers_the_batch_modules_and_the_codes() -> None:
    names = {p.name for p in cache.SOURCES}
    assert {"step.py", "legal.py", "play.py", "codes.py"} <= names
