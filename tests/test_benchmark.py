"""``uno-env benchmark`` end to end on the tiny config, its resume from stored cells, and
``uno-env exploit`` on a tiny budget (docs/benchmark-results.md is the full table's page)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from uno_env.cli import main
from uno_env.training import benchmark
from uno_env.training.benchmark_report import capture_line, edge_share
from uno_env.training.exploit import exploit, tally

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


class _FirstLegal:
    """A learner stand-in: the first legal action, always (``model.predict``'s signature)."""

    def predict(self, obs: Any, action_masks: Any, deterministic: bool) -> tuple[Any, None]:
        return action_masks.argmax(axis=1), None


def test_win_rate_counts_wins_losses_and_truncated_games_apart() -> None:
    from uno_env.training.exploit import win_rate

    # every game cut at 6 decisions: none won, none lost, no rate over decided games
    cut = win_rate(_FirstLegal(), "rule", 16, "express", 2, {}, seed=1, max_steps=6, num_envs=8)
    assert (cut["games"], cut["wins"], cut["losses"], cut["truncated"]) == (16, 0, 0, 16)
    assert cut["win_rate"] == 0.0 and cut["decided_win_rate"] is None
    full = win_rate(_FirstLegal(), "rule", 16, "express", 2, {}, seed=1, max_steps=2000,
                    num_envs=8)
    assert full["truncated"] == 0 and full["wins"] + full["losses"] == full["games"] == 16
    assert full["decided_win_rate"] == full["win_rate"]
    some = tally(3, 5, 10)  # 3 won, 2 lost, 5 truncated
    assert some["losses"] == 2 and some["win_rate"] == 0.3 and some["decided_win_rate"] == 0.6
    assert some["decided_ci_low"] < 0.6 < some["decided_ci_high"]
    assert some["ci_low"] < 0.3 < some["ci_high"]


def test_the_page_says_how_many_games_were_truncated() -> None:
    from uno_env.training.benchmark_report import markdown

    docs = Path(__file__).resolve().parents[1] / "docs"
    result = json.loads((docs / "benchmark-results.json").read_text(encoding="utf-8"))
    table = dict(result["tables"][0], exploit=[dict(e) for e in result["tables"][0]["exploit"]])
    table["pairs"] = [dict(table["pairs"][0], truncated=7), *table["pairs"][1:]]
    table["exploit"][0].update(truncated=1024)
    table["exploit"][1].update(truncated=0)
    page = markdown({**result, "tables": [table]})
    assert "(2,000; 7 truncated)" in page and "(1,024; 1,024 truncated)" in page
    assert "were measured before truncated games were counted" not in page
    del table["exploit"][1]["truncated"]
    page = markdown({**result, "tables": [table]})
    assert "The exploitability cells classic 2p ppo were measured before truncated" in page
    assert "measured again alone" not in page
    table["exploit"][0]["rerun"] = "then, so"
    page = markdown({**result, "tables": [table]})
    assert "measured again alone after that run, with the same settings, to count their " \
        "truncated games: classic 2p rule (then, so)." in page


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
    again = json.loads((tmp_path / "b.json").read_text())
    cells = [c for t in again["tables"] for c in t["pairs"] + t["exploit"]]
    assert all(c["reused"] for c in cells) and again["reused_seconds"] == again["cells_seconds"]
    assert not any(c["reused"] for c in express["pairs"] + express["exploit"])
    assert _unmarked(again["tables"]) == _unmarked(r["tables"])
    assert "by an earlier run of the same cells, reused" in (tmp_path / "b.md").read_text()


def _unmarked(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tables without the cells' ``reused`` marks (the one thing a resumed run changes)."""
    return [{**t, "pairs": [{k: v for k, v in c.items() if k != "reused"} for c in t["pairs"]],
             "exploit": [{k: v for k, v in c.items() if k != "reused"} for c in t["exploit"]]}
            for t in tables]


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


def test_the_search_against_rule_has_its_own_games_and_budgets_are_per_table() -> None:
    cfg = benchmark.load_config("default")
    classic2, classic4, flip2 = cfg["tables"][:3]
    assert benchmark.pair_games(cfg, classic2, "rule", "search") == classic2["edge_games"]
    assert benchmark.pair_games(cfg, classic2, "search", "rule") == classic2["edge_games"]
    assert benchmark.pair_games(cfg, classic2, "ppo", "search") == classic2["search_games"]
    # 4 players: only the search in one seat against three rule is the edge's cell
    assert benchmark.pair_games(cfg, classic4, "search", "rule") == classic4["edge_games"]
    assert benchmark.pair_games(cfg, classic4, "rule", "search") == classic4["search_games"]
    assert benchmark.pair_games(cfg, flip2, "rule", "search") == cfg["search_games"]
    assert benchmark.pair_games(cfg, flip2, "rule", "ppo") == cfg["games"]
    assert benchmark.pair_games(cfg, {**classic4, "edge_games": 7}, "search", "rule") == 4


def _table(players: int, search: tuple[float, float, float], games: int) -> dict[str, Any]:
    ppo = {"name": "ppo", "win_rate": 0.563, "ci_low": 0.541, "ci_high": 0.585}
    other = {"name": "rule", "win_rate": 0.437, "ci_low": 0.415, "ci_high": 0.459}
    s = dict(zip(("win_rate", "ci_low", "ci_high"), search, strict=True))
    return {"players": players, "agents": {"search": {"spec": "ismcts:simulations=100"}},
            "pairs": [
        {"a": "ppo", "b": "rule", "games": 2000, "agents": [ppo, other]},
        {"a": "search", "b": "rule", "games": games, "agents": [{"name": "search", **s}, other]}]}


def test_the_ppo_agent_s_share_of_the_search_s_edge_has_an_interval_or_is_not_stated() -> None:
    share = edge_share(_table(2, (0.58, 0.556, 0.603), 1600))
    assert share is not None and share["share"] == pytest.approx(0.063 / 0.08)
    assert share["low"] < share["share"] < share["high"]
    line = capture_line(_table(2, (0.58, 0.556, 0.603), 1600))
    assert line is not None and "**79%** [" in line and "(1,600 games)" in line
    # an edge inside its interval (54% of 100 games) gives no share, only the edges
    line = capture_line(_table(2, (0.54, 0.443, 0.634), 100))
    assert line is not None and "cannot be stated (point estimate 157%, no interval)" in line
    line = capture_line(_table(4, (0.20, 0.105, 0.348), 40))
    assert line is not None and "cannot be stated." in line and "in one seat" in line
    assert capture_line({"players": 2, "pairs": []}) is None


def test_the_committed_page_is_generated_from_the_committed_json() -> None:
    """docs/benchmark-results.md is exactly what the report writes from the JSON beside it (a
    hand edit or a stale page fails here), and names no machine's absolute path."""
    from uno_env.training.benchmark_report import markdown

    docs = Path(__file__).resolve().parents[1] / "docs"
    page = (docs / "benchmark-results.md").read_text(encoding="utf-8")
    result = json.loads((docs / "benchmark-results.json").read_text(encoding="utf-8"))
    assert markdown(result) == page, "stale page: rerun `uno-env benchmark` (it resumes)"
    assert "/work/" not in page and "/home/" not in page


def test_the_network_playout_search_s_edge_cell_runs_resumes_and_names_the_search(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``edge_search``: the batched network-playout search (the table's PPO network) against
    rule is its own stored cell, and the share line is of its edge, naming it."""
    cfg = benchmark.load_config("tiny")
    cfg.update(out_dir=str(tmp_path), exploit_budget=0, games=2, search="random",
               edge_search={"samples": 2})
    table = {"variant": "classic", "players": 2, "edge_search": {"games": 3}}
    t = benchmark.run_table(cfg, table, log=lambda _: None)
    e = t["edge_search"]
    assert e["spec"] == "ismcts:search=pimc;prior=ppo:classic;simulations=2;z=1.5"
    assert e["games"] == 3 and e["samples"] == 2 and not e["reused"]
    assert e["ci_low"] <= e["win_rate"] <= e["ci_high"] and e["wins"] == round(3 * e["win_rate"])
    stored = json.loads((tmp_path / "cells" / "classic_2p" / "edge-search-2.json").read_text())
    assert stored["key"]["network"]["sha256"] == t["agents"]["ppo"]["sha256"]
    assert {k: stored["key"][k] for k in ("samples", "games", "seed")} == {
        "samples": 2, "games": 3, "seed": 0}
    line = capture_line(t)
    assert line is not None and "`ismcts:search=pimc;prior=ppo:classic;simulations=2;z=1.5`" \
        in line and "2 determinizations a decision" in line and "(3 games)" in line
    assert edge_share(t)["search_games"] == 3  # type: ignore[index]
    def played(*a: Any, **k: Any) -> None:
        raise RuntimeError("a stored edge cell was played again")

    monkeypatch.setattr("uno_env.training.expert.generate.generate", played)
    again = benchmark.run_table(cfg, table, log=lambda _: None)
    assert again["edge_search"] == {**e, "reused": True}
    # a table may turn it off; more games are another cell (the key holds the games)
    assert "edge_search" not in benchmark.run_table(cfg, {**table, "edge_search": {}},
                                                    log=lambda _: None)
    with pytest.raises(RuntimeError, match="played again"):
        benchmark.run_table(cfg, {**table, "edge_search": {"games": 4}}, log=lambda _: None)


@pytest.mark.parametrize(("text", "match"), [
    ("edge_search: {samples: 0, games: 10}", "samples must be a whole number >= 1"),
    ("edge_search: {samples: 8}", "games must be a whole number >= 1"),
    ("edge_search: {samples: 8, games: 10, z: 1}", r"unknown keys \['z'\]; allowed: samples"),
    ("edge_search: 64", "edge_search must be a dict"),
])
def test_bad_edge_search_settings_are_refused_with_what_is_allowed(tmp_path: Path, text: str,
                                                                    match: str) -> None:
    tiny = (Path(__file__).resolve().parents[1] / "configs" / "benchmark" / "tiny.yaml")
    path = _write(tmp_path / "bad.yaml", tiny.read_text() + text + "\n")
    with pytest.raises(ValueError, match=match):
        benchmark.load_config(path)
    table = ("tables:\n  - {variant: express, players: 2, edge_search: {samples: 2, "
             "games: -1}}\n")
    path = _write(tmp_path / "bad2.yaml", tiny.read_text().split("tables:")[0] + table)
    with pytest.raises(ValueError, match="games must be a whole number >= 1"):
        benchmark.load_config(path)
