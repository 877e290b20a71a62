"""Golden playthroughs (tests/golden/*.json, format in tests/golden_io.py) replay exactly:
the same observation, mask, rewards and engine snapshot after every recorded decision."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from golden_io import (
    GOLDEN_DIR,
    MAX_DECISIONS,
    expected_files,
    golden_files,
    load,
    record_game,
    replay_game,
)
from golden_text import Playthrough, compare, header, text_path

import uno_env


@pytest.mark.parametrize("path", golden_files(), ids=lambda p: p.stem)
def test_golden_playthrough_replays(path: Path) -> None:
    """The digests after every decision, and the readable playthrough beside them
    (tests/golden_text.py) from the same replay."""
    data = load(path)
    assert data["options"] == uno_env.Game(data["variant"], 2, **data["options"]).options
    lines = header(data)
    for k, game in enumerate(data["games"]):
        assert len(game["digests"]) == len(game["actions"]) + 1
        text = Playthrough(uno_env.Game(data["variant"], game["num_players"],
                                        **data["options"]), k, game)
        assert replay_game(data["variant"], data["options"], game, text) is None, (
            f"{path.name} game {k}: {replay_game(data['variant'], data['options'], game)}; "
            "re-record (python tests/golden_io.py record) only for a rule change you mean")
        lines += text.lines + [""]
    diff = compare(text_path(path), lines, "Python")
    assert diff is None, diff


def test_golden_files_cover_every_variant_and_stay_small() -> None:
    assert golden_files() == expected_files()
    variants = {load(p)["variant"] for p in golden_files()}
    assert variants == set(uno_env.list_variants())
    counts = {(load(p)["variant"], g["num_players"]) for p in golden_files()
              for g in load(p)["games"]}
    for v in uno_env.list_variants():
        assert {(v, n) for n in (2, 3, 4, uno_env.find_variant(v).max_players)} <= counts
    assert sum(p.stat().st_size for p in golden_files()) < 2_000_000


def test_recording_is_deterministic() -> None:
    data = load(golden_files()[0])
    game = data["games"][0]
    again = record_game(data["variant"], game["num_players"], data["options"], game["seed"],
                        MAX_DECISIONS)
    assert again == game


def test_a_changed_game_is_noticed() -> None:
    data = load(golden_files()[0])
    game = copy.deepcopy(data["games"][0])
    game["digests"][3] = "0" * 16 + ":" + "0" * 16
    assert "decision 2" in (replay_game(data["variant"], data["options"], game) or "")
    game = copy.deepcopy(data["games"][0])
    game["actions"][0] = len(uno_env.Game(data["variant"], game["num_players"],
                                          **data["options"]).actions.meanings) - 1
    assert replay_game(data["variant"], data["options"], game) is not None


def test_a_changed_playthrough_text_is_noticed(tmp_path: Path) -> None:
    """The text comparison can fail, and says where: one state line changed."""
    path = golden_files()[0]
    stored = text_path(path).read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(stored) if "after 10 |" in line)
    changed = tmp_path / text_path(path).name
    changed.write_text("\n".join(stored[:at] + ["x"] + stored[at + 1:]) + "\n", encoding="utf-8")
    diff = compare(changed, stored, "Python")
    assert diff is not None and f"from line {at + 1} on" in diff and "+" + stored[at] in diff
    assert compare(text_path(path), stored, "Python") is None


def test_playthrough_texts_sit_beside_every_golden_file() -> None:
    assert sorted(p.with_suffix(".txt") for p in golden_files()) == sorted(
        GOLDEN_DIR.glob("*.txt"))
