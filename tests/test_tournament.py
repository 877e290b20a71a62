"""Tournaments: fair schedule, determinism across workers and backends, resume after a kill,
forfeits, statistics and the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from uno_env import Game
from uno_env.cli import build_parser
from uno_env.cli import main as uno_main
from uno_env.tournament.cli import coerce_option, config_from_args, parse_options
from uno_env.tournament.results import format_table, summarize
from uno_env.tournament.runner import GameLog, TournamentConfig, make_tasks, run_tournament
from uno_env.tournament.schedule import cycle_length, groups, make_deal, make_schedule

ROOT = Path(__file__).resolve().parent.parent
QUICK = {"uno_catch": "off"}


# --- agents that misbehave (loaded with the py:MODULE:NAME spec) --------------------------------
class CrashAgent:
    """Plays the first legal action, and raises on its third decision."""

    def __init__(self, **_: Any) -> None:
        self.calls = 0

    def reset(self) -> None:
        self.calls = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("boom")
        return int(np.flatnonzero(action_mask)[0])


class IllegalAgent:
    """Answers an action the mask forbids."""

    def __init__(self, **_: Any) -> None:
        pass

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask == 0)[0])


# --- schedule -------------------------------------------------------------------------------
@pytest.mark.parametrize("agents,players", [(2, 2), (3, 2), (4, 2), (2, 4), (3, 3), (5, 3),
                                            (3, 10), (12, 10)])
def test_schedule_every_agent_every_seat_equally_often(agents: int, players: int) -> None:
    cycle = cycle_length(agents, players)
    sched = make_schedule(agents, players, games=2 * cycle - 1)
    assert len(sched) == 2 * cycle  # whole cycles
    assert [f.index for f in sched] == list(range(len(sched)))
    seat_counts = Counter((f.seats[s], s) for f in sched for s in range(players))
    per_agent_seat = {seat_counts[(a, s)] for a in range(agents) for s in range(players)}
    assert len(per_agent_seat) == 1 and per_agent_seat.pop() > 0
    # duplicate: every deal is played once per rotation, by the same group
    by_deal: dict[int, list[tuple[int, ...]]] = {}
    for f in sched:
        by_deal.setdefault(f.deal, []).append(f.seats)
    assert len(by_deal) == len(sched) // players
    for tables in by_deal.values():
        assert len(tables) == players
        first = tables[0]
        assert tables == [tuple(first[(s + r) % players] for s in range(players))
                          for r in range(players)]
        for s in range(players):  # each seat sees the group's agents once each
            assert Counter(t[s] for t in tables) == Counter(first)


def test_schedule_two_players_is_a_full_round_robin() -> None:
    sched = make_schedule(4, 2, games=12)
    pairs = Counter(tuple(sorted(f.seats)) for f in sched)
    assert set(pairs) == {(a, b) for a in range(4) for b in range(a + 1, 4)}
    assert set(pairs.values()) == {2}
    assert groups(3, 10) == [tuple((j + i) % 3 for i in range(10)) for j in range(3)]


def test_random_deals_are_all_different() -> None:
    sched = make_schedule(2, 2, games=10, duplicate=False)
    assert [f.deal for f in sched] == list(range(10))
    assert [f.seats for f in sched] == [(0, 1), (1, 0)] * 5


def test_deals_come_from_the_seed() -> None:
    names = Game("classic", 3).card_names
    a, b = make_deal(7, 2, names, 3), make_deal(7, 2, names, 3)
    assert a == b
    assert sorted(a.deck) == sorted(names)
    assert make_deal(7, 3, names, 3).deck != a.deck
    assert make_deal(8, 2, names, 3).deck != a.deck
    tasks = make_tasks(TournamentConfig(agents=["rule", "random"], games=4, seed=7))
    assert tasks[0].deck == tasks[1].deck and tasks[0].seed == tasks[1].seed
    assert tasks[0].agents == ("rule", "random") and tasks[1].agents == ("random", "rule")
    assert tasks[2].deck != tasks[0].deck


# --- determinism ----------------------------------------------------------------------------
def _config(**kw: Any) -> TournamentConfig:
    base: dict[str, Any] = {"agents": ["rule", "random", "rule"], "games": 12, "seed": 3,
                            "options": dict(QUICK)}
    return TournamentConfig(**(base | kw))


def test_same_results_whatever_the_number_of_workers() -> None:
    one = run_tournament(_config(workers=1), progress=False)
    two = run_tournament(_config(workers=2), progress=False)
    assert one == two
    names = _config().names
    assert summarize(one, names) == summarize(two, names)
    assert [r["game"] for r in one] == list(range(12))


def test_more_players_than_agents() -> None:
    cfg = TournamentConfig(agents=["rule", "random"], players=3, games=6, seed=0,
                           options=dict(QUICK), max_steps=400)
    records = run_tournament(cfg, progress=False)
    assert len(records) == 6
    s = summarize(records, cfg.names)
    assert [a["games"] for a in s["agents"]] == [9, 9]
    assert sum(a["wins"] for a in s["agents"]) == 6 - s["no_winner"]


# --- nothing lost ---------------------------------------------------------------------------
def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _start(args: list[str]) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    return subprocess.Popen([sys.executable, "-m", "uno_env.cli", "tournament", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)


def _wait_lines(log: Path, proc: subprocess.Popen[bytes], at_least: int) -> None:
    deadline = time.monotonic() + 60
    while _lines(log) < at_least:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the tournament made no progress"
        time.sleep(0.005)


TOURNEY = ["--agents", "rule,rule", "--games", "300", "--seed", "5", "--no-progress"]


def test_resume_after_interruptions_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert uno_main(["tournament", *TOURNEY, "--workers", "1", "--out", str(whole)]) == 0
    log = cut / "games.jsonl"

    # Ctrl-C: the parent stops cleanly and says how to resume
    p = _start([*TOURNEY, "--workers", "1", "--out", str(cut)])
    _wait_lines(log, p, 20)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert b"--resume" in err
    first = _lines(log)
    assert 20 <= first < 300

    # everything killed at once, possibly in the middle of writing a line
    p = _start([*TOURNEY, "--workers", "1", "--out", str(cut), "--resume"])
    _wait_lines(log, p, first + 20)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    second = _lines(log)
    assert second < 300

    # a worker process is killed: a fresh one takes its place and the run goes on; its game
    # is a crash forfeit of the agent whose turn it was (replayable up to there), or dealt
    # again when the worker was between games (tests/test_tournament_hostile.py kills a
    # worker in a known turn)
    p = _start([*TOURNEY, "--workers", "2", "--out", str(cut), "--resume"])
    _wait_lines(log, p, second + 20)
    kids = [c for c in _children(p.pid)
            if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text(errors="replace")]
    assert kids
    os.kill(kids[-1], signal.SIGKILL)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    want = [json.loads(x) for x in (whole / "games.jsonl").read_text().splitlines()]
    have = [json.loads(x) for x in log.read_text().splitlines()]
    lost = [r for r in have if r["result"]["forfeit"] is not None]
    assert len(have) == 300 and len(lost) <= 1
    for r in lost:
        f = r["result"]["forfeit"]
        assert f["status"] == "crash" and "worker process playing this game died" in f["reason"]
        assert f["agent"] == "rule" and r["result"]["statuses"][f["seat"]] == "crash"
        assert want[r["game"]]["actions"][:len(r["actions"])] == r["actions"]
    gone = {r["game"] for r in lost}
    assert [r for r in have if r["game"] not in gone] == [r for r in want
                                                          if r["game"] not in gone]

    # nothing left to play: a resume only rewrites the reports
    assert uno_main(["tournament", "--resume", "--out", str(cut), "--no-progress"]) == 0
    assert [json.loads(x) for x in log.read_text().splitlines()] == have


def test_log_drops_a_torn_last_line(tmp_path: Path) -> None:
    log = GameLog(tmp_path / "games.jsonl")
    log.append({"game": 0})
    log.append({"game": 1})
    log.close()
    with (tmp_path / "games.jsonl").open("a") as fh:
        fh.write('{"game": 2, "act')
    assert log.read() == [{"game": 0}, {"game": 1}]
    assert (tmp_path / "games.jsonl").read_text() == '{"game":0}\n{"game":1}\n'


def test_refuses_to_mix_tournaments(tmp_path: Path) -> None:
    cfg = _config(games=6)
    run_tournament(cfg, out=tmp_path, progress=False)
    with pytest.raises(ValueError, match="--resume"):
        run_tournament(cfg, out=tmp_path, progress=False)
    with pytest.raises(ValueError, match="another tournament"):
        run_tournament(_config(games=6, seed=4), out=tmp_path, resume=True, progress=False)
    again = run_tournament(cfg, out=tmp_path, resume=True, progress=False)  # nothing to play
    assert again == run_tournament(cfg, progress=False)


# --- forfeits -------------------------------------------------------------------------------
@pytest.mark.parametrize("bad,reason", [("py:test_tournament:CrashAgent", "raised RuntimeError: boom"),
                                        ("py:test_tournament:IllegalAgent", "illegal action")])
def test_misbehaving_agent_forfeits(bad: str, reason: str) -> None:
    cfg = TournamentConfig(agents=["rule", bad], players=3, games=6, seed=1,
                           options=dict(QUICK))
    records = run_tournament(cfg, progress=False)
    forfeited = [r for r in records if r["result"]["forfeit"]]
    assert forfeited
    for r in forfeited:
        f = r["result"]["forfeit"]
        assert r["agents"][f["seat"]] == bad and reason in f["reason"]
        assert r["result"]["winners"] == [s for s in range(3) if s != f["seat"]]
    s = summarize(records, cfg.names)
    bad_row = next(a for a in s["agents"] if a["agent"] == bad)
    assert bad_row["forfeits"] == len(forfeited)
    assert len(s["forfeits"]) == len(forfeited)
    assert "forfeits: " in format_table(s) and reason in format_table(s)


def test_head_to_head_and_ratings() -> None:
    cfg = _config()
    s = summarize(run_tournament(cfg, progress=False), cfg.names)
    h2h = s["head_to_head"]
    assert h2h["rule"]["random"]["games"] == 4
    assert h2h["rule"]["random"]["wins"] + h2h["random"]["rule"]["wins"] == 4
    rows = {a["agent"]: a for a in s["agents"]}
    assert rows["rule"]["mu"] > rows["random"]["mu"]
    assert rows["rule"]["ci_low"] <= rows["rule"]["win_rate"] <= rows["rule"]["ci_high"]


# --- command line ---------------------------------------------------------------------------
def test_options_are_read_in_the_variants_types() -> None:
    assert parse_options("classic", ["uno_catch=off", "stacking=true", "target_score=200"]) \
        == {"uno_catch": "off", "stacking": True, "target_score": 200}
    assert coerce_option("classic", "uno_catch", False) == "off"  # YAML's reading of `off`
    assert coerce_option("classic", "stacking", "no") is False
    with pytest.raises(ValueError):
        parse_options("classic", ["stacking"])


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "tournament").glob("*.yaml")))
def test_shipped_configs_are_valid(path: Path) -> None:
    args = build_parser().parse_args(["tournament", str(path)])
    cfg, _ = config_from_args(args)
    cfg.validate()


def test_cli_writes_the_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    assert uno_main(["tournament", "--agents", "rule,random", "--games", "3", "--seed", "2",
                     "--option", "uno_catch=off", "--workers", "1", "--out", str(out)]) == 0
    text = capsys.readouterr()
    assert "rounded up to 4" in text.err
    assert "rule" in text.out and "95% CI" in text.out and "head to head" in text.out
    for name in ("results.json", "results.csv", "ratings.png", "games.jsonl"):
        assert (out / name).stat().st_size > 0
    data = json.loads((out / "results.json").read_text())
    assert data["games"] == 4 and data["options"] == QUICK
    assert {a["agent"] for a in data["agents"]} == {"rule", "random"}
    assert (out / "results.csv").read_text().splitlines()[0].startswith("agent,games,wins")
    assert (out / "ratings.png").read_bytes()[:4] == b"\x89PNG"


def test_a_tournament_one_agent_wins_outright_writes_every_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a run that broke the report (docs/tournaments.md): rule wins all 6 games, both randoms none; the textbook Wilson bounds
    # rounded past the estimates and matplotlib refused the negative error bar
    out = tmp_path / "t"
    assert uno_main(["tournament", "--variant", "flip", "--players", "3", "--agents",
                     "random,rule,random", "--games", "6", "--seed", "2", "--workers", "1",
                     "--out", str(out), "--no-progress"]) == 0
    assert "error" not in capsys.readouterr().err
    for name in ("results.json", "results.csv", "ratings.png", "games.jsonl"):
        assert (out / name).stat().st_size > 0
    rows = {a["agent"]: a for a in json.loads((out / "results.json").read_text())["agents"]}
    assert rows["rule"]["win_rate"] == 1.0 == rows["rule"]["ci_high"]  # the premise holds
    assert rows["random"]["win_rate"] == 0.0 == rows["random"]["ci_low"]


def test_a_failing_report_never_loses_a_finished_tournament(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import uno_env.tournament.results
    from uno_env.tournament.cli import REPORT_FAILED

    def broken(summary: dict[str, Any], path: Path) -> None:
        raise RuntimeError("no display for you")

    monkeypatch.setattr(uno_env.tournament.results, "plot_ratings", broken)
    out = tmp_path / "t"
    code = uno_main(["tournament", "--agents", "rule,random", "--games", "2", "--workers", "1",
                     "--out", str(out), "--no-progress"])
    assert code == REPORT_FAILED != 0
    text = capsys.readouterr()
    assert ("the tournament finished, but a report failed: ratings.png: RuntimeError: "
            "no display for you") in text.err
    assert "rule" in text.out  # the table is still printed
    for name in ("results.json", "results.csv", "games.jsonl"):
        assert (out / name).stat().st_size > 0
    assert not (out / "ratings.png").exists()
