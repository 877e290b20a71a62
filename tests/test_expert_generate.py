"""Label generation against rule (uno_env.training.expert.generate, docs/expert-iteration.md):
a run stopped at any point and resumed ends with the labels of a run that never stopped."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from uno_env.agents.pimc_batch import BatchPIMC
from uno_env.agents.policy import load_policy
from uno_env.agents.ppo import checkpoint_path
from uno_env.rules.game import Game
from uno_env.training.expert import generate as G
from uno_env.training.expert.labels import FIELDS, MANIFEST, LabelStore, load

RUN = {"samples": 3, "chunk": 2, "parallel": 2, "seed": 5, "iteration": 1}


@cache
def _search() -> BatchPIMC:
    net, _ = load_policy(checkpoint_path("classic", 2))
    return BatchPIMC(Game("classic", 2), {}, net.eval(), rows=256)


def _run(out: Path | None, games: int = 4, **kw: Any) -> G.Generation:
    s = _search()
    return G.generate(s.net, out, games, searcher=s, **{**RUN, **kw})


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> tuple[G.Generation, dict[str, np.ndarray], Any]:
    tmp = tmp_path_factory.mktemp("a")
    g = _run(tmp)
    return g, load(tmp), json.loads((tmp / MANIFEST).read_text())


def test_labels_describe_the_searches_of_the_games(uninterrupted):
    g, labels, manifest = uninterrupted
    assert g.games == 4 and 0 <= g.wins <= 4 and g.labels == len(labels["move"]) > 0
    assert g.low <= g.win_rate <= g.high
    assert [c["games"] for c in manifest["chunks"]] == [2, 2]
    assert sum(c["wins"] for c in manifest["chunks"]) == g.wins
    assert manifest["meta"]["env_version"] == Game("classic", 2).variant.version
    assert sorted(set(labels["game"].tolist())) == list(range(4))
    for game in range(4):  # decisions in order, one seat per game
        rows = labels["game"] == game
        assert np.all(np.diff(labels["step"][rows]) > 0)
        assert len(set(labels["seat"][rows].tolist())) == 1
    legal = labels["mask"] == 1
    assert np.array_equal(labels["visits"] > 0, legal)  # every legal action was searched
    assert (labels["visits"][legal] == 3).all() and (labels["samples"] == 3).all()
    np.testing.assert_allclose(labels["prior"].sum(1), 1.0, rtol=1e-5)
    assert (labels["prior"][~legal] == 0).all()


def test_a_resumed_run_ends_with_the_uninterrupted_labels(uninterrupted, tmp_path, monkeypatch):
    _, want, manifest = uninterrupted
    out = tmp_path
    real_write, real_search = LabelStore._save_manifest, BatchPIMC.search
    calls = {"list": 0, "search": 0}

    def stop_before_listing(self: LabelStore) -> None:  # the chunk's file exists, unlisted
        calls["list"] += 1
        if calls["list"] == 3:  # 1: the new store, 2: chunk 0, 3: chunk 1
            raise KeyboardInterrupt
        real_write(self)

    monkeypatch.setattr(LabelStore, "_save_manifest", stop_before_listing)
    with pytest.raises(KeyboardInterrupt):
        _run(out)
    assert (out / "labels-00001.npz").exists() and len(load(out)["move"]) < len(want["move"])

    def stop_mid_chunk(self: BatchPIMC, positions: Any) -> Any:
        calls["search"] += 1
        if calls["search"] == 4:
            raise KeyboardInterrupt
        return real_search(self, positions)

    monkeypatch.setattr(LabelStore, "_save_manifest", real_write)
    # a second stop, inside chunk 1 this time (the resumed run skips chunk 0)
    monkeypatch.setattr(BatchPIMC, "search", stop_mid_chunk)
    with pytest.raises(KeyboardInterrupt):
        _run(out)
    monkeypatch.setattr(BatchPIMC, "search", real_search)
    g = _run(out)
    got = load(out)
    for k in FIELDS:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)
    assert json.loads((out / MANIFEST).read_text()) == manifest
    assert (g.games, g.labels) == (4, len(want["move"]))


def test_network_play_and_no_store(tmp_path):
    g = _run(None, games=2, play="network", chunk=2)
    assert g.games == 2 and g.play == "network" and g.labels > 0
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("kw", "match"), [
    ({"play": "rule"}, "play must be one of search, network"),
    ({"games": 0}, "games must be an integer >= 1"),
    ({"samples": 1.5}, "samples must be an integer >= 1"),
    ({"variant": "flip"}, "searcher was built for another table"),
    ({"options": {"stacking": True}}, "searcher was built for another table"),
    ({"z": 0.0}, "searcher searches with another network or settings"),
])
def test_bad_settings_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        _run(None, **kw)


def test_resuming_with_other_settings_is_refused(tmp_path):
    _run(tmp_path, games=1, chunk=1)
    with pytest.raises(ValueError, match="another run.*samples"):
        _run(tmp_path, games=1, chunk=1, samples=4)
    other = copy.deepcopy(_search().net)
    with torch.no_grad():
        other.policy_head.bias[0] += 1.0
    assert G.network_digest(other) != G.network_digest(_search().net)
    with pytest.raises(ValueError, match="another run.*network"):
        G.generate(other, tmp_path, 1, searcher=BatchPIMC(Game("classic", 2), {}, other, rows=8),
                   **{**RUN, "chunk": 1})


def test_progress_is_reported_after_each_chunk(tmp_path):
    seen: list[tuple[int, int]] = []
    g = _run(tmp_path, games=3, play="network", progress=lambda *a: seen.append(a))
    assert [games for games, _ in seen] == [2, 3] and seen[-1][1] == g.labels > 0
    again: list[tuple[int, int]] = []
    _run(tmp_path, games=3, play="network", progress=lambda *a: again.append(a))
    assert again == seen  # a resumed run counts the chunks it skips
