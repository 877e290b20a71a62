"""The self-play trainer on every core (training/selfplay/pipeline.py, procs.py): rollout
workers in their own processes, the policy lag and its fixed schedule, exact resume, and
learning per decision (docs/training.md, "Every core")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from test_selfplay import params as weights  # noqa: E402
from test_selfplay import same  # noqa: E402
from test_selfplay_batch import assert_resumed_as_whole, small  # noqa: E402

from uno_env.training.config import SelfPlayConfig, usable_cpus  # noqa: E402
from uno_env.training.selfplay import SelfPlayTrainer  # noqa: E402
from uno_env.training.selfplay.evaluation import evaluate_policy_batch  # noqa: E402
from uno_env.training.selfplay.vector_rollout import games_of  # noqa: E402
from uno_env.training.selfplay.workers import LocalWorkers, cpu_state  # noqa: E402

MIX = {"self": 1, "rule": 1, "frozen": 1}


def two(out: Path, **over: Any) -> dict[str, Any]:
    """Two workers with the lag, in the test's process unless asked otherwise."""
    return small(out, **{"workers": 2, "policy_lag": 1, "worker_processes": False,
                         "opponents": MIX, "pool_interval": 2, **over})


def test_auto_is_one_worker_per_usable_cpu_and_the_lag_follows() -> None:
    cfg = SelfPlayConfig.from_dict({}).resolved()
    assert cfg.workers == min(usable_cpus(), cfg.num_envs)
    assert cfg.policy_lag == 0 and cfg.threads == 1  # more workers share the update
    assert cfg.sharded_update == (cfg.workers > 1)
    assert SelfPlayConfig.from_dict({"workers": 3, "threads": "2"}).resolved().threads == 2
    assert SelfPlayConfig.from_dict({"workers": "1"}).resolved().policy_lag == 0
    assert SelfPlayConfig.from_dict({"workers": 3}).resolved().policy_lag == 0
    assert SelfPlayConfig.from_dict({"workers": 3, "policy_lag": 1}).resolved().threads == 3
    assert SelfPlayConfig.from_dict({"workers": 1, "ray": True}).resolved().policy_lag == 1
    assert SelfPlayConfig.from_dict({"engine": "python"}).resolved().workers == 1
    assert SelfPlayConfig.from_dict({"num_envs": 1, "workers": "auto"}).resolved().workers == 1
    cfg = SelfPlayConfig.from_dict({"num_envs": 10, "workers": 4}).resolved()
    assert [games_of(cfg, w) for w in range(4)] == [3, 3, 2, 2]
    for bad, match in (({"workers": 0}, "workers must be auto or an integer >= 1, got 0"),
                       ({"workers": "many"}, "workers must be auto or an integer"),
                       ({"policy_lag": 2}, "policy_lag must be auto, 0 or 1, got 2"),
                       ({"threads": 0}, "threads must be auto or an integer >= 1"),
                       ({"num_envs": 2, "workers": 3}, "only num_envs=2 games"),
                       ({"engine": "python", "policy_lag": 1}, "need engine: batch")):
        with pytest.raises(ValueError, match=match):
            SelfPlayConfig.from_dict(bad)


@pytest.mark.parametrize("lag", [0, 1])
def test_worker_processes_give_the_numbers_of_the_in_process_workers(tmp_path: Path, lag: int
                                                                     ) -> None:
    """Where the workers run changes the speed, not the numbers: two worker processes
    sharing the update (lag 0) or playing beside the learner (lag 1) end with the weights,
    games and pool of the same two workers run one after another in the learner's process
    (teacher and frozen seats included)."""
    over = {"total_steps": 500, "teacher": "rule", "critic": "state", "policy_lag": lag}
    procs = SelfPlayTrainer(two(tmp_path / "procs", worker_processes=True, **over))
    assert type(procs.workers.workers).__name__ == "ProcessWorkers"  # type: ignore[union-attr]
    s_procs = procs.run()
    local = SelfPlayTrainer(two(tmp_path / "local", **over))
    assert type(local.workers.workers) is LocalWorkers  # type: ignore[union-attr]
    s_local = local.run()
    assert s_procs["updates"] >= 3 and procs.pool.versions
    assert (s_procs["steps"], s_procs["updates"], s_procs["games"]) == (
        s_local["steps"], s_local["updates"], s_local["games"])
    assert procs.pool.versions == local.pool.versions
    assert same(weights(tmp_path / "procs" / "checkpoint_last.pt"),
                weights(tmp_path / "local" / "checkpoint_last.pt"))


@pytest.mark.parametrize("lag", [0, 1])
def test_each_rollout_is_played_with_the_weights_the_lag_names(tmp_path: Path, lag: int
                                                               ) -> None:
    """Rollout ``r`` is played with the weights after update ``max(r - lag, 0)``: a fixed
    schedule, whatever the timing."""
    t = SelfPlayTrainer(two(tmp_path, policy_lag=lag, total_steps=600))
    pipe = t.workers
    assert pipe is not None
    versions = [cpu_state(t.net)]  # versions[u]: the weights after update u
    sent: list[dict[str, torch.Tensor]] = []
    set_weights, iteration = pipe.workers.set_weights, t.iteration

    def record_sent(state_dict: dict[str, torch.Tensor]) -> None:
        sent.append(state_dict)
        set_weights(state_dict)

    def record_version() -> Any:
        out = iteration()
        versions.append(cpu_state(t.net))
        return out

    pipe.workers.set_weights = record_sent  # type: ignore[method-assign]
    t.iteration = record_version  # type: ignore[method-assign]
    s = t.run()
    assert s["updates"] >= 4
    # one rollout trained per update; with the lag, the last launch records the checkpoint's
    # starting point and is not played
    assert len(sent) == s["updates"] + lag
    for r, state in enumerate(sent):
        assert same(state, versions[max(r - lag, 0)]), r
    assert not same(versions[1], versions[0])


def test_a_pipelined_run_resumes_exactly(tmp_path: Path) -> None:
    """The checkpoint of a run with policy_lag: 1 holds the workers as they were at the last
    launch, the weights that launch gave them and the pool snapshots not yet sent: stopping
    and resuming changes nothing."""
    over = {"teacher": "rule", "teacher_steps": 100_000, "lr_schedule": "constant",
            "ent_schedule": "constant", "checkpoint_interval": 2}
    whole = SelfPlayTrainer(two(tmp_path / "whole", **over))
    s_whole = whole.run()
    half = SelfPlayTrainer(two(tmp_path / "half", total_steps=400, **over))
    s_half = half.run()
    assert 0 < s_half["updates"] < s_whole["updates"]
    ck = torch.load(tmp_path / "half" / "checkpoint_last.pt", weights_only=True)
    assert ck["inflight"]["teacher_coef"] > 0 and len(ck["workers"]) == 2
    resumed = SelfPlayTrainer(two(tmp_path / "half", resume="auto", **over))
    assert_resumed_as_whole(resumed, whole, s_whole, tmp_path)
    with pytest.raises(ValueError, match="policy_lag: 1, this run has policy_lag: 0"):
        SelfPlayTrainer(two(tmp_path / "half", resume="auto", policy_lag=0, **over)).run()
    with pytest.raises(ValueError, match="has 2 rollout worker.*set workers: 2"):
        SelfPlayTrainer(two(tmp_path / "half", resume="auto", workers=3, **over)).run()


def test_a_run_sharing_the_update_resumes_exactly(tmp_path: Path) -> None:
    """Stopping and resuming a run whose workers share the update changes nothing: the
    update reads only the learner's weights, optimiser and shuffling generator."""
    over = {"teacher": "rule", "teacher_steps": 100_000, "lr_schedule": "constant",
            "ent_schedule": "constant", "checkpoint_interval": 2, "policy_lag": 0}
    whole = SelfPlayTrainer(two(tmp_path / "whole", **over))
    assert whole.cfg.sharded_update
    s_whole = whole.run()
    half = SelfPlayTrainer(two(tmp_path / "half", total_steps=400, **over))
    assert 0 < half.run()["updates"] < s_whole["updates"]
    resumed = SelfPlayTrainer(two(tmp_path / "half", resume="auto", **over))
    assert_resumed_as_whole(resumed, whole, s_whole, tmp_path)


def learn(out: Path, updates: int = 60, games: int = 200, **over: Any) -> dict[str, Any]:
    """A fixed budget of decisions (about ``updates`` updates) from a fixed seed; the greedy
    policy's result against ``random`` over ``games`` games before and after."""
    cfg = small(out, num_envs=32, rollout_ticks=16, total_steps=updates * 32 * 16 * 3 // 4,
                hidden=[64], epochs=1, minibatch_size=512, lr=1e-3, lr_final=3e-4,
                opponents={"self": 1, "random": 1}, checkpoint_interval=1000, seed=2, **over)
    t = SelfPlayTrainer(cfg)

    def vs_random() -> dict[str, Any]:
        return evaluate_policy_batch(t.net, "random", games, max_steps=400, seed=99,
                                     num_envs=50)

    before = vs_random()
    summary = t.run()
    return {"before": before, "after": vs_random(), **summary}


def same_margin(one: dict[str, Any], every: dict[str, Any], low: float) -> None:
    games = one["after"]["games"]
    assert one["steps"] == pytest.approx(every["steps"], rel=0.05)
    assert one["updates"] == every["updates"]
    for r in (one, every):
        assert r["after"]["ci_low"] > r["before"]["ci_high"]
        assert r["after"]["win_rate"] >= low
    a, b = one["after"]["win_rate"], every["after"]["win_rate"]
    se = ((a * (1 - a) + b * (1 - b)) / games) ** 0.5
    assert abs(a - b) <= 2.5 * se, (a, b)


def test_every_core_learns_as_much_per_decision_as_one(tmp_path: Path) -> None:
    """The same budget of decisions from the same seed, trained on one core (one worker, no
    lag, one thread) and as on two (two workers sharing the update; two workers with
    policy_lag: 1 and two learner threads; in this process, with the numbers of worker
    processes): each beats ``random`` by the same margin as one core, within the noise of
    200 games."""
    one = learn(tmp_path / "one")
    shared = learn(tmp_path / "shared", workers=2, worker_processes=False)
    assert shared["updates"] and SelfPlayConfig.from_dict(
        {"workers": 2, "worker_processes": False}).resolved().sharded_update
    same_margin(one, shared, 0.65)
    lagged = learn(tmp_path / "lagged", workers=2, policy_lag=1, worker_processes=False)
    same_margin(one, lagged, 0.65)
