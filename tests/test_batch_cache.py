"""The numba cache is dropped when any source the kernels read changes."""

from __future__ import annotations

from pathlib import Path

from uno_env.batch import cache


def test_changed_sources_drop_cached_kernels(tmp_path: Path) -> None:
    (tmp_path / "play.apply-1.py311.nbi").write_bytes(b"x")
    (tmp_path / "play.apply-1.py311.1.nbc").write_bytes(b"x")
    (tmp_path / "keep.txt").write_text("x")
    assert cache.refresh(tmp_path)  # no stamp yet: unknown sources, dropped
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", cache.STAMP]
    (tmp_path / "step.step_kernel-9.py311.nbi").write_bytes(b"x")
    assert not cache.refresh(tmp_path)  # same sources: the cache stays
    assert (tmp_path / "step.step_kernel-9.py311.nbi").exists()
    (tmp_path / cache.STAMP).write_text("an older digest")
    assert cache.refresh(tmp_path)
    assert not (tmp_path / "step.step_kernel-9.py311.nbi").exists()
    assert (tmp_path / cache.STAMP).read_text() == cache.sources_digest()


def test_the_digest_covers_the_batch_modules_and_the_codes() -> None:
    names = {p.name for p in cache.SOURCES}
    assert {"step.py", "legal.py", "play.py", "codes.py"} <= names
