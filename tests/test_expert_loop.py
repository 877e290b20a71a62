"""The expert-iteration loop end to end, and its resume (uno_env.training.expert.loop;
docs/expert-loop.md): tiny runs of the shipped ``expert_tiny`` config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_selfplay import same  # noqa: E402

from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.training.cli import load_config  # noqa: E402
from uno_env.training.expert import labels as label_store  # noqa: E402
from uno_env.training.expert.loop import ExpertLoop  # noqa: E402
from uno_env.training.selfplay.trainer import SelfPlayTrainer  # noqa: E402


def tiny(out: Path, **over: Any) -> dict[str, Any]:
    cfg = load_config("expert_tiny")
    cfg.update(output_dir=str(out), **over)
    return cfg


def weights(path: Path) -> dict[str, torch.Tensor]:
    return dict(load_policy(path)[1]["model"])


class Stop(Exception):
    """The interruption: raised from inside a phase, as a kill would stop it there."""


def stop_after(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, calls: int) -> None:
    """Let ``owner.name`` run ``calls`` times, then stop the run right after the last."""
    real = getattr(owner, name)
    count = [0]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        count[0] += 1
        if count[0] == calls:
            raise Stop(f"stopped after {name} #{calls}")
        return out

    monkeypatch.setattr(owner, name, wrapped)


def test_tiny_loop_end_to_end_and_an_interrupted_run_resumes_to_the_same_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped expert_tiny run; then a run stopped after its first label chunk and again
    inside its first PPO run, resumed each time, ends with the uninterrupted run's labels,
    network and evaluation (its first iteration; without the search's evaluation, which
    changes neither)."""
    out = tmp_path / "whole"
    whole = ExpertLoop(tiny(out)).run()
    rows = whole["rows"]
    assert [r["iteration"] for r in rows] == ["prior", 0, 1]
    for r in rows:
        assert 0 <= r["network"]["win_rate"] <= 1 and r["network"]["games"] == 100
        assert r["search"]["games"] == 1
    for r in rows[1:]:
        assert r["labels"] > 0 and r["generate_s"] > 0 and r["train_s"] > 0
        assert r["generate"]["games"] == 2 and r["generate"]["labels"] == r["labels"]
        assert "distill_kl" in r["train_stats"] and "policy_loss" in r["train_stats"]
    assert rows[2]["labels_used"] == rows[1]["labels"] + rows[2]["labels"]  # label_window 2
    assert (out / "report.md").read_text().count("\n| ") == 4
    assert json.loads((out / "report.json").read_text()) == rows
    # the prior trains into iteration 0's network, which trains into iteration 1's
    nets = [weights(ExpertLoop(tiny(tmp_path / "x")).prior)] + [
        weights(out / f"iter_{it:03d}" / "policy.pt") for it in (0, 1)]
    heads = [n["policy_head.weight"] for n in nets]
    assert not torch.equal(heads[0], heads[1]) and not torch.equal(heads[1], heads[2])
    # the second iteration searched with the first one's network: its labels' priors are
    # that network's probabilities
    second = label_store.load(out / "iter_001" / "labels")
    net1 = load_policy(out / "iter_000" / "policy.pt")[0]
    with torch.no_grad():
        logits, _ = net1(torch.from_numpy(second["obs"]), torch.from_numpy(second["mask"]))
    np.testing.assert_allclose(second["prior"], torch.softmax(logits, -1).numpy(), atol=1e-5)

    part = tmp_path / "part"
    short = {"iterations": 1, "search_eval_games": 0}
    with monkeypatch.context() as m:
        stop_after(m, label_store.LabelStore, "write", 1)
        with pytest.raises(Stop):
            ExpertLoop(tiny(part, **short)).run()
    assert len(label_store.read_manifest(part / "iter_000" / "labels")["chunks"]) == 1
    with monkeypatch.context() as m:
        stop_after(m, SelfPlayTrainer, "save_checkpoint", 1)
        with pytest.raises(Stop):
            ExpertLoop(tiny(part, resume="auto", **short)).run()
    assert (part / "iter_000" / "train" / "checkpoint_last.pt").exists()
    assert not (part / "iter_000" / "policy.pt").exists()
    with pytest.raises(FileExistsError, match="resume=auto"):
        ExpertLoop(tiny(part, **short)).run()
    with pytest.raises(ValueError, match="other settings \\(tau\\)"):
        ExpertLoop(tiny(part, resume="auto", tau=0.5, **short)).run()
    resumed = ExpertLoop(tiny(part, resume="auto", **short)).run()["rows"]
    a = label_store.load(out / "iter_000" / "labels")
    b = label_store.load(part / "iter_000" / "labels")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    assert same(weights(out / "iter_000" / "policy.pt"), weights(part / "iter_000" / "policy.pt"))
    for mine, theirs in zip(resumed, rows[:2], strict=True):
        assert mine["network"] == theirs["network"]
        for k in ("labels", "labels_used", "train_stats"):
            assert mine.get(k) == theirs.get(k)


def test_mode_distill_trains_from_the_labels_alone(tmp_path: Path) -> None:
    """``mode: distill``: no games in the train phase; the network moves towards pi'."""
    from uno_env.training.expert.loss import targets

    loop = ExpertLoop(tiny(tmp_path, iterations=1, mode="distill", eval_games=0,
                           search_eval_games=0, distill_epochs=20, distill_batch=16))
    rows = loop.run()["rows"]
    assert rows[1]["network"] is None and rows[1]["search"] is None
    assert not (tmp_path / "iter_000" / "train").exists()
    data = targets(label_store.load(tmp_path / "iter_000" / "labels"), loop.cfg.tau, 2)
    obs, mask = torch.from_numpy(data["obs"]), torch.from_numpy(data["mask"])
    pi = torch.from_numpy(data["pi"])

    def cross_entropy(path: Path) -> float:
        with torch.no_grad():
            logp = torch.log_softmax(load_policy(path)[0](obs, mask)[0], -1)
        return float(-(torch.where(pi > 0, pi * logp, torch.zeros_like(logp))).sum(-1).mean())

    assert cross_entropy(tmp_path / "iter_000" / "policy.pt") < cross_entropy(loop.prior)
