"""Hostile agents (tests/hostile_agents/hostile.py) against the runner (docs/sandbox.md):
every attack ends as a recorded game with the right status, the tournament finishes and
its records are the host's, no process of the agent is left, and a sandboxed agent reaches
neither the network, nor the tournament's files, nor another agent's, nor the host.

These tests need bubblewrap (`.ci/run` installs it): they fail, never skip, without it.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import uno_env
from uno_env.cli import main as uno_main
from uno_env.tournament import sandbox
from uno_env.tournament.check import check
from uno_env.tournament.process import Limits
from uno_env.tournament.runner import DEFAULT_MAX_STEPS, TournamentConfig, run_tournament

ROOT = Path(__file__).resolve().parent.parent
HOSTILE_DIR = "tests/hostile_agents"
HOSTILE = f"{HOSTILE_DIR}/hostile.py"
FAST = {"move_time": 0.5, "bank_time": 1.0, "first_move_time": 5.0, "isolate_python": False}
"""Short limits; ``rule`` stays in process."""


@pytest.fixture
def mark() -> Iterator[str]:
    """A word in the command line of this test's hostile agents (and of their children);
    after the test none may be alive (those found are killed, and the test fails)."""
    word = f"mark{uuid.uuid4().hex[:12]}"
    yield word
    left = _alive(word)
    for pid in left:
        os.kill(pid, 9)
    assert not left


def _alive(word: str, wait: float = 2.0) -> list[int]:
    """Processes of this test's agents (a process being killed may take a moment)."""
    deadline = time.monotonic() + wait
    while (left := _alive_now(word)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _alive_now(word: str) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if word.encode() in (d / "cmdline").read_bytes() and (
                        d / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    out.append(int(d.name))
            except OSError:
                continue
    return out


def _spec(mark: str, mode: str, *args: str) -> str:
    return f"cmd:{sys.executable} {HOSTILE} {mark} {mode} {' '.join(args)}".strip()


def _hex(text: str | int) -> str:
    return str(text).encode().hex()


def _run(agents: list[str], games: int = 2, out: Path | None = None, resume: bool = False,
         **kw: Any) -> list[dict[str, Any]]:
    cfg = TournamentConfig(agents=agents, games=games, seed=3, options={"uno_catch": "off"},
                           max_steps=300, **(FAST | kw))
    return run_tournament(cfg, out=out, resume=resume, progress=False)


def _forfeits(records: list[dict[str, Any]], spec: str) -> list[dict[str, Any]]:
    """The forfeit of ``spec`` in each game (the attack comes in every game)."""
    out = []
    for r in records:
        f = r["result"]["forfeit"]
        assert f is not None and f["agent"] == spec, r["result"]
        assert r["result"]["statuses"][f["seat"]] == f["status"]
        assert r["result"]["winners"] == [s for s in range(2) if s != f["seat"]]
        out.append(f)
    return out


def test_this_host_builds_sandboxes() -> None:
    assert sandbox.problem() is None  # CI installs bubblewrap: these tests must not skip


# --- answers that used to end the tournament ------------------------------------------------
@pytest.mark.parametrize("mode,why", [("bigint", "Exceeds the limit"),
                                      ("nested", "RecursionError")])
def test_a_malformed_answer_is_invalid(mode: str, why: str, mark: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(mark, mode)
    out = tmp_path / "t"
    args = ["tournament", "--agents", f"rule,{spec}", "--games", "4", "--option",
            "uno_catch=off", "--move-time", "0.5", "--first-move-time", "5", "--workers", "1",
            "--no-progress", "--no-replay-pages", "--out", str(out)]
    assert uno_main(args) == 0
    records = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4
    for f in _forfeits(records, spec):
        assert f["status"] == "invalid" and why in f["reason"], f
    rows = {a["agent"]: a for a in json.loads((out / "results.json").read_text())["agents"]}
    assert rows[spec]["invalid"] == 4 and rows["rule"]["wins"] == 4
    assert uno_main([*args, "--resume"]) == 0  # nothing left: --resume runs and ends
    capsys.readouterr()
    assert uno_main(["check-agent", spec, "--games", "1", "--first-move-time", "5"]) == 1
    assert "invalid: answer is not JSON" in capsys.readouterr().out


# --- the host: signals, escapes, records ----------------------------------------------------
def test_a_sandboxed_agent_cannot_signal_the_host(mark: str) -> None:
    spec = _spec(mark, "killhost")
    records = _run(["rule", spec], games=4, workers=2)
    assert len(records) == 4
    # its parent is the first process of its PID namespace, which ignores the signal; the
    # games are those of an agent that plays the same moves and attacks nothing
    assert all(r["result"]["forfeit"] is None for r in records)
    benign = _run(["rule", f"cmd:{sys.executable} tests/faulty_agent.py ok"], games=4)
    assert [(r["actions"], r["result"]) for r in records] == [
        (r["actions"], r["result"]) for r in benign]
    lines, errors, _ = check(spec, games=1, limits=Limits(move=0.5, first_move=5.0))
    assert errors == [] and "2 games, 2 without a forfeit" in lines[1]


def test_a_trusted_agent_that_kills_its_worker_forfeits_and_the_worker_is_replaced(
        mark: str, tmp_path: Path) -> None:
    spec = _spec(mark, "killhost")
    records = _run(["rule", spec], games=4, workers=2, trusted_agents=True, out=tmp_path)
    log = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(records) == len(log) == 4
    for f in _forfeits(records, spec):
        assert f["status"] == "crash", f
        assert "worker process playing this game died (exit code -15)" in f["reason"]
    assert all(r["actions"] for r in records)  # replayable up to the kill (lost_game)
    assert _run(["rule", spec], games=4, workers=2, trusted_agents=True, out=tmp_path,
                resume=True) == records  # --resume finds every game done


def test_an_agent_cannot_outlive_the_tournament_or_touch_its_results(
        mark: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    spec = _spec(mark, "escape", _hex(out))
    assert uno_main(["tournament", "--agents", f"rule,{spec}", "--games", "2", "--option",
                     "uno_catch=off", "--move-time", "0.5", "--first-move-time", "5",
                     "--workers", "1", "--no-progress", "--no-replay-pages",
                     "--out", str(out)]) == 0
    results = (out / "results.json").read_text()
    assert not _alive(mark)  # the grandchild in its own session died with the sandbox
    time.sleep(1.0)  # when it would have rewritten results.json
    assert (out / "results.json").read_text() == results and "pwned" not in results
    records = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert [r["result"]["statuses"] for r in records] == [["ok", "ok"]] * 2
    capsys.readouterr()
    assert uno_main(["check-agent", spec, "--games", "1", "--first-move-time", "5",
                     "--move-time", "0.5"]) == 0
    text = capsys.readouterr().out
    assert "other processes still running when its game ended" in text, text
    assert not _alive(mark)


def test_a_trusted_agent_that_escapes_leaks_no_thread_or_descriptor(
        mark: str, tmp_path: Path) -> None:
    """Without a sandbox the grandchild survives and writes where it likes (the threat
    model says so), but the runner keeps nothing of it: no reader thread, no pipe."""
    spec = _spec(mark, "escape", _hex(tmp_path))
    fds, threads = len(os.listdir("/proc/self/fd")), threading.active_count()
    records = _run(["rule", spec], games=4, trusted_agents=True)
    assert all(r["result"]["forfeit"] is None for r in records)
    assert len(os.listdir("/proc/self/fd")) == fds and threading.active_count() == threads
    time.sleep(1.5)
    assert "pwned" in (tmp_path / "results.json").read_text()
    survivors = _alive_now(mark)
    assert survivors  # what the sandbox prevents (the test above)
    for pid in survivors:
        os.kill(pid, 9)


# --- limits over the whole process tree -----------------------------------------------------
def test_memory_limit_holds_for_the_process_tree(mark: str) -> None:
    spec = _spec(mark, "memhog", "200")  # three children of 200 MiB, each under 384
    records = _run(["rule", spec], memory_mb=384, bank_time=10.0)
    for f in _forfeits(records, spec):
        assert f["status"] == "crash" and "together (memory limit 384 MiB)" in f["reason"], f


def test_cpu_limit_holds_for_the_process_tree(mark: str) -> None:
    spec = _spec(mark, "cpuhog")
    records = _run(["rule", spec], cpu_time=0.5, bank_time=10.0)
    for f in _forfeits(records, spec):
        assert f["status"] == "timeout" and "by its processes together" in f["reason"], f


def test_a_fork_flood_is_a_crash(mark: str) -> None:
    spec = _spec(mark, "forks")
    records = _run(["rule", spec], bank_time=10.0)
    for f in _forfeits(records, spec):
        assert f["status"] == "crash" and f"more than {sandbox.MAX_PROCESSES}" in f["reason"]


# --- what an agent can reach ----------------------------------------------------------------
@pytest.fixture
def web() -> Iterator[tuple[int, list[str]]]:
    """An HTTP server on 127.0.0.1 (the host's loopback); the paths it was asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server hook
            asked.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"secret page")

        def log_message(self, *_: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], asked
    server.shutdown()
    server.server_close()


def test_a_sandboxed_agent_reaches_nothing_it_must_not(
        mark: str, tmp_path: Path, web: tuple[int, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    port, asked = web
    secret = f"s3cret-{mark}"
    monkeypatch.setenv("UNO_HOSTILE_SECRET", secret)
    other = tmp_path / "other_team" / "bot.py"  # another agent's own file
    other.parent.mkdir()
    shutil.copy(ROOT / "examples/agents/random_agent.py", other)
    opponent = f"cmd:{sys.executable} {other}"

    def spy(out: Path) -> str:
        return _spec(mark, "spy", _hex(out), _hex(other), _hex(os.getpid()), _hex(port),
                     _hex(secret))

    # trusted: the spy reaches every one of them (so the probe works) ...
    out = tmp_path / "trusted"
    records = _run([opponent, spy(out)], out=out, trusted_agents=True)
    f = _forfeits(records, spy(out))[-1]
    assert f["reason"] == "exited with code 42", f
    for reached in (f"read {out}/games.jsonl", f"read {out}/tournament.json", f"read {other}",
                    f"read /proc/{os.getpid()}/environ", f"network 127.0.0.1:{port}",
                    "secret in its environment"):
        assert reached in f["stderr"], (reached, f["stderr"])
    assert asked

    # ... sandboxed, none: both agents play every game out
    asked.clear()
    out = tmp_path / "sandboxed"
    records = _run([opponent, spy(out)], games=4, out=out)
    assert all(r["result"]["forfeit"] is None for r in records), [
        r["result"]["forfeit"] for r in records]
    assert asked == []


def test_an_agent_sees_its_own_files_read_only_and_a_private_tmp(tmp_path: Path) -> None:
    own = tmp_path / "bot"
    own.mkdir()
    (own / "data.txt").write_text("mine")
    probe = own / "probe.py"
    probe.write_text(
        "import json, os, sys\n"
        "here = os.path.dirname(os.path.abspath(__file__))\n"
        "assert open(os.path.join(here, 'data.txt')).read() == 'mine'\n"
        "for path in (os.path.join(here, 'x'), '/usr/x', '/x'):\n"
        "    try:\n"
        "        open(path, 'w')\n"
        "        sys.exit(7)\n"
        "    except OSError:\n"
        "        pass\n"
        "open('/tmp/scratch', 'w').write('ok')\n"
        "assert len([p for p in os.listdir('/proc') if p.isdigit()]) < 5\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg['type'] == 'act':\n"
        "        print(json.dumps({'action': msg['legal'][0]}), flush=True)\n")
    spec = f"cmd:{sys.executable} {probe} {own}"
    records = _run(["rule", spec])
    assert all(r["result"]["forfeit"] is None for r in records), [
        r["result"]["forfeit"] for r in records]


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build the agent")
def test_a_compiled_agent_given_by_its_path_plays(tmp_path: Path) -> None:
    binary = tmp_path / "bin" / "first_legal"
    binary.parent.mkdir()
    subprocess.run(["cc", "-O1", "-o", str(binary), str(ROOT / HOSTILE_DIR / "first_legal.c")],
                   check=True)
    records = _run(["rule", f"cmd:{binary}"])
    assert all(r["result"]["forfeit"] is None for r in records), [
        r["result"]["forfeit"] for r in records]


# --- the host refuses what it cannot confine; the decision limit ----------------------------
def test_without_a_sandbox_untrusted_agents_are_refused(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sandbox, "problem", lambda: "bubblewrap is not installed (test)")
    node = "cmd:node examples/agents/random_agent.js"
    with pytest.raises(sandbox.SandboxUnavailable, match="--trusted-agents"):
        _run(["rule", node])
    assert uno_main(["tournament", "--agents", f"rule,{node}", "--games", "2",
                     "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "bubblewrap is not installed (test)" in err and "--trusted-agents" in err
    records = _run(["rule", node], trusted_agents=True)
    assert all(r["result"]["forfeit"] is None for r in records)
    assert len(_run(["rule", "random"])) == 2  # agents in this process need no sandbox


class Staller:
    """Never plays a card while it may draw or pass: a game of two never ends."""

    def __init__(self, variant: str, num_players: int, seed: int | None = None,
                 **options: Any) -> None:
        meanings = uno_env.raw_env(variant, num_players, **options).action_meanings
        self.rank = [2 if m == "pass" else 1 if m == "draw" else 0 for m in meanings]

    def reset(self) -> None:
        pass

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(max(legal, key=lambda a: self.rank[a]))


def test_a_game_stops_at_the_default_decision_limit() -> None:
    spec = "py:test_tournament_hostile:Staller"
    cfg = TournamentConfig(agents=[spec, spec], games=2, seed=1)
    assert cfg.max_steps == DEFAULT_MAX_STEPS
    r = run_tournament(cfg, progress=False)[0]
    assert r["max_steps"] == DEFAULT_MAX_STEPS and r["result"]["truncated"]
    assert r["result"]["steps"] == DEFAULT_MAX_STEPS and r["result"]["winners"] == []
