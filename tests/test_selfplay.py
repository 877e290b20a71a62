"""The native PyTorch self-play trainer (training/selfplay/) and the PPO agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import uno_env  # noqa: E402
from uno_env import agents  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.agents.ppo import shipped_checkpoint  # noqa: E402
from uno_env.training.selfplay import (  # noqa: E402
    SelfPlayConfig,
    SelfPlayTrainer,
    evaluate_policy,
    sample_actions,
    train,
    write_results,
)


def tiny(out: Path, **over: Any) -> dict[str, Any]:
    """A run of a few hundred learner decisions that still exercises every opponent kind."""
    cfg: dict[str, Any] = {
        "trainer": "selfplay", "variant": "classic", "num_players": 2, "seed": 3,
        "num_envs": 4, "rollout_ticks": 40, "total_steps": 300, "max_steps": 300,
        "hidden": [32], "epochs": 2, "minibatch_size": 64,
        "opponents": {"self": 1, "rule": 1, "random": 1, "frozen": 1},
        "pool_size": 2, "pool_interval": 1, "checkpoint_interval": 1, "eval_interval": 0,
        "eval_games": 0, "output_dir": str(out), "progress": False, "tensorboard": False,
        "workers": 1,  # in the test's process (test_selfplay_workers.py runs processes)
    }
    cfg.update(over)
    return cfg


def params(path: Path) -> dict[str, Any]:
    return torch.load(path, map_location="cpu", weights_only=True)["policy"]["model"]


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def sample_observations(count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Observations and masks of seats to act, from random play."""
    e = uno_env.raw_env("classic", 2, max_steps=400)
    rng = np.random.default_rng(seed)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    e.reset(seed=seed)
    while len(out) < count:
        if e.terminations["player_0"] or e.truncations["player_0"]:
            e.reset()
        o = e.observe(e.agent_selection)
        out.append((o["observation"], o["action_mask"]))
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


@pytest.mark.parametrize("critic", ["obs", "state"])
def test_train_save_reload_acts_identically(tmp_path: Path, critic: str) -> None:
    t = SelfPlayTrainer(tiny(tmp_path / "run", critic=critic, teacher="rule"))
    summary = t.run()
    assert summary["steps"] >= 300 and summary["updates"] >= 2
    final = tmp_path / "run" / "final.pt"
    assert final.is_file() and (tmp_path / "run" / "checkpoint_last.pt").is_file()
    agent = agents.load(f"ppo:{final}")
    net, payload = load_policy(final)
    assert payload["variant"] == "classic" and payload["hidden"] == [32]
    assert payload["critic_extra"] == (54 if critic == "state" else 0)
    assert t.last_stats["teacher_coef"] > 0 and 0 <= t.last_stats["teacher_agree"] <= 1
    assert same(net.state_dict(), t.net.state_dict())
    for obs, mask in sample_observations(200, seed=5):
        with torch.no_grad():
            logits, _ = t.net(torch.from_numpy(obs)[None], torch.from_numpy(mask)[None])
        want = int(torch.argmax(logits[0]))
        got = agent.act(obs, mask)
        assert got == want and mask[got] == 1
    # the full checkpoint is a policy file too
    agent2 = agents.load(f"ppo:{tmp_path / 'run' / 'checkpoint_last.pt'}")
    assert all(agent2.act(o, m) == agent.act(o, m) for o, m in sample_observations(50, 6))


def test_same_seed_same_parameters(tmp_path: Path) -> None:
    train(tiny(tmp_path / "a"))
    train(tiny(tmp_path / "b"))
    train(tiny(tmp_path / "c", seed=4))
    a, b, c = (params(tmp_path / d / "checkpoint_last.pt") for d in "abc")
    assert same(a, b)
    assert not same(a, c)


def test_resume_continues_from_checkpoint(tmp_path: Path) -> None:
    run = tmp_path / "run"
    t1 = SelfPlayTrainer(tiny(run))
    s1 = t1.run()
    first = params(run / "checkpoint_last.pt")
    with pytest.raises(FileExistsError, match="resume=auto"):
        SelfPlayTrainer(tiny(run)).run()
    # two resumes of the same checkpoint: both continue the counters and agree exactly
    copy = tmp_path / "copy.pt"
    copy.write_bytes((run / "checkpoint_last.pt").read_bytes())
    t2 = SelfPlayTrainer(tiny(run, resume="auto", total_steps=600))
    s2 = t2.run()
    t3 = SelfPlayTrainer(tiny(tmp_path / "other", resume=str(copy), total_steps=600))
    s3 = t3.run()
    assert s2["steps"] >= 600 and s2["updates"] > s1["updates"]
    assert s2["games"] >= s1["games"] and s2["steps"] == s3["steps"]
    assert t2.pool.versions == t3.pool.versions and len(t2.pool.versions) == 2
    second = params(run / "checkpoint_last.pt")
    assert not same(first, second)
    assert same(second, params(tmp_path / "other" / "checkpoint_last.pt"))
    ck = torch.load(run / "checkpoint_last.pt", map_location="cpu", weights_only=True)
    assert ck["counters"]["updates"] == s2["updates"]
    with pytest.raises(ValueError, match="hidden"):
        SelfPlayTrainer(tiny(tmp_path / "x", resume=str(copy), hidden=[16])).run()


def test_every_seat_gets_its_terminal_reward(tmp_path: Path) -> None:
    """The Python-engine rollout, self-play only: each finished game pays +1 to one seat's last decision and -1 to the
    other's (the loser's -1 arrives on the winner's move), and GAE uses them."""
    t = SelfPlayTrainer(tiny(tmp_path, opponents={"self": 1}, num_envs=3, max_steps=2000,
                             rollout_ticks=300, engine="python"))
    with torch.no_grad():  # no voluntary draws: games of tens of decisions, not thousands
        t.net.policy_head.bias[uno_env.Game("classic", 2).actions.draw] = -30.0
    t.rollout.start()
    info = t.rollout.collect(t.net)
    finished = sum(len(v) for v in info["results"].values()) - info["truncated"]
    assert finished >= 1
    ro = t.rollout
    size = ro.size
    done = ro.b_done[:size]
    rew = ro.b_rew[:size]
    assert int((done & (rew == 1)).sum()) == finished
    assert int((done & (rew == -1)).sum()) == finished
    assert not rew[~done].any()  # win_loss pays only at the end
    train_idx, adv, ret = ro.advantages(t.cfg.gamma, t.cfg.gae_lambda)
    pending = {j for row in ro.last_idx for j in row if j >= 0}
    assert len(train_idx) == size - len(pending)
    for j, r in zip(train_idx, ret, strict=True):
        if done[j]:
            assert r == pytest.approx(rew[j], abs=1e-5)  # terminal: return is the reward
    # a seat's chain: next decisions belong to the same seat, in order
    nxt = ro.b_next[:size]
    assert all(nxt[j] > j for j in range(size) if nxt[j] >= 0)
    assert all(nxt[j] == -1 for j in range(size) if done[j])


def test_sampling_never_picks_masked_actions() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(500, 8)).astype(np.float32)
    mask = rng.random((500, 8)) < 0.3
    mask[:, 5] = True
    masked = np.where(mask, logits, -1e9).astype(np.float32)
    acts, logp = sample_actions(masked, rng, greedy=False)
    assert mask[np.arange(500), acts].all()
    assert (logp <= 0).all() and np.isfinite(logp).all()
    greedy, _ = sample_actions(masked, rng, greedy=True)
    assert (greedy == masked.argmax(axis=1)).all()


def test_config_is_checked() -> None:
    with pytest.raises(ValueError, match="unknown selfplay config key"):
        SelfPlayConfig.from_dict({"trainer": "selfplay", "learning_rate": 1e-3})
    with pytest.raises(ValueError, match="opponent kind"):
        SelfPlayConfig.from_dict({"opponents": {"alice": 1}})
    cfg = SelfPlayConfig.from_dict({"lr": "3e-4", "hidden": "64,64", "progress": "false"})
    assert cfg.lr == pytest.approx(3e-4) and cfg.hidden == [64, 64] and cfg.progress is False


def test_shipped_config_parses() -> None:
    import yaml

    path = Path(__file__).resolve().parents[1] / "configs" / "train" / "classic_selfplay.yaml"
    cfg = SelfPlayConfig.from_dict(yaml.safe_load(path.read_text()))
    assert cfg.variant == "classic" and cfg.num_players == 2


def test_curve_and_results_files(tmp_path: Path) -> None:
    run = tmp_path / "run"
    train(tiny(run, eval_interval=2, eval_games=4, eval_opponents=["rule"], tensorboard=True))
    curve = (run / "curve.json").read_text()
    assert '"rule"' in curve and any((run / "tb").iterdir())
    out = write_results(run, run / "final.pt", 6, tmp_path / "r.json", tmp_path / "c.png",
                        opponents=("rule",))
    assert (tmp_path / "c.png").stat().st_size > 1000
    (ev,) = out["evaluation"]
    assert ev["games"] == 6 and ev["wins"] + ev["opponent_wins"] + ev["no_winner"] == 6
    assert ev["ci95"][0] <= ev["win_rate"] <= ev["ci95"][1]
    assert ev["command"].startswith(f"uno-env evaluate --agents ppo:{run / 'final.pt'},rule")


@pytest.mark.skipif(not shipped_checkpoint("classic", 2, "vd").is_file(),
                    reason="no shipped classic checkpoint")
def test_shipped_checkpoint_plays_only_masked_actions() -> None:
    path = shipped_checkpoint("classic", 2, "vd")
    assert path.stat().st_size < 5_000_000
    rules = agents.trained_options("ppo:classic-vd")  # trained at the voluntary-draw table
    assert rules["voluntary_draw"] is True and rules["catch_window"] == "turn"
    with pytest.raises(ValueError, match=r"voluntary_draw=True.*--option voluntary_draw=true"):
        agents.load("ppo:classic-vd")  # the default classic table draws only when stuck
    agent = agents.load("ppo:classic", **rules)  # ppo:classic at this table: the same file
    assert agent.info["path"] == str(path)
    sampler = agents.load("ppo:classic-vd", seed=1, greedy=False, **rules)
    assert agent.info["options"] == rules
    e = uno_env.raw_env("classic", 2, max_steps=500, **rules)
    phases = set()
    for game in range(6):
        e.reset(seed=game)
        agent.reset()
        while not (e.terminations["player_0"] or e.truncations["player_0"]):
            o = e.observe(e.agent_selection)
            phases.add(e.phase)
            player = agent if e.agent_selection == "player_0" or game % 2 else sampler
            a = player.act(o["observation"], o["action_mask"])
            assert o["action_mask"][a] == 1
            e.step(a)
    assert {"play", "color"} <= phases
    with pytest.raises(ValueError, match="no shipped ppo agent for classic with 2 players"):
        agents.load("ppo:classic", **{**rules, "uno_catch": "decision"})
    with pytest.raises(FileNotFoundError):
        agents.load("ppo:classic", num_players=3)


def test_shipped_checkpoint_beats_random_quickly() -> None:
    if not shipped_checkpoint("classic", 2, "vd").is_file():
        pytest.skip("no shipped classic checkpoint")
    net, _ = load_policy(shipped_checkpoint("classic", 2, "vd"))
    r = evaluate_policy(net, "random", games=40, seed=7, num_envs=20,
                        options=agents.trained_options("ppo:classic-vd"))
    assert r["games"] == 40 and r["wins"] >= 30
