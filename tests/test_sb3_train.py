"""MaskablePPO training from the shipped config: a few hundred steps, save, reload as the
agent ``sb3:PATH``, identical actions; and the ``uno-env train`` config handling."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import uno_env  # noqa: E402
from uno_env import agents  # noqa: E402
from uno_env.agents import RandomAgent  # noqa: E402
from uno_env.training.cli import load_config, run_config  # noqa: E402

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "train" / "classic_sb3.yaml"
SMALL = ["total_timesteps=256", "n_envs=2", "ppo.n_steps=64", "ppo.batch_size=64",
         "ppo.n_epochs=2", "ppo.net_arch=[32, 32]", "checkpoint_every=128", "progress=false"]


def _observations(n: int = 150) -> list[tuple[np.ndarray, np.ndarray]]:
    """Observations and masks from random 2-player classic games."""
    e = uno_env.raw_env("classic", 2, max_steps=200)
    rnd = RandomAgent(0)
    out = []
    seed = 0
    while len(out) < n:
        e.reset(seed=seed)
        seed += 1
        while len(out) < n:
            sel = e.agent_selection
            if e.terminations[sel] or e.truncations[sel]:
                break
            ob = e.observe(sel)
            out.append((ob["observation"], ob["action_mask"]))
            e.step(rnd.act(ob["observation"], ob["action_mask"]))
    return out


def test_train_save_reload_acts_identically(tmp_path: Path) -> None:
    from uno_env.training.sb3_train import train_model

    config = load_config(CONFIG, [*SMALL, f"output_dir={tmp_path / 'run'}"])
    assert config["trainer"] == "sb3" and config["ppo"]["net_arch"] == [32, 32]
    model, path = train_model(config)
    assert path == tmp_path / "run" / "model.zip" and path.is_file()
    assert model.num_timesteps >= 256
    assert sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir()) == [
        "model_128_steps.zip", "model_256_steps.zip"]
    assert any((tmp_path / "run" / "tb").rglob("events.out.tfevents.*"))
    assert (tmp_path / "run" / "config.yaml").is_file()

    loaded = agents.load(f"sb3:{path}", variant="classic", num_players=2)
    again = agents.load(f"sb3:{path}")
    for obs, mask in _observations():
        expected, _ = model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
        a = loaded.act(obs, mask)
        assert a == int(expected) == again.act(obs, mask)
        assert mask[a] == 1

    with pytest.raises(ValueError, match="another configuration"):
        agents.load(f"sb3:{path}", num_players=3)


def test_train_config_errors_and_cli_dispatch(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from uno_env.training.sb3_train import resolve_config

    with pytest.raises(ValueError, match="unknown sb3 config key 'lerning_rate'"):
        resolve_config({"lerning_rate": 1})
    with pytest.raises(ValueError, match="unknown ppo key"):
        resolve_config({"ppo": {"n_step": 1}})
    with pytest.raises(ValueError, match="allowed: sb3, selfplay"):
        run_config({"trainer": "dqn"})

    seen: list[dict[str, Any]] = []
    fake = types.ModuleType("uno_env.training.selfplay")
    fake.train = lambda config: seen.append(config)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "uno_env.training.selfplay", fake)
    cfg = tmp_path / "sp.yaml"
    cfg.write_text("trainer: selfplay\nvariant: classic\nppo:\n  lr: 0.1\n")
    from uno_env.cli import main

    assert main(["train", str(cfg), "--set", "ppo.lr=0.5", "--set", "seed=3",
                 "--set", "opponents=[rule, random]"]) == 0
    assert seen == [{"trainer": "selfplay", "variant": "classic", "ppo": {"lr": 0.5},
                     "seed": 3, "opponents": ["rule", "random"]}]
    assert main(["train", str(tmp_path / "missing.yaml")]) == 2
    with pytest.raises(ValueError, match="KEY=VALUE"):
        load_config(cfg, ["seed"])


def test_a_model_from_before_the_history_pieces_is_refused_with_the_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gymnasium
    from sb3_contrib import MaskablePPO

    from uno_env.observation import HISTORY_PIECES

    game = uno_env.Game("classic", 2)
    layout = uno_env.ObservationLayout(game)
    old = layout.size - sum(layout.by_name[x].size for x in HISTORY_PIECES)
    stub = types.SimpleNamespace(
        observation_space=gymnasium.spaces.Box(0.0, 1.0, (old,)),
        action_space=gymnasium.spaces.Discrete(game.num_actions),
        policy=types.SimpleNamespace(set_training_mode=lambda mode: None))
    monkeypatch.setattr(MaskablePPO, "load", classmethod(lambda cls, *a, **k: stub))
    path = tmp_path / "model.zip"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=f"before the observation's pieces .* had {old} floats"):
        agents.load(f"sb3:{path}")
