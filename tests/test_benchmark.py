"""``uno-env benchmark`` end to end on the tiny config, its resume from stored cells, and
``uno-env exploit`` on a tiny budget (docs/benchmark-results.md is the full table's page)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uno_env.cli import main
from uno_env.training import benchmark
from uno_env.training.exploit import exploit

TINY = {"num_envs": 8, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]}


def test_exploit_runs_a_tiny_budget() -> None:
    r = exploit("rule", 200, "express", 2, seed=3, eval_games=16, curve_points=2,
                curve_games=8, ppo=TINY)
    assert r["steps"] >= 200 and r["budget"] == 200 and r["games"] == 16
    assert [p["steps"] for p in r["curve"]][-1] == r["steps"] and len(r["curve"]) == 2
    assert r["curve"][0]["games"] == 8
    assert r["ci_low"] <= r["win_rate"] <= r["ci_high"] and r["wins"] == round(16 * r["win_rate"])
    with pytest.raises(ValueError, match="batch engine plays"):
        exploit("ismcts", 10, "express", 2)
    with pytest.raises(ValueError, match="budget must be"):
        exploit("rule", 0, "express", 2)
    with pytest.raises(ValueError, match="unknown learner setting"):
        exploit("rule", 10, "express", 2, ppo={"lr": 1})


def test_benchmark_tiny_config_end_to_end_and_resumes(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["benchmark", "tiny", "--set", f"out_dir={tmp_path}",
            "--set", f"json={tmp_path / 'b.json'}", "--set", f"markdown={tmp_path / 'b.md'}"]
    assert main(args) == 0
    r = json.loads((tmp_path / "b.json").read_text())
    (express,) = r["tables"]
    assert express["env"] == "uno_express_v1" and set(express["agents"]) == {
        "random", "rule", "ppo", "search"}
    assert express["agents"]["ppo"]["file"] == "express_2p.pt"
    assert express["agents"]["ppo"]["sha256"] and not express["missing"]
    assert len(express["pairs"]) == 6 and [e["agent"] for e in express["exploit"]] == [
        "rule", "ppo"]
    assert all(p["games"] == (2 if "search" in (p["a"], p["b"]) else 8)
               for p in express["pairs"])
    page = (tmp_path / "b.md").read_text()
    assert "## express, 2 players" in page and "`uno_express_v1`" in page
    assert "| **rule** |" in page and "(8)" in page
    # a second run reuses every stored cell: nothing is played again
    monkeypatch.setattr("uno_env.training.evaluate.evaluate",
                        lambda *a, **k: pytest.fail("a stored cell was played again"))
    monkeypatch.setattr("uno_env.training.exploit.exploit",
                        lambda *a, **k: pytest.fail("a stored cell was trained again"))
    assert main(args) == 0
    assert json.loads((tmp_path / "b.json").read_text())["tables"] == r["tables"]


def test_more_players_one_seat_against_the_field_and_the_table_s_agent(tmp_path: Path) -> None:
    cfg = benchmark.load_config("tiny")
    cfg.update(out_dir=str(tmp_path), exploit_budget=0, games=4, search="random")
    vd = {"voluntary_draw": True, "catch_window": "turn"}  # the table ppo:classic-4p-vd plays
    t = benchmark.run_table(cfg, {"variant": "classic", "players": 4, "options": vd},
                            log=lambda _: None)
    assert t["agents"]["ppo"]["file"] == "classic_4p_vd.pt" and t["seating"] == "one"
    assert len(t["pairs"]) == 12 and all(p["games"] == 4 for p in t["pairs"])  # ordered
    stacking = {"stacking": True}  # a table no shipped agent was trained at
    t = benchmark.run_table(cfg, {"variant": "classic", "players": 4, "options": stacking},
                            log=lambda _: None)
    assert "ppo" in t["missing"] and "ppo:classic-4p-vd (classic, 4 players" in t["missing"]["ppo"]
    with pytest.raises(ValueError, match="unknown keys"):
        benchmark.load_config(_write(tmp_path / "bad.yaml", "gamez: 3\n"))


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
