"""``uno-env play``: reading moves, and a whole game typed into a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uno_env.tournament.play import parse_move
from uno_env.tournament.replay import read_records, reproduce

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")
MEANINGS = ["play red-7", "play red-draw-two", "play wild", "draw", "pass", "color red",
            "color green", "uno"]


def test_moves_by_number_meaning_or_unambiguous_start() -> None:
    legal = [0, 1, 2, 3]
    assert parse_move("1", legal, MEANINGS) == 0
    assert parse_move(" 4 ", legal, MEANINGS) == 3
    assert parse_move("play red-7", legal, MEANINGS) == 0
    assert parse_move("RED-7", legal, MEANINGS) == 0
    assert parse_move("dr", legal, MEANINGS) == 3
    assert parse_move("wi", legal, MEANINGS) == 2
    assert parse_move("color green", [5, 6], MEANINGS) == 6


@pytest.mark.parametrize("text,message", [
    ("", "type a number 1-4"),
    ("0", "choose a number from 1 to 4"),
    ("9", "9 is not in the list"),
    ("red", "could be 'play red-7' or 'play red-draw-two'"),
    ("pass", "is not allowed now"),
    ("color red", "is not allowed now"),
    ("banana", "is not an action"),
])
def test_bad_moves_are_explained(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_move(text, [0, 1, 2, 3], MEANINGS)


class Terminal:
    """``uno-env play`` running on a pseudo-terminal, driven like a person would."""

    def __init__(self, args: list[str]) -> None:
        master, slave = pty.openpty()
        env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm")
        self.proc = subprocess.Popen([sys.executable, "-m", "uno_env.cli", "play", *args],
                                     stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env,
                                     close_fds=True, start_new_session=True)
        os.close(slave)
        self.fd = master
        self.raw = b""
        self.text = ""  # everything shown, colours stripped
        self.pos = 0  # where the next expect() starts looking

    def expect(self, pattern: str, timeout: float = 30) -> tuple[str, re.Match[str]]:
        """Wait for ``pattern``; return the text since the last match and the match."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.compile(pattern).search(self.text, self.pos)
            if m:
                chunk = self.text[self.pos:m.end()]
                self.pos = m.end()
                return chunk, m
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in:\n{self.text[self.pos:][-2000:]}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:  # the program ended and closed the terminal
                    data = b""
                assert data, f"ended before {pattern!r}:\n{self.text[self.pos:][-2000:]}"
                self.raw += data
                self.text = ANSI.sub("", self.raw.decode(errors="replace").replace("\r", ""))

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def close(self) -> int:
        rc = self.proc.wait(timeout=30)
        os.close(self.fd)
        return rc


PROMPT = r"your move> "
END = r"saved as game (\d+) of"


def test_a_whole_game_in_a_terminal(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    term = Terminal(["--opponents", "rule", "--seed", "4", "--save", str(save)])
    try:
        shown, _ = term.expect(PROMPT)
        assert "player_1 is rule" in shown and "you" in shown and "top:" in shown
        assert b"\x1b[" in term.raw  # a terminal gets colours
        term.send("banana\n")
        assert "is not an action" in term.expect(PROMPT)[0]
        term.send("99\n")
        assert "is not in the list" in term.expect(PROMPT)[0]
        term.send("help\n")
        assert "Type the number" in term.expect(PROMPT)[0]
        listing = shown
        moves = 0
        while True:
            first = re.search(r"^ +1\) (.+)$", listing, re.M)
            assert first, listing
            # alternately by number and by meaning
            term.send("1\n" if moves % 2 == 0 else first.group(1).strip() + "\n")
            moves += 1
            assert moves < 300
            listing, m = term.expect(f"{PROMPT}|{END}")
            if m.group(0).startswith("saved"):
                break
        assert "won" in listing
        assert term.close() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    [rec] = read_records(save)
    assert rec["agents"] == ["human", "rule"] and rec["human_seat"] == 0
    assert rec["result"]["winners"] and not rec["result"]["quit"]
    env, diffs = reproduce(rec)
    assert diffs == [] and env.engine.is_over
    # the person's moves are in the record: as many decisions of seat 0 as moves typed
    from uno_env.tournament.replay import replay

    assert sum(1 for _, seat, _ in replay(rec) if seat == 0) == moves


def test_ctrl_d_ends_the_game_and_keeps_it(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    term = Terminal(["--opponents", "rule,random", "--seat", "1", "--seed", "2",
                     "--save", str(save), "--option", "uno_catch=off"])
    try:
        term.expect(PROMPT)
        term.send("1\n")
        term.expect(PROMPT)
        term.send("\x04")  # Ctrl-D
        chunk, m = term.expect(END)
        assert "game left unfinished" in chunk and m.group(1) == "0"
        assert term.close() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    [rec] = read_records(save)
    assert rec["result"]["quit"] and rec["agents"] == ["rule", "human", "random"]
    assert rec["options"]["uno_catch"] == "off"
    env, diffs = reproduce(rec)  # the unfinished game replays up to where it was left
    assert diffs == [] and not env.engine.is_over and env.engine.current == 1
