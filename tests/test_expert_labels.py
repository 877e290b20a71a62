"""The expert-iteration label store (docs/expert-iteration.md): round trip and clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from uno_env.training.expert.labels import (
    FIELDS,
    MANIFEST,
    LabelStore,
    check_labels,
    chunk_name,
    empty_labels,
    load,
)

META = {"variant": "classic", "players": 2, "options": {}, "env_version": "uno_classic_v1",
        "seed": 3, "iteration": 0}


def fake_labels(n: int, seed: int, obs_dim: int = 5, na: int = 4) -> dict[str, np.ndarray]:
    r = np.random.default_rng(seed)
    mask = (r.random((n, na)) < 0.6).astype(np.uint8)
    mask[:, 0] = 1
    visits = mask.astype(np.int32) * 8
    q = np.where(visits > 0, r.random((n, na)), np.nan).astype(np.float32)
    prior = mask * r.random((n, na))
    prior = (prior / prior.sum(1, keepdims=True)).astype(np.float32)
    return {"obs": r.random((n, obs_dim)).astype(np.float32), "mask": mask, "q": q,
            "visits": visits, "prior": prior, "move": np.zeros(n, np.int32),
            "game": np.arange(n, dtype=np.int64), "seat": np.ones(n, np.int16),
            "step": np.arange(n, dtype=np.int32), "samples": np.full(n, 8, np.int32)}


def test_round_trip_keeps_every_field_and_dtype(tmp_path):
    store = LabelStore(tmp_path, META)
    a, b = fake_labels(3, 0), fake_labels(2, 1)
    store.write(1, b, {"games": 4, "wins": 2})
    store.write(0, a, {"games": 4, "wins": 1})
    got = load(tmp_path)
    for k, (dt, _) in FIELDS.items():
        assert got[k].dtype == dt
        np.testing.assert_array_equal(got[k], np.concatenate([a[k], b[k]]).astype(dt))
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert [c["index"] for c in manifest["chunks"]] == [0, 1]
    assert manifest["chunks"][1] == {"index": 1, "file": chunk_name(1), "labels": 2,
                                     "games": 4, "wins": 2}
    assert not list(tmp_path.glob("*.tmp"))


def test_reopening_keeps_listed_chunks_and_refuses_another_run(tmp_path):
    LabelStore(tmp_path, META).write(0, fake_labels(2, 0))
    again = LabelStore(tmp_path, META)
    assert again.done(0) and not again.done(1)
    with pytest.raises(ValueError, match="written already"):
        again.write(0, fake_labels(2, 0))
    with pytest.raises(ValueError, match="another run.*seed"):
        LabelStore(tmp_path, {**META, "seed": 4})


def test_an_unlisted_chunk_file_is_not_loaded(tmp_path):
    """A run stopped between writing a chunk and listing it: the file is ignored."""
    store = LabelStore(tmp_path, META)
    store.write(0, fake_labels(2, 0))
    (tmp_path / chunk_name(1)).write_bytes((tmp_path / chunk_name(0)).read_bytes())
    assert len(load(tmp_path)["move"]) == 2


def test_empty_chunk_and_empty_store(tmp_path):
    with pytest.raises(ValueError, match="no chunk"):
        load(LabelStore(tmp_path, META).dir)
    LabelStore(tmp_path, META).write(0, empty_labels(5, 4))
    assert load(tmp_path)["obs"].shape == (0, 5)
    with pytest.raises(FileNotFoundError, match="no label store"):
        load(tmp_path / "nowhere")


@pytest.mark.parametrize("change, match", [
    (lambda d: d.pop("q"), "missing: \\['q'\\]"),
    (lambda d: d.update(extra=np.zeros(3)), "unknown: \\['extra'\\]"),
    (lambda d: d.update(step=np.zeros(2, np.int32)), "'step'.*3 rows"),
    (lambda d: d.update(move=np.full(3, 9, np.int32)), "action indices 0-3"),
    (lambda d: d["q"].__setitem__((0, 0), np.nan), "q.*NaN"),
    (lambda d: d["visits"].__setitem__((0, 0), -1), "visits"),
    (lambda d: d.update(game=np.full(3, 0.5)), "'game'.* integers"),
    (lambda d: d.update(prior=np.zeros((3, 2), np.float32)), "'prior'\\] has 2 actions"),
])
def test_bad_labels_are_refused_with_a_reason(change, match):
    d = fake_labels(3, 0)
    change(d)
    with pytest.raises(ValueError, match=match):
        check_labels(d)


def test_illegal_move_and_missing_meta_are_refused(tmp_path):
    d = fake_labels(3, 0)
    d["mask"][1, 0] = 0
    d["visits"][1, 0], d["q"][1, 0] = 0, np.nan
    with pytest.raises(ValueError, match="label 1: its move 0 is not legal"):
        check_labels(d)
    with pytest.raises(ValueError, match="missing seed"):
        LabelStore(tmp_path, {k: v for k, v in META.items() if k != "seed"})
