"""Game records: a logged game replays exactly, from any seat or with every hand shown."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from uno_env import list_variants
from uno_env.cli import main as uno_main
from uno_env.tournament.replay import new_env, pick, read_records, replay, reproduce, show
from uno_env.tournament.runner import TournamentConfig, make_tasks, play_game, run_tournament

CONFIG = TournamentConfig(agents=["rule", "random", "py:test_tournament:CrashAgent", "rule"],
                          players=3, games=12, seed=11, max_steps=60)


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small tournament's games.jsonl: normal games, a forfeit, games cut at max_steps."""
    out = tmp_path_factory.mktemp("replay")
    run_tournament(CONFIG, out=out, progress=False)
    return out / "games.jsonl"


def test_a_logged_game_replays_exactly(logged: Path) -> None:
    records = read_records(logged)
    assert len(records) == 12
    kinds = {"forfeit" if r["result"]["forfeit"] else
             "truncated" if r["result"]["truncated"] else "finished" for r in records}
    assert kinds == {"forfeit", "truncated", "finished"}
    for rec in records:
        env, diffs = reproduce(rec)
        assert diffs == []
        assert env.engine.scores == rec["result"]["points"]
        assert env.num_steps == len(rec["actions"])
        # the same game played again from its task ends in the same state, move for move
        twice, _ = reproduce(rec)
        assert twice.engine.to_dict() == env.engine.to_dict()


def test_the_record_holds_the_deal(logged: Path) -> None:
    for rec in read_records(logged):
        engine = new_env(rec).engine  # after reset: only forced draws and plays happened
        n, d = rec["num_players"], rec["dealer"]
        names = engine.game.card_names
        played = Counter(names[c] for c in engine.discard[1:])
        for s in range(n):  # G-deal: one card at a time from the dealer's left
            dealt = Counter(rec["deck"][i] for i in range(7 * n) if (d + 1 + i) % n == s)
            held = Counter(names[c] for c in engine.hands[s])
            assert dealt <= held + played
        first = rec["deck"][7 * n]
        if first != "wild-draw-four":  # C-first-discard
            assert names[engine.discard[0]] == first


def test_replay_matches_a_fresh_play(logged: Path) -> None:
    for task, rec in zip(make_tasks(CONFIG), read_records(logged), strict=True):
        assert play_game(task) == rec


def test_a_changed_record_is_noticed(logged: Path) -> None:
    rec = next(r for r in read_records(logged) if not r["result"]["forfeit"]
               and not r["result"]["truncated"])
    wrong: dict[str, Any] = copy.deepcopy(rec)
    wrong["result"]["winners"] = [s for s in range(3) if s not in rec["result"]["winners"]][:1]
    assert reproduce(wrong)[1]
    illegal = copy.deepcopy(rec)
    illegal["actions"][0] = next(a for a in range(60) if a not in
                                 next(iter(replay(rec)))[0].engine.legal)
    with pytest.raises(ValueError, match="not legal"):
        reproduce(illegal)


def test_show_from_a_seat_hides_the_other_hands(logged: Path) -> None:
    rec = read_records(logged)[0]
    lines: list[str] = []
    assert show(rec, seat=1, write=lines.append) == []
    text = "\n".join(lines)
    assert "player_1's view" in text and "player_0's view" not in text.split("game over")[0]
    assert "move 1:" in text and "replay matches the recorded result" in text
    own = [ln for ln in text.splitlines() if ln.strip().startswith("player_1 score")]
    other = [ln for ln in text.splitlines() if ln.strip().startswith("player_0 score")]
    assert all("cards:" in ln for ln in own)
    assert any(ln.rstrip().endswith("cards") for ln in other)
    revealed: list[str] = []
    show(rec, reveal=True, write=revealed.append)
    assert all("cards:" in ln for ln in revealed if "score" in ln)


def test_replay_command(logged: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert uno_main(["replay", str(logged), "--game", "2", "--reveal"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game 2:") and "replay matches" in out
    assert uno_main(["replay", str(logged), "--list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 12
    assert uno_main(["replay", str(logged), "--game", "99"]) == 2
    assert "no game 99" in capsys.readouterr().err


def test_records_file_handling(tmp_path: Path, logged: Path) -> None:
    lines = logged.read_text().splitlines(keepends=True)
    torn = tmp_path / "torn.jsonl"
    torn.write_text("".join(lines[:2]) + lines[2][:40])
    assert len(read_records(torn)) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"game": 0}) + "\n")
    with pytest.raises(ValueError, match="missing"):
        read_records(bad)
    recs = read_records(logged)
    assert pick(recs, 3)["game"] == 3 and pick(recs, None)["game"] == 0


@pytest.mark.parametrize("variant", list_variants())
def test_every_variant_replays_exactly(variant: str) -> None:
    cfg = TournamentConfig(agents=["rule", "random"], variant=variant, players=3, games=3,
                           seed=5, max_steps=100)
    for rec in run_tournament(cfg, progress=False):
        env, diffs = reproduce(rec)
        assert diffs == [] and env.num_steps == len(rec["actions"])
