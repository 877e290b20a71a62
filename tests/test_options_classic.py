"""Every classic rule option and environment option, on and off, from fixed deck orders."""

from __future__ import annotations

from typing import Any

import pytest
from scenario_helpers import (
    PREFIX,
    RUN3,
    SEAT0,
    act,
    hand,
    legal,
    new_env,
    phase,
    quick_win_env,
    three_player_env,
    two_card_env,
)

from uno_env import DEFAULT_MAX_STEPS, raw_env

# Every test runs on the Python engine and again on the batch engine (tests/batch_mirror.py).
pytestmark = pytest.mark.usefixtures("engine")

DEFAULTS = {"wd_challenge": True, "stacking": False, "double_play": False, "jump_in": False,
            "uno_catch": "auto", "catch_window": "until-out", "voluntary_draw": False,
            "scoring": "winner", "target_score": 500, "episode": "round"}


def test_option_defaults() -> None:
    env = raw_env("classic", 2)
    assert env.options == DEFAULTS
    assert env.reward_mode == "win_loss" and env.max_steps == DEFAULT_MAX_STEPS


@pytest.mark.parametrize(("name", "value"), [
    ("stacking", "yes"), ("stacking", 1), ("double_play", None), ("jump_in", "on"),
    ("wd_challenge", 0), ("uno_catch", "sometimes"), ("uno_catch", True),
    ("scoring", "lowest"), ("target_score", 0), ("target_score", "500"),
    ("target_score", True), ("episode", "forever"), ("reverse_back", True), ("no_such", 1),
])
def test_option_bad_values_rejected(name: str, value: Any) -> None:
    with pytest.raises(ValueError, match=name):
        raw_env("classic", 2, **{name: value})


@pytest.mark.parametrize(("name", "value"), [
    ("reward", "score"), ("max_steps", 0), ("max_steps", -1), ("max_steps", 1.5),
    ("max_steps", True),
])
def test_env_option_bad_values_rejected(name: str, value: Any) -> None:
    with pytest.raises(ValueError, match=name):
        raw_env("classic", 2, **{name: value})


# --- stacking --------------------------------------------------------------------------------------

STACK2 = ["red-draw-two", "red-6", "red-7", "red-8", "green-9", "green-8", "green-7"]
VICTIM = ["blue-draw-two", "red-1", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6"]


@pytest.mark.parametrize("stacking", [False, True])
def test_stacking_option(stacking: bool) -> None:
    env = new_env(2, 0, hands={1: STACK2, 0: VICTIM}, first="red-5",
                  draw=["yellow-1", "yellow-2", "yellow-3", "yellow-4"], stacking=stacking)
    act(env, "play red-draw-two")
    if stacking:
        assert env.engine.current == 0 and phase(env) == "stack"
        assert legal(env) == {"play blue-draw-two", "accept"}
        act(env, "play blue-draw-two")
        # seat 1 holds no other Draw Two: it draws the total of 4 and loses its turn
        assert hand(env, 1) == sorted(STACK2[1:] + ["yellow-1", "yellow-2", "yellow-3",
                                                    "yellow-4"])
        assert env.engine.current == 0
    else:
        assert hand(env, 0) == sorted(VICTIM + ["yellow-1", "yellow-2"])
        assert env.engine.current == 1  # seat 0 lost its turn, even holding a Draw Two


# --- double_play -----------------------------------------------------------------------------------

@pytest.mark.parametrize("double_play", [False, True])
def test_double_play_option(double_play: bool) -> None:
    hand1 = ["red-7", "red-7", "blue-1", "blue-2", "green-3", "green-4", "yellow-6"]
    env = new_env(2, 0, hands={1: hand1, 0: SEAT0}, first="red-5", double_play=double_play)
    has_meaning = any(m.startswith("play-two") for m in env.action_meanings)
    assert has_meaning == double_play
    assert ("play-two red-7" in legal(env)) == double_play


# --- jump_in ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("jump_in", [False, True])
def test_jump_in_option(jump_in: bool) -> None:
    seat1 = ["red-7", "red-8", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6"]
    seat0 = ["red-7", "red-1", "green-1", "green-2", "green-3", "green-4", "green-6"]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5", jump_in=jump_in)
    act(env, "play red-7")
    assert env.engine.current == 0
    assert phase(env) == ("jump-in" if jump_in else "play")


def test_jump_in_option_two_players() -> None:
    # with two players the twin's holder is the next player anyway: jumping in is asked first
    # and plays the card "out of turn"; play continues from the jumper (seat 1 is next)
    seat1 = ["red-7", "red-8", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6"]
    seat0 = ["red-7", "red-1", "green-1", "green-2", "green-3", "green-4", "green-6"]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5", jump_in=True)
    act(env, "play red-7")
    act(env, "play red-7")
    assert env.engine.current == 1 and phase(env) == "play"
    assert hand(env, 0) == sorted(seat0[1:])


# --- uno_catch ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["auto", "decision", "off"])
def test_uno_catch_option(mode: str) -> None:
    env = two_card_env(["red-9", "blue-1"], draw=["yellow-1", "yellow-2"], uno_catch=mode)
    assert ("uno" in env.action_meanings) == (mode != "off")
    assert ("catch" in env.action_meanings) == (mode == "decision")
    act(env, "play red-9")  # no call
    if mode == "auto":
        assert hand(env, 1) == ["blue-1", "yellow-1", "yellow-2"]
        assert phase(env) == "play"
    elif mode == "decision":
        assert phase(env) == "catch" and env.engine.current == 0
        act(env, "catch")
        assert hand(env, 1) == ["blue-1", "yellow-1", "yellow-2"]
    else:
        assert hand(env, 1) == ["blue-1"] and phase(env) == "play"


@pytest.mark.parametrize("mode", ["auto", "decision"])
def test_uno_catch_option_call_protects(mode: str) -> None:
    env = two_card_env(["red-9", "blue-1"], uno_catch=mode)
    act(env, "uno")
    act(env, "play red-9")
    assert hand(env, 1) == ["blue-1"]
    assert phase(env) == "play" and env.engine.current == 0  # nobody is asked to catch


# --- wd_challenge --------------------------------------------------------------------------------------

@pytest.mark.parametrize("wd_challenge", [False, True])
def test_wd_challenge_option(wd_challenge: bool) -> None:
    seat1 = ["wild-draw-four", "blue-5", "green-2", "yellow-3", "blue-7", "green-8",
             "yellow-9"]
    draw = ["yellow-1", "yellow-2", "yellow-4", "yellow-6"]
    env = new_env(2, 0, hands={1: seat1, 0: SEAT0}, first="red-5", draw=draw,
                  wd_challenge=wd_challenge)
    assert ("challenge" in env.action_meanings) == wd_challenge
    act(env, "play wild-draw-four")
    act(env, "color green")
    if wd_challenge:
        assert env.engine.current == 0 and legal(env) == {"challenge", "accept"}
    else:
        assert hand(env, 0) == sorted(SEAT0 + draw)  # drawn at once, turn lost
        assert env.engine.current == 1 and phase(env) == "play"


def test_wd_challenge_off_with_stacking() -> None:
    seat1 = ["wild-draw-four", "blue-5", "green-2", "yellow-3", "blue-7", "green-8",
             "yellow-9"]
    seat0 = ["wild-draw-four", *SEAT0[1:]]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5", wd_challenge=False,
                  stacking=True)
    act(env, "play wild-draw-four")
    act(env, "color green")
    assert env.engine.current == 0 and legal(env) == {"play wild-draw-four", "accept"}


# --- scoring, target_score, episode ----------------------------------------------------------------

def test_scoring_winner() -> None:
    env = quick_win_env(scoring="winner")
    r = env.engine.round_results[-1]
    assert env.engine.scores == [0, 37] and r["points"] == [0, 37]
    assert env.engine.winners() == [1]


def test_scoring_penalty() -> None:
    env = quick_win_env(scoring="penalty")
    # F-alt-score / E-end: the player who went out scores 0, the others their own hand
    assert env.engine.scores == [37, 0]
    assert env.engine.winners() == [1]


def test_scoring_penalty_match_lowest_total_wins() -> None:
    env = quick_win_env(scoring="penalty", episode="match", target_score=30)
    g = env.engine
    assert g.is_over and g.scores == [37, 0]  # seat 0 reached 30: the match ends
    assert g.winners() == [1]
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


@pytest.mark.parametrize(("target", "over"), [(1, True), (37, True), (38, False), (500, False)])
def test_target_score(target: int, over: bool) -> None:
    env = quick_win_env(episode="match", target_score=target)
    assert env.engine.is_over == over
    assert all(env.terminations.values()) == over
    assert env.engine.scores == [0, 37]


def test_episode_round_ends_after_one_round() -> None:
    env = quick_win_env(episode="round", target_score=500)
    assert env.engine.is_over and all(env.terminations.values())
    assert len(env.engine.round_results) == 1


def test_episode_match_continues() -> None:
    env = quick_win_env(episode="match")
    g = env.engine
    assert not g.is_over and len(g.round_results) == 1
    assert sum(g.hand_len) >= 14 and g.dealer == 1
    assert not any(env.terminations.values())
    assert env.agent_selection == f"player_{g.current}"
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}  # win_loss pays at the match end


# --- reward -------------------------------------------------------------------------------------------

def test_reward_win_loss() -> None:
    env = quick_win_env(env_kwargs={"reward": "win_loss"})
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 1.0}


def test_reward_win_loss_three_players() -> None:
    env = three_player_env()
    for card in RUN3[:5]:
        act(env, f"play {card}")
    act(env, "uno")
    act(env, "play red-3")
    act(env, "play red-4")
    assert env.engine.is_over and env.engine.winners() == [1]
    assert env.rewards == {"player_0": -0.5, "player_1": 1.0, "player_2": -0.5}


def test_reward_points() -> None:
    env = quick_win_env(env_kwargs={"reward": "points"})
    assert env.rewards == pytest.approx({"player_0": -0.37, "player_1": 0.37})


def test_reward_points_penalty_scoring() -> None:
    env = quick_win_env(scoring="penalty", env_kwargs={"reward": "points"})
    assert env.rewards == pytest.approx({"player_0": -0.37, "player_1": 0.0})


def test_reward_points_paid_per_round_in_match() -> None:
    env = quick_win_env(episode="match", env_kwargs={"reward": "points"})
    assert not env.engine.is_over
    assert env.rewards == pytest.approx({"player_0": -0.37, "player_1": 0.37})


# --- max_steps ----------------------------------------------------------------------------------------

def test_max_steps_truncates() -> None:
    env = new_env(2, 0, hands={1: PREFIX, 0: SEAT0}, first="red-5", env_kwargs={"max_steps": 3})
    act(env, "play red-skip")
    act(env, "play red-skip")
    assert not any(env.truncations.values())
    act(env, "play red-reverse")
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.num_steps == 3


def test_max_steps_is_the_finite_default_limit() -> None:
    """Every game ends: the default (and max_steps=None) is DEFAULT_MAX_STEPS, far above
    any normal game (this one ends by itself)."""
    assert raw_env("classic", 2, max_steps=None).max_steps == DEFAULT_MAX_STEPS
    env = quick_win_env()
    assert env.num_steps == len(PREFIX) + 3 and not any(env.truncations.values())
