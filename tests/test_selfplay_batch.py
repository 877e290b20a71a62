"""The self-play trainer on the batch engine (training/selfplay/vector_rollout.py, workers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_selfplay import params as weights  # noqa: E402
from test_selfplay import same, tiny  # noqa: E402

import uno_env  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.observation import HISTORY_PIECES  # noqa: E402
from uno_env.training.config import SelfPlayConfig  # noqa: E402
from uno_env.training.selfplay import SelfPlayTrainer  # noqa: E402
from uno_env.training.selfplay.evaluation import evaluate_policy_batch  # noqa: E402
from uno_env.training.selfplay.trainer import resolve_device  # noqa: E402
from uno_env.training.selfplay.vector_rollout import VectorRollout, worker_streams  # noqa: E402


def small(out: Path, **over: Any) -> dict[str, Any]:
    """test_selfplay's tiny run, with a few more decisions per update."""
    cfg = tiny(out, seed=11, num_envs=8, rollout_ticks=24, total_steps=800, max_steps=400,
               minibatch_size=128)
    cfg.update(over)
    return cfg


@pytest.mark.parametrize("n", [2, 4])
def test_rollout_credits_every_seat_as_the_python_engine_pays_it(n: int) -> None:
    """Self-play, every decision recorded: replaying each slot's recorded actions in raw_env
    from the same seeds gives the same observations, and each seat's rewards (every seat's
    terminal reward, whoever ends the game) land on that seat's latest decision, with the
    chains linking each seat's decisions in order and ending at the game's end."""
    ticks, k = 160, 3
    cfg = SelfPlayConfig.from_dict(small(Path("unused"), num_players=n, num_envs=k,
                                         rollout_ticks=ticks, max_steps=ticks,
                                         opponents={"self": 1}))
    ro = VectorRollout(cfg)
    draw = uno_env.Game("classic", n).actions.draw
    with torch.no_grad():  # few voluntary draws: games of tens of decisions
        ro.net.policy_head.bias[draw] = -30.0
    seeds = worker_streams(cfg.seed, 0)["env"].integers(2**63, size=k)
    ro.start()
    info = ro.collect()
    assert ro.size == ticks * k and info["games"] - info["truncated"] >= 2
    rew = np.zeros(ro.size, np.float32)
    done = np.zeros(ro.size, np.bool_)
    nxt = np.full(ro.size, -1, np.int64)
    ended = 0
    for i in range(k):
        e = uno_env.raw_env("classic", n, max_steps=ticks)
        e.reset(seed=int(seeds[i]))
        last = [-1] * n
        for t in range(ticks):
            row = t * k + i
            agent = e.agent_selection
            s = e.agent_name_mapping[agent]
            o = e.observe(agent)
            np.testing.assert_array_equal(ro.b_obs[row], o["observation"])
            np.testing.assert_array_equal(ro.b_mask[row], o["action_mask"].astype(bool))
            if last[s] >= 0:
                nxt[last[s]] = row
            last[s] = row
            e.step(int(ro.b_act[row]))
            for q, name in enumerate(e.possible_agents):
                rew[last[q]] += e.rewards[name] if last[q] >= 0 else 0.0
            if any(e.terminations.values()) or any(e.truncations.values()):
                ended += 1
                for q in range(n):
                    if last[q] >= 0:
                        done[last[q]] = True
                    last[q] = -1
                e.reset()
        assert ro.last_idx[i].tolist() == last
    assert ended == info["games"]
    np.testing.assert_array_equal(ro.b_rew[:ro.size], rew)
    np.testing.assert_array_equal(ro.b_done[:ro.size], done)
    np.testing.assert_array_equal(ro.b_next[:ro.size], nxt)
    assert (rew[done] != 0).sum() >= n * (info["games"] - info["truncated"])
    train, adv, ret = ro.advantages(cfg.gamma, cfg.gae_lambda)
    np.testing.assert_allclose(ret[done[train]], rew[train][done[train]], atol=1e-5)


def test_resume_gives_the_weights_of_an_uninterrupted_run(tmp_path: Path) -> None:
    """Games in flight, agents' memories, pending decisions, the pool and the random streams
    are all in the checkpoint: stopping and resuming changes nothing."""
    over = {"lr_schedule": "constant", "ent_schedule": "constant", "teacher": "rule",
            "teacher_steps": 100_000, "critic": "state"}
    whole = SelfPlayTrainer(small(tmp_path / "whole", **over))
    s_whole = whole.run()
    half = SelfPlayTrainer(small(tmp_path / "half", total_steps=400, **over))
    s_half = half.run()
    assert 0 < s_half["updates"] < s_whole["updates"]
    resumed = SelfPlayTrainer(small(tmp_path / "half", resume="auto", **over))
    assert_resumed_as_whole(resumed, whole, s_whole, tmp_path)


def assert_resumed_as_whole(resumed: SelfPlayTrainer, whole: SelfPlayTrainer,
                            s_whole: dict[str, Any], tmp_path: Path) -> None:
    """Run the resumed trainer (its run in tmp_path/half): it ends with the counters, pool and
    weights of the uninterrupted run (tmp_path/whole)."""
    s_res = resumed.run()
    assert (s_res["steps"], s_res["updates"], s_res["games"]) == (
        s_whole["steps"], s_whole["updates"], s_whole["games"])
    assert resumed.pool.versions == whole.pool.versions
    assert same(weights(tmp_path / "whole" / "checkpoint_last.pt"),
                weights(tmp_path / "half" / "checkpoint_last.pt"))


def test_init_starts_from_a_policy_files_weights(tmp_path: Path) -> None:
    """``init`` fine-tunes: the run starts from the file's weights, with fresh counters and
    optimiser; a file for another network is refused with what differs."""
    first = SelfPlayTrainer(small(tmp_path / "first", total_steps=200))
    first.run()
    final = tmp_path / "first" / "final.pt"
    tuned = SelfPlayTrainer(small(tmp_path / "tuned", init=str(final), total_steps=1))
    tuned.load_init(final)
    saved = load_policy(final)[1]["model"]
    assert same(tuned.net.state_dict(), saved)
    assert tuned.steps == 0 and tuned.updates == 0
    fresh = SelfPlayTrainer(small(tmp_path / "fresh", total_steps=1))
    assert not same(fresh.net.state_dict(), saved)
    with pytest.raises(ValueError, match="hidden="):
        SelfPlayTrainer(small(tmp_path / "x", init=str(final), hidden=[16])).run()
    with pytest.raises(FileNotFoundError, match="init policy"):
        SelfPlayTrainer(small(tmp_path / "y", init=str(tmp_path / "none.pt"))).run()


def test_init_widens_a_policy_file_from_before_the_history_pieces(tmp_path: Path) -> None:
    """A file without ``pieces`` (the first shipped ones) starts a run with zero weights from
    the history pieces: the same policy as the file's; resume refuses such a file."""
    first = SelfPlayTrainer(small(tmp_path / "first", total_steps=200))
    first.run()
    pol = dict(load_policy(tmp_path / "first" / "final.pt")[1])
    lay = first.layout
    keep = np.concatenate([np.arange(p.start, p.stop) for p in lay.pieces
                           if p.name not in HISTORY_PIECES])
    model = dict(pol["model"])
    model["trunk.0.weight"] = model["trunk.0.weight"][:, keep]
    model["obs_scale"] = model["obs_scale"][keep]
    pol.update(model=model, obs_dim=len(keep))
    del pol["pieces"]
    old = tmp_path / "old.pt"
    torch.save(pol, old)
    tuned = SelfPlayTrainer(small(tmp_path / "tuned", init=str(old), total_steps=1))
    tuned.load_init(old)
    legacy, _ = load_policy(old)
    x = torch.rand(8, lay.size) * 3
    mask = torch.ones(8, tuned.num_actions, dtype=torch.bool)
    torch.testing.assert_close(tuned.net(x, mask)[0], legacy(x, mask)[0], rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="reads the observation pieces"):
        tuned._load_weights(pol, old)


def test_init_gives_a_shared_trunk_policy_a_privileged_critic(tmp_path: Path) -> None:
    """``critic: state`` may start from a ``critic: obs`` file: the value MLP is the file's
    trunk with zero weights from the hands, so logits and values are the file's whatever the
    hands; the hands then move the value as training changes those weights. The reverse
    (dropping a privileged critic) is refused."""
    first = SelfPlayTrainer(small(tmp_path / "first", total_steps=200))
    first.run()
    final = tmp_path / "first" / "final.pt"
    tuned = SelfPlayTrainer(small(tmp_path / "tuned", init=str(final), critic="state",
                                  total_steps=1))
    tuned.load_init(final)
    assert tuned.critic_extra > 0
    old, _ = load_policy(final)
    x = torch.rand(8, tuned.layout.size) * 3
    mask = torch.ones(8, tuned.num_actions, dtype=torch.bool)
    hands = torch.rand(8, tuned.critic_extra) * 4
    logits, values = tuned.net(x, mask, hands)
    want_logits, want_values = old(x, mask)
    torch.testing.assert_close(logits, want_logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(values, want_values, rtol=1e-5, atol=1e-5)
    with torch.no_grad():
        tuned.net.value_trunk[0].weight[:, tuned.layout.size:] += 0.5
    assert not torch.allclose(tuned.net(x, mask, hands)[1], want_values)
    tuned.run()
    back = tmp_path / "tuned" / "final.pt"
    with pytest.raises(ValueError, match="another critic"):
        SelfPlayTrainer(small(tmp_path / "back", init=str(back))).run()


def test_a_few_hundred_updates_beat_random(tmp_path: Path) -> None:
    cfg = small(tmp_path, num_envs=32, rollout_ticks=16, total_steps=200 * 32 * 16 * 3 // 4,
                hidden=[64], epochs=1, minibatch_size=512, lr=1e-3, lr_final=3e-4,
                opponents={"self": 1, "random": 1}, checkpoint_interval=1000, seed=2)
    t = SelfPlayTrainer(cfg)

    def vs_random() -> dict[str, Any]:
        return evaluate_policy_batch(t.net, "random", 200, max_steps=400, seed=99, num_envs=50)

    before = vs_random()
    summary = t.run()
    after = vs_random()
    assert summary["updates"] >= 200
    assert after["games"] == before["games"] == 200
    assert after["win_rate"] >= 0.7 and after["ci_low"] > before["ci_high"]


def test_device_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")
    with pytest.raises(ValueError, match="sees no CUDA GPU"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match="allowed: cpu, cuda, cuda:N, auto"):
        SelfPlayConfig.from_dict({"device": "gpu"})
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert resolve_device("auto") == torch.device("cuda")
    with pytest.raises(ValueError, match="1 CUDA device"):
        resolve_device("cuda:3")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU here")
def test_cuda_training_runs(tmp_path: Path) -> None:
    s = SelfPlayTrainer(small(tmp_path, device="cuda", total_steps=300)).run()
    assert s["updates"] >= 1 and torch.load(tmp_path / "final.pt", weights_only=True)["model"]["obs_scale"].device.type == "cpu"


def test_ray_workers_give_the_first_update_of_the_single_process_trainer(tmp_path: Path
                                                                          ) -> None:
    """Two rollout workers as Ray actors on a local cluster, and the same two workers in the
    learner's process: the same seed gives the same first update (and the same games)."""
    ray = pytest.importorskip("ray")
    # policy_lag: 1, Ray's auto (its actors do not share the update): the learner's update
    over = {"workers": 2, "total_steps": 1, "opponents": {"self": 1, "rule": 1, "frozen": 1},
            "policy_lag": 1}
    local = SelfPlayTrainer(small(tmp_path / "local", **over))
    s_local = local.run()
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        s_ray = SelfPlayTrainer(small(tmp_path / "ray", ray=True, **over)).run()
    finally:
        if started:
            ray.shutdown()
    assert s_local["updates"] == s_ray["updates"] == 1
    assert (s_local["steps"], s_local["games"]) == (s_ray["steps"], s_ray["games"])
    assert same(weights(tmp_path / "local" / "checkpoint_last.pt"),
                weights(tmp_path / "ray" / "checkpoint_last.pt"))
    one = SelfPlayTrainer(small(tmp_path / "one", total_steps=1, opponents=over["opponents"]))
    one.run()  # one worker plays other games: a different update
    assert not same(weights(tmp_path / "one" / "checkpoint_last.pt"),
                    weights(tmp_path / "local" / "checkpoint_last.pt"))


CONFIGS = sorted((Path(__file__).resolve().parents[1] / "configs" / "train").glob(
    "*_selfplay.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_each_agent_config_trains_and_its_agent_name_resolves(
        path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every target agent's config (one command each) runs on the batch engine, here cut to
    one short update, and its policy loads as ``ppo:<variant>-<N>p`` from the shipped
    checkpoint directory and plays a game at its table."""
    import yaml

    import uno_env.agents.ppo

    cfg = yaml.safe_load(path.read_text())
    assert cfg["engine"] == "batch" and cfg["hidden"] == [256, 256]
    variant, n = cfg["variant"], cfg["num_players"]
    assert cfg["workers"] == cfg["policy_lag"] == "auto"  # every core (docs/training.md)
    # one worker in the test's process (worker processes: test_selfplay_workers.py)
    cfg.update(num_envs=4, rollout_ticks=8, total_steps=1, eval_games=4, eval_interval=0,
               teacher_steps=16, progress=False, tensorboard=False, workers=1,
               output_dir=str(tmp_path / "run"), export=str(tmp_path / f"{variant}_{n}p.pt"))
    s = SelfPlayTrainer(cfg).run()
    assert s["updates"] == 1 and s["curve"][-1]["rule"]["games"] >= 4  # evaluated at the end
    monkeypatch.setattr(uno_env.agents.ppo, "CHECKPOINT_DIR", tmp_path)
    opts = cfg["options"]  # the table it was trained at (agents.load refuses any other)
    agent = uno_env.agents.load(f"ppo:{variant}-{n}p", variant=variant, num_players=n, **opts)
    assert agent.info["num_players"] == n and agent.info["path"].endswith(f"{variant}_{n}p.pt")
    assert {k: agent.info["options"][k] for k in opts} == opts
    e = uno_env.raw_env(variant, n, max_steps=300, **opts)
    e.reset(seed=1)
    while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        o = e.observe(e.agent_selection)
        e.step(agent.act(o["observation"], o["action_mask"]))
    with pytest.raises(ValueError, match=f"is the {n}-player {variant} agent"):
        uno_env.agents.load(f"ppo:{variant}-{n}p", variant=variant, num_players=3, **opts)


def test_compiled_opponents_play_the_games_of_the_python_agents() -> None:
    """``opponent_engine: compiled`` (rule / random seats as uno_env.batch.opponents kernels)
    records the decisions the Python agents' rollout records; a rollout state saved with
    either resumes with the other into the same games."""
    def rollout(engine: str) -> VectorRollout:
        cfg = SelfPlayConfig.from_dict(small(
            Path("unused"), num_players=3, num_envs=6, rollout_ticks=120, max_steps=300,
            opponents={"rule": 0.5, "random": 0.3, "self": 0.2}, opponent_engine=engine))
        ro = VectorRollout(cfg)
        torch.manual_seed(0)
        ro.set_weights(VectorRollout(cfg).net.state_dict())
        return ro

    fast, slow = rollout("compiled"), rollout("python")
    slow.set_weights(fast.net.state_dict())
    fast.start()
    slow.start()
    for _ in range(2):
        a, b = fast.collect(), slow.collect()
        assert a == b and a["games"] > 0
        assert fast.size == slow.size
        for name in ("b_obs", "b_mask", "b_act", "b_rew", "b_done", "b_next"):
            np.testing.assert_array_equal(getattr(fast, name)[:fast.size],
                                          getattr(slow, name)[:slow.size])
        fast.carry_over()
        slow.carry_over()
    for src, engine in ((slow, "compiled"), (fast, "python")):
        resumed = rollout(engine)
        resumed.set_weights(src.net.state_dict())
        resumed.load_state(src.state())
        a, b = resumed.collect(), src.collect()
        assert a == b
        np.testing.assert_array_equal(resumed.b_act[:resumed.size], src.b_act[:src.size])
