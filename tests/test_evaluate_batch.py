"""Evaluation on the batch engine plays the Python loop's games: the same outcome (scores,
winners, truncation, decisions) game for game, and a batched policy chooses what
``PPOAgent.act`` chooses on every row."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from uno_env import agents
from uno_env.training.evaluate import evaluate, play_games
from uno_env.training.evaluate_batch import batch_unsupported, play_games_batch

PPO_RULES = agents.trained_options("ppo:classic")

CASES: list[tuple[list[str], str, int, dict[str, Any], int, int | None, str]] = [
    (["ppo:classic", "rule"], "classic", 2, PPO_RULES, 160, None, "alternate"),
    (["rule", "random"], "flip", 3, {}, 90, None, "one"),
    (["random", "rule"], "express", 4, {}, 80, 60, "alternate"),  # many truncated
    (["rule", "rule"], "classic", 3, {"episode": "match", "target_score": 150,
                                      "stacking": True}, 30, None, "alternate"),
    (["rule", "random"], "flex", 2, {"uno_catch": "decision"}, 80, None, "alternate"),
]


@pytest.mark.parametrize("specs,variant,n,options,games,max_steps,seating", CASES)
def test_batch_evaluation_plays_the_python_games(specs: list[str], variant: str, n: int,
                                                 options: dict[str, Any], games: int,
                                                 max_steps: int | None, seating: str) -> None:
    assert batch_unsupported(specs, variant, n, options) is None
    want = play_games(specs, variant, n, options, 5, 0, games, max_steps, seating=seating)
    got = play_games_batch(specs, variant, n, options, 5, 0, games, max_steps,
                           seating=seating)
    for k, (a, b) in enumerate(zip(want["outcomes"], got["outcomes"], strict=True)):
        assert a == b, f"game {k}: python {a}, batch {b}"
    assert want == got
    if max_steps is not None:
        assert got["truncated"] > 0


def test_evaluate_chooses_the_engine() -> None:
    a = evaluate("rule", "random", 20, seed=3)
    b = evaluate("rule", "random", 20, seed=3, engine="python")
    assert (a.extra["engine"], b.extra["engine"]) == ("batch", "python")
    assert [x.wins for x in a.agents] == [x.wins for x in b.agents]
    assert a.decisions == b.decisions
    obj = agents.RandomAgent()
    assert batch_unsupported([obj, "rule"], "classic", 2, {}) is not None
    assert evaluate(obj, "rule", 4).extra["engine"] == "python"
    with pytest.raises(ValueError, match="engine='batch' cannot play"):
        evaluate(obj, "rule", 2, engine="batch")
    with pytest.raises(ValueError, match="unknown engine"):
        evaluate("rule", "random", 2, engine="gpu")


def test_batched_policy_chooses_what_the_agent_chooses() -> None:
    from uno_env.agents.ppo import PPOBatch
    from uno_env.batch.vector import VectorEnv

    agent = agents.load("ppo:classic", **PPO_RULES)
    batch = PPOBatch(agent)  # type: ignore[arg-type]
    v = VectorEnv("classic", 2, 128, **PPO_RULES)
    obs, info = v.reset(seed=11)
    rows = 0
    for _ in range(8):
        mask = info["action_mask"]
        got = batch.act_batch(obs, mask)
        want = [agent.act(obs[i], mask[i]) for i in range(len(obs))]
        assert got.tolist() == want
        rows += len(obs)
        obs, _, _, _, info = v.step(got)
    assert rows == 8 * 128
    with pytest.raises(ValueError, match="greedy"):
        PPOBatch(agents.load("ppo:classic", greedy=False, **PPO_RULES))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no legal action"):
        batch.act_batch(obs[:1], np.zeros_like(info["action_mask"][:1]))
