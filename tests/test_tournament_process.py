"""Agents in their own processes: faults forfeit one game each and are recorded with their
status, limits are enforced, the example agents pass check-agent, hosted Python agents play
as they do in process, and a tournament killed with SIGKILL resumes to the same log."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from uno_env.cli import main as uno_main
from uno_env.tournament.check import check
from uno_env.tournament.process import AgentProcess, Limits
from uno_env.tournament.protocol import AgentFault
from uno_env.tournament.runner import TournamentConfig, run_tournament

ROOT = Path(__file__).resolve().parent.parent
FAULTY = f"cmd:{sys.executable} tests/faulty_agent.py"
NODE = "cmd:node examples/agents/random_agent.js"
PYTHON = f"cmd:{sys.executable} examples/agents/random_agent.py"
QUICK = {"uno_catch": "off"}
FAST = {"move_time": 0.2, "bank_time": 0.5, "first_move_time": 3.0, "isolate_python": False}
"""Short limits (the suite shares two cores); in-process Python agents stay in process."""


def _run(agents: list[str], games: int = 2, **kw: Any) -> list[dict[str, Any]]:
    cfg = TournamentConfig(agents=agents, games=games, seed=4, options=dict(QUICK),
                           max_steps=1000, **(FAST | kw))
    return run_tournament(cfg, progress=False)


def _agent_processes() -> list[str]:
    """Command lines of running faulty/example agents started from this checkout (none may
    outlive a tournament; other checkouts' test runs on the same machine are not ours)."""
    out = []
    here = str(Path.cwd().resolve())
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                if os.readlink(d / "cwd") != here:
                    continue
            except OSError:
                continue
            if "faulty_agent.py" in cmd or "examples/agents/random_agent" in cmd:
                out.append(cmd)
    return out


def _untimed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "timing"} for r in records]


# --- faults ---------------------------------------------------------------------------------
@pytest.mark.parametrize("mode,status,reason", [
    ("hang", "timeout", "no answer within the move limit (200 ms) and the bank"),
    ("exit", "crash", "exited with code 3"),
    ("garbage", "invalid", "answer is not JSON: 'I play the red seven'"),
    ("illegal", "invalid", "illegal action"),
    ("chatty", "invalid", "wrote to stdout without being asked"),
    ("alloc", "crash", "(memory limit 256 MiB)"),
])
def test_a_fault_forfeits_that_game_only(mode: str, status: str, reason: str) -> None:
    spec = f"{FAULTY} {mode} 2"
    records = _run([spec, "random"], games=4, memory_mb=256, agent_process="match")
    assert len(records) == 4  # the tournament went on
    for r in records:
        bad = r["agents"].index(spec)
        f = r["result"]["forfeit"]
        assert f is not None and f["seat"] == bad and f["status"] == status, f
        assert reason in f["reason"]
        assert r["result"]["statuses"] == [status if s == bad else "ok" for s in range(2)]
        assert r["result"]["winners"] == [1 - bad]
        # the fault came at the agent's 2nd decision of every game (answered or not): a
        # fresh process served each game after a fault, though processes were kept
        answered = 2 if mode in ("garbage", "illegal", "chatty") else 1
        assert r["timing"]["seats"][bad]["moves"] == answered
        assert f"faulty agent ({mode}) seat {bad}" in f["stderr"]
    assert not _agent_processes()


def test_slow_but_inside_the_bank_is_ok_and_beyond_it_a_timeout() -> None:
    inside = _run([f"{FAULTY} slow 1", "random"], bank_time=1.0)
    for r in inside:
        seat = r["agents"].index(f"{FAULTY} slow 1")
        assert r["result"]["statuses"] == ["ok", "ok"] and r["result"]["forfeit"] is None
        t = r["timing"]["seats"][seat]
        # three moves of 250 ms against a 200 ms limit: about 150 ms came out of the bank
        assert t["moves"] > 3 and 400 < t["bank_left_ms"] < 960, t
    beyond = _run([f"{FAULTY} slow 2", "random"], bank_time=0.05)
    assert {r["result"]["forfeit"]["status"] for r in beyond} == {"timeout"}


def test_cpu_limit() -> None:
    spin = f"{sys.executable} -c 'import sys; sys.stdin.readline(); sys.stdin.readline(); " \
           "exec(\"while True: pass\")'"
    records = _run([f"cmd:{spin}", "random"], games=2, cpu_time=0.5, first_move_time=20.0)
    for r in records:
        f = r["result"]["forfeit"]
        assert f["status"] == "timeout" and "CPU limit" in f["reason"], f


def test_a_program_that_cannot_start() -> None:
    with pytest.raises(ValueError, match="not a program on PATH"):
        _run(["cmd:no-such-program-anywhere", "random"])
    with pytest.raises(ValueError, match="names no program"):
        _run(["cmd:  ", "random"])
    records = _run([f"cmd:{sys.executable} tests/no_such_script.py", "random"])
    assert {r["result"]["forfeit"]["status"] for r in records} == {"crash"}
    assert "No such file" in records[0]["result"]["forfeit"]["stderr"]


def test_an_agent_that_stops_reading_cannot_stall_the_runner() -> None:
    p = AgentProcess(["sleep", "30"], Limits())
    t0 = time.monotonic()
    with pytest.raises(AgentFault, match="does not read its stdin") as err:
        for _ in range(100):  # 1 MB: far past what the pipe holds
            p.send({"type": "act", "pad": "x" * 10_000}, time.monotonic() + 0.3)
    assert err.value.status == "timeout" and time.monotonic() - t0 < 3
    p.kill()
    assert not p.alive


def test_stderr_keeps_its_end() -> None:
    code = "import sys; sys.stderr.write('a' * 100000 + 'END'); sys.stderr.flush(); input()"
    p = AgentProcess([sys.executable, "-c", code], Limits(stderr_bytes=1000))
    deadline = time.monotonic() + 10
    while not p.stderr().endswith("END") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert p.stderr() == "a" * 997 + "END"
    p.close()


# --- the bar: rule, a node agent and a hanging agent -----------------------------------------
def test_rule_node_and_a_hanging_agent(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    hang = f"{FAULTY} hang 3"
    out = tmp_path / "t"
    assert uno_main(["tournament", "--agents", f"rule,{NODE},{hang}", "--games", "6",
                     "--seed", "1", "--option", "uno_catch=off", "--move-time", "0.5",
                     "--bank-time", "0.5", "--first-move-time", "5", "--workers", "1",
                     "--no-progress", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    records = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 6
    for r in records:
        statuses = r["result"]["statuses"]
        if hang in r["agents"]:
            assert statuses[r["agents"].index(hang)] == "timeout"
            assert r["result"]["forfeit"]["agent"] == hang
        else:  # rule against node: played out
            assert statuses == ["ok", "ok"] and r["result"]["forfeit"] is None
            assert r["result"]["winners"]
    rows = {a["agent"]: a for a in json.loads((out / "results.json").read_text())["agents"]}
    assert rows[hang]["forfeits"] == rows[hang]["timeout"] == 4
    assert rows[hang]["wins"] == 0 and rows[NODE]["forfeits"] == rows["rule"]["forfeits"] == 0
    assert "forfeits: 4 (4 timeout)" in text
    assert (out / "results.csv").read_text().splitlines()[0].endswith(
        "forfeits,timeout,crash,invalid")
    assert not _agent_processes()


# --- hosted Python agents, example agents ---------------------------------------------------
def test_hosted_python_agents_play_as_in_process() -> None:
    inside = _run(["rule", "random"], games=4)
    hosted = _run(["rule", "random"], games=4, isolate_python=True)
    assert all("timing" in r for r in hosted) and not any("timing" in r for r in inside)
    assert [r["actions"] for r in hosted] == [r["actions"] for r in inside]
    assert [r["result"]["winners"] for r in hosted] == [r["result"]["winners"] for r in inside]


def test_process_modes_and_workers_give_the_same_games() -> None:
    """A process per game in one worker, or kept per match over two worker processes: the
    example agents seed themselves from hello, so the games are the same."""
    one = _run(["rule", NODE, PYTHON], games=6)
    two = _run(["rule", NODE, PYTHON], games=6, workers=2, agent_process="match")
    assert _untimed(one) == [{**r, "limits": {**r["limits"], "process": "game"}}
                             for r in _untimed(two)]
    assert all(s == "ok" for r in one for s in r["result"]["statuses"])
    assert not _agent_processes()


@pytest.mark.parametrize("spec", [PYTHON, NODE])
def test_example_agents_pass_check_agent(spec: str) -> None:
    lines, errors, warnings = check(spec, games=2, limits=Limits(move=0.5, first_move=3.0))
    assert errors == [] and warnings == [], (errors, warnings)
    assert "2 games, 2 without a forfeit" in lines[1] and "process per match" in lines[2]


def test_check_agent_reports_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert uno_main(["check-agent", f"{FAULTY} illegal 4", "--games", "2",
                     "--first-move-time", "3"]) == 1
    out = capsys.readouterr().out
    assert out.count("invalid: illegal action") == 4 and "4 errors, 0 warnings" in out


# --- kill and resume ------------------------------------------------------------------------
def test_sigkill_and_resume_give_the_same_log(tmp_path: Path) -> None:
    # limits generous enough that only the hanging agent ever times out on a loaded machine
    args = ["--agents", f"rule,{NODE},{FAULTY} hang 4", "--games", "6", "--seed", "9",
            "--option", "uno_catch=off", "--move-time", "0.5", "--bank-time", "0.5",
            "--first-move-time", "5", "--workers", "1", "--no-progress"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    cmd = [sys.executable, "-m", "uno_env.cli", "tournament", *args]
    done = subprocess.run([*cmd, "--out", str(whole)], cwd=ROOT, env=env,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    p = subprocess.Popen([*cmd, "--out", str(cut)], cwd=ROOT, env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    log = cut / "games.jsonl"
    deadline = time.monotonic() + 120
    while not log.exists() or log.read_bytes().count(b"\n") < 2:
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    assert log.read_bytes().count(b"\n") < 6
    deadline = time.monotonic() + 5  # the agents die with the runner (PR_SET_PDEATHSIG, and
    while _agent_processes() and time.monotonic() < deadline:  # then their sandboxes)
        time.sleep(0.05)
    assert not _agent_processes()
    resumed = subprocess.run([*cmd, "--out", str(cut), "--resume"], cwd=ROOT, env=env,
                             capture_output=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    a = [json.loads(x) for x in (whole / "games.jsonl").read_text().splitlines()]
    b = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(a) == len(b) == 6 and _untimed(a) == _untimed(b)
    assert {r["result"]["forfeit"]["status"] for r in a if r["result"]["forfeit"]} == {
        "timeout"}
    assert json.loads((whole / "results.json").read_text()) == json.loads(
        (cut / "results.json").read_text())
