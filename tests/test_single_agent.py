"""The Gymnasium single-agent wrapper: the learner receives exactly what the AEC env paid its
seat (losses included), its mask is the AEC mask, episodes replay from the seed, an illegal
action loses (or raises), and Gymnasium's and SB3's env checkers pass on the registered id
in every variant."""

from __future__ import annotations

import warnings
from collections import defaultdict
from typing import Any

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env import IllegalActionError
from uno_env.agents import RandomAgent, RuleAgent
from uno_env.training.single_agent import SingleAgentEnv


def _spy_payments(env: SingleAgentEnv) -> dict[int, float]:
    """Record every reward the AEC env pays, by seat (wraps its `_pay`)."""
    paid: dict[int, float] = defaultdict(float)
    raw = env.aec
    pay = raw._pay

    def spy(seat: int, value: float) -> None:
        paid[seat] += value
        pay(seat, value)

    raw._pay = spy  # type: ignore[method-assign]
    return paid


def _episode(env: SingleAgentEnv, learner: Any, seed: int,
             check_mask: bool = True) -> tuple[float, float, bool]:
    """Play one episode; returns (sum of rewards, the last step's reward, truncated)."""
    obs, info = env.reset(seed=seed)
    learner.reset()
    total = 0.0
    while True:
        mask = env.action_masks()
        if check_mask:
            aec_mask = env.aec.observe(env.agent)["action_mask"]
            assert env.aec.agent_selection == env.agent
            assert mask.dtype == bool and np.array_equal(mask, aec_mask.astype(bool))
            assert np.array_equal(info["action_mask"], aec_mask)
            assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(learner.act(obs, mask))
        total += reward
        if terminated or truncated:
            assert not env.action_masks().any()
            return total, reward, truncated


@pytest.mark.parametrize(("learner", "opponents"), [
    ("random", ["rule"]),  # mostly losses
    ("rule", ["random", "rule"]),  # mostly wins
])
def test_rewards_sum_to_what_the_aec_env_paid_the_seat(learner: str,
                                                       opponents: list[str]) -> None:
    """PettingZoo's SB3 tutorial wrapper hands out the reward of the agent selected when the
    game ends (the winner's), so a learner never sees its -1; here every episode's rewards
    add up to what the AEC env paid the learner's seat, and a loss arrives with the step in
    which an opponent went out."""
    env = SingleAgentEnv("classic", 2, opponents=opponents, max_steps=3000)
    paid = _spy_payments(env)
    agent = RandomAgent(1) if learner == "random" else RuleAgent("classic", 2)
    totals = []
    for ep in range(40):
        paid.clear()
        total, last, truncated = _episode(env, agent, seed=ep)
        assert total == pytest.approx(paid[env.seat])
        winners = env.aec.engine.winners()
        expected = 0.0 if truncated or not winners else (1.0 if env.seat in winners else -1.0)
        assert total == expected == last
        totals.append(total)
    if learner == "random":  # losses reach the learner
        assert totals.count(-1.0) > 30
    else:  # against random and rule opponents: wins and losses
        assert totals.count(1.0) > 20 and -1.0 in totals


def test_points_rewards_over_a_multi_round_match_with_three_players() -> None:
    """reward="points" pays every round; a 3-player match pays several times an episode,
    sometimes before the learner's first decision of a round."""
    env = SingleAgentEnv("classic", 3, opponents=["rule", "random"], reward="points",
                         episode="match", target_score=150, uno_catch="decision",
                         stacking=True)
    paid = _spy_payments(env)
    agent = RuleAgent("classic", 3, uno_catch="decision", stacking=True)
    rounds = 0
    for ep in range(12):
        paid.clear()
        total, _, _ = _episode(env, agent, seed=100 + ep)
        assert total == pytest.approx(paid[env.seat])
        rounds += len(env.aec.engine.round_results)
    assert rounds > 12


def test_every_seat_and_opponent_is_drawn_and_episodes_replay() -> None:
    env = SingleAgentEnv("classic", 3, opponents=["random", "rule"], max_steps=400)
    seats, names = set(), set()
    for ep in range(30):
        _, info = env.reset(seed=ep)
        seats.add(info["seat"])
        names.update(info["opponents"])
    assert seats == {0, 1, 2} and names == {"random", "rule"}

    def trace(seed: int) -> list[Any]:
        e = SingleAgentEnv("classic", 2, opponents=["random", "rule"], max_steps=400)
        learner = RandomAgent(9)
        out: list[Any] = []
        obs, info = e.reset(seed=seed)
        for _ in range(60):
            a = learner.act(obs, e.action_masks())
            obs, r, term, trunc, info = e.step(a)
            out.append((a, r, obs.tobytes(), info["seat"]))
            if term or trunc:
                obs, info = e.reset()
        return out

    assert trace(4) == trace(4)
    assert trace(4) != trace(5)


def test_fixed_seat_reset_options_and_errors() -> None:
    env = SingleAgentEnv("classic", 2, opponents=[RuleAgent("classic", 2)], learner_seat=1,
                         illegal_action="raise")
    _, info = env.reset(seed=0)
    assert info["seat"] == 1 and env.agent == "player_1"
    _, info = env.reset(seed=0, options={"learner_seat": 0, "dealer": 1})
    assert info["seat"] == 0 and env.aec.engine.dealer == 1
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    before = env.aec.snapshot()
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(illegal)
    assert env.aec.snapshot() == before
    with pytest.raises(ValueError, match="not in the action space"):
        env.step(env.action_space.n)
    assert env.aec.snapshot() == before
    with pytest.raises(ValueError):
        SingleAgentEnv(opponents=[])
    with pytest.raises(ValueError):
        SingleAgentEnv(opponents=["nope"])
    with pytest.raises(ValueError):
        SingleAgentEnv(learner_seat=2)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv(illegal_action="ignore")
    assert isinstance(env.action_space, gymnasium.spaces.Discrete)
    assert env.action_space.n == len(env.action_meanings)
    # after the end, step refuses until reset
    learner = RandomAgent(0)
    obs, _ = env.reset(seed=1)
    while True:
        obs, _, term, trunc, _ = env.step(learner.act(obs, env.action_masks()))
        if term or trunc:
            break
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gymnasium_passive_checks() -> None:
    from gymnasium.utils.passive_env_checker import (
        check_action_space,
        check_observation_space,
        env_reset_passive_checker,
    )

    env = SingleAgentEnv("classic", 2, opponents=["rule"])
    check_observation_space(env.observation_space)
    check_action_space(env.action_space)
    obs, info = env_reset_passive_checker(env, seed=0)
    assert obs.dtype == np.float32 and obs.shape == env.observation_space.shape


def test_an_illegal_action_loses_by_default() -> None:
    """illegal_action="lose" (the default) ends the episode with -1, as env() does; the
    game is left as it was and the mask is empty afterwards."""
    env = SingleAgentEnv("classic", 2, opponents=["random"])
    obs, _ = env.reset(seed=3)
    before = env.aec.snapshot()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] and not info["action_mask"].any()
    assert not env.action_masks().any() and env.observation_space.contains(obs)
    assert env.aec.snapshot() == before
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_registered_id_and_default_limit() -> None:
    """gymnasium.make builds the registered env with every keyword; render_fps is declared;
    the default decision limit is the AEC env's finite DEFAULT_MAX_STEPS."""
    env = gymnasium.make(uno_env.GYM_ID, variant="express", num_players=3,
                         opponents=["rule", "random"], learner_seat=2, jump_in=False)
    raw = env.unwrapped
    assert isinstance(raw, SingleAgentEnv)
    assert raw.variant == "express" and raw.num_players == 3 and raw.learner_seat == 2
    assert raw.metadata["render_fps"] > 0
    assert raw.aec.max_steps == uno_env.DEFAULT_MAX_STEPS
    _, info = env.reset(seed=0)
    assert info["seat"] == 2 and np.array_equal(info["action_mask"].astype(bool),
                                                raw.action_masks())
    assert np.isfinite(raw.observation_space.high).all()


@pytest.mark.parametrize("variant", uno_env.list_variants())
@pytest.mark.parametrize("num_players", [2, 3])
def test_gymnasium_and_sb3_check_env_pass(variant: str, num_players: int) -> None:
    """Both checkers step with unmasked samples (illegal actions end the episode with -1)."""
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gymnasium.make(uno_env.GYM_ID, variant=variant, num_players=num_players,
                         opponents=["rule", "random"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        check_env(env.unwrapped, skip_render_check=True)
        sb3_check_env(env.unwrapped, warn=True)
    check_env(gymnasium.make(uno_env.GYM_ID, variant=variant, render_mode="ansi").unwrapped)


def test_import_uno_env_loads_neither_agents_nor_training() -> None:
    """Layers (docs/architecture.md): the gym id is registered by a string entry point."""
    import subprocess
    import sys

    code = ("import sys, gymnasium, uno_env; "
            "assert 'uno_env/UNO-v1' in gymnasium.registry; "
            "print(sorted(set(sys.modules) & {'uno_env.agents', 'uno_env.training', "
            "'uno_env.tournament', 'torch', 'ray', 'tianshou'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
    for code in ("import uno_env, gymnasium; gymnasium.make(uno_env.GYM_ID)",
                 "import gymnasium; gymnasium.make('uno_env:uno_env/UNO-v1')"):
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
