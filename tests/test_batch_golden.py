"""The golden playthroughs (tests/golden/) replayed through the batch engine: the same
digests after every decision as the Python engine recorded, and the same readable
playthrough text (tests/golden_text.py) written from the batch engine's states
(docs/architecture.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from golden_io import golden_files, load, observation_digest, snapshot_digest
from golden_text import Playthrough, compare, header, text_path

import uno_env
from uno_env import vector_env


def _digest(v, seat: int, snap: dict[str, Any]) -> str:  # type: ignore[no-untyped-def]
    obs = v.observe(0, seat)
    legal = v._s.legal[0, :v.num_actions]  # the engine's row is padded to whole words
    mask = legal.astype(np.int8) if seat == v._cur[0] and legal.any() else (
        np.zeros(v.num_actions, np.int8))
    rewards = v._s.rew[0].astype(np.float64)  # raw_env's float64 step rewards
    return f"{observation_digest(obs, mask, rewards)}:{snapshot_digest(snap)}"


@pytest.mark.parametrize("path", golden_files(), ids=lambda p: p.stem)
def test_golden_playthrough_replays_through_the_batch_engine(path) -> None:  # type: ignore[no-untyped-def]
    data = load(path)
    lines = header(data)
    for k, game in enumerate(data["games"]):
        n = game["num_players"]
        v = vector_env(data["variant"], n, 1, autoreset=False, **data["options"])
        v.reset(seed=[game["seed"]])
        text = Playthrough(uno_env.Game(data["variant"], n, **data["options"]), k, game)
        want = game["digests"]
        snap = v.game_state(0).to_dict()
        assert _digest(v, int(v._cur[0]), snap) == want[0], f"game {k}: after the reset"
        text.start(snap, want[0])
        for d, a in enumerate(game["actions"]):
            actor = int(v._cur[0])
            _, _, term, trunc, _ = v.step(np.array([a]))
            # raw_env's agent_selection: the next seat once the game is over
            seat = (actor + 1) % n if term[0] else int(v._cur[0])
            snap = v.game_state(0).to_dict()
            got = _digest(v, seat, snap)
            assert got == want[d + 1], f"game {k} ({n} players), decision {d}"
            text.step(actor, v.action_meanings[a], snap, got, [float(r) for r in v._s.rew[0]],
                      bool(term[0] or trunc[0]), d == len(game["actions"]) - 1)
        lines += text.lines + [""]
    diff = compare(text_path(path), lines, "batch")
    assert diff is None, diff
