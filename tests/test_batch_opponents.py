"""The compiled opponents (``uno_env.batch.opponents``) choose exactly what the Python agents
choose: every decision of many games in every variant, checked against ``RandomAgent`` and
``RuleAgent`` on the same state (``uno_env.batch.verify_opponents``)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from uno_env.batch.verify_opponents import Mismatch, OpponentDiff, run_config

# (players, rule options): 2, 3, 4 and the most players of each variant, with the options
# that reach the rule agent's challenge, stack, jump-in, target and colour branches
CONFIGS: dict[str, list[tuple[int, dict[str, Any]]]] = {
    "classic": [
        (2, {}),
        (2, {"stacking": True, "voluntary_draw": True, "catch_window": "turn",
             "uno_catch": "decision"}),
        (3, {"jump_in": True, "double_play": True, "uno_catch": "decision"}),
        (4, {"stacking": True, "double_play": True, "episode": "match", "target_score": 200}),
        (10, {"wd_challenge": False, "voluntary_draw": True}),
    ],
    "express": [
        (2, {}),
        (3, {"wd_challenge": True, "uno_catch": "decision", "catch_window": "until-out"}),
        (4, {"reverse_back": False, "voluntary_draw": False, "scoring": "winner"}),
        (6, {}),
        (10, {"allow_more_players": True, "jump_in": False}),
    ],
    "flex": [
        (2, {}),
        (3, {"uno_catch": "decision", "catch_window": "until-out"}),
        (4, {"voluntary_draw": False, "episode": "match", "target_score": 150}),
        (8, {}),
    ],
    "flip": [
        (2, {}),
        (3, {"uno_catch": "decision"}),
        (4, {"wd_challenge": False, "scoring": "penalty"}),
        (10, {}),
    ],
}


def run_variant(variant: str, decisions: int, seed: int = 0) -> OpponentDiff:
    res = OpponentDiff()
    configs = CONFIGS[variant]
    for k, (n, opts) in enumerate(configs):
        run_config(variant, n, opts, decisions // len(configs), num_envs=4,
                   seed=seed + 100 * k, result=res)
    return res


# the branches every variant must reach (the rule agent's decisions by kind)
MUST = ("play", "color", "uno", "challenge", "accept", "bluff estimate from memory")
MUST_BY_VARIANT = {
    "classic": ("play-two", "play: stack", "play: jump in", "catch"),
    "express": ("play: jump in", "play: reverse back", "catch"),
    "flex": ("play-flex", "target", "catch"),
    "flip": ("play: a Flip card",),
}


@pytest.mark.parametrize("variant", list(CONFIGS))
def test_compiled_opponents_choose_what_the_python_agents_choose(variant: str) -> None:
    res = run_variant(variant, 12_000, seed=7)
    assert res.decisions >= 11_000
    assert res.games >= 40
    for kind in MUST + MUST_BY_VARIANT[variant]:
        assert res.by_kind[kind] > 0, (kind, dict(res.by_kind))


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(CONFIGS))
def test_compiled_opponents_many_more_decisions(variant: str) -> None:
    res = run_variant(variant, 200_000, seed=1)
    assert res.decisions >= 190_000


def test_random_kernel_is_cpythons_mersenne_twister() -> None:
    from uno_env.batch.mt19937 import randbelow
    from uno_env.batch.opponents import (
        allocate_opponent_memory,
        opponent_reset,
        random_state,
        set_random_state,
    )

    om = allocate_opponent_memory(2, 3, 4)
    pick = np.random.default_rng(0)
    seeds = [0, 1, 5, -5, 2**32 - 1, 2**32, 2**63 - 1,
             *[int(x) for x in pick.integers(0, 2**63, 5)]]
    for sd in seeds:
        ref = random.Random(sd)
        opponent_reset(om, 1, 2, sd)
        assert random_state(om, 1, 2) == ref.getstate(), sd
        for n in pick.integers(1, 300, 2000).tolist():
            assert randbelow(om.mt, om.mti, 1, 2, n) == ref.randrange(n), (sd, n)
        # a state taken mid-stream (as RandomAgent.get_state gives it) goes on the same
        other = random.Random()
        other.setstate(ref.getstate())
        set_random_state(om, 0, 1, ref.getstate())
        assert [randbelow(om.mt, om.mti, 0, 1, 7) for _ in range(700)] == [
            other.randrange(7) for _ in range(700)]
    with pytest.raises(ValueError, match="random.Random state"):
        set_random_state(om, 0, 0, (3, (1, 2), None))


def test_the_check_sees_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check that cannot fail is no check: a rule agent that challenges less often, and a
    random agent seeded one off, are both caught."""
    import uno_env.batch.opponents as opp

    real_tables, real_reset = opp.build_opponent_tables, opp.opponent_reset

    def timid(*args: Any) -> Any:
        ot = real_tables(*args)
        return ot._replace(threshold=0.95)

    monkeypatch.setattr(opp, "build_opponent_tables", timid)
    with pytest.raises(Mismatch, match="challenge"):
        run_config("classic", 2, {}, 4000, kinds=("rule",), seed=3)
    monkeypatch.setattr(opp, "build_opponent_tables", real_tables)
    monkeypatch.setattr(opp, "opponent_reset",
                        lambda om, i, q, sd: real_reset(om, i, q, sd + 1))
    with pytest.raises(Mismatch, match="random"):
        run_config("classic", 2, {}, 400, kinds=("random",), seed=3)
