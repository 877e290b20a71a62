"""``uno_env.play.play_episode``: the one observe-act-step loop (docs/architecture.md)."""

from __future__ import annotations

import numpy as np
import pytest
from scenario_helpers import quick_win_env, two_card_env

from uno_env import IllegalActionError, raw_env
from uno_env.agents.random_agent import RandomAgent
from uno_env.play import play_episode


class Script:
    """Plays the named actions in order; fails the test if asked for more."""

    def __init__(self, env: raw_env, meanings: list[str]) -> None:
        self.env, self.todo = env, list(meanings)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        assert self.todo, "asked for a decision the script did not expect"
        a = self.env.action_index(self.todo.pop(0))
        assert action_mask[a]
        return a

    def reset(self) -> None:
        pass


def never(observation: np.ndarray, action_mask: np.ndarray) -> int:
    raise AssertionError("this seat must not be asked")


def test_scripted_game_plays_to_the_end_and_reports_the_outcome() -> None:
    env = two_card_env(["red-draw-two", "red-9"], draw=["yellow-1", "yellow-2"])
    seat1 = Script(env, ["uno", "play red-draw-two", "play red-9"])
    seen: list[tuple[str, int]] = []
    ep = play_episode(env, [never, seat1], on_step=lambda n, a: seen.append((n, a)),
                      record_actions=True)
    assert not seat1.todo
    assert ep.over and not ep.truncated and ep.steps == 3
    assert ep.winners == [1] == env.engine.winners()
    assert [env.action_meanings[a] for a in ep.actions] == ["uno", "play red-draw-two",
                                                           "play red-9"]
    assert seen == [("player_1", a) for a in ep.actions]
    # the same final state as stepping by hand (quick_win_env), and the rewards paid
    ref = quick_win_env()
    assert env.engine.scores == ref.engine.scores
    assert ep.rewards["player_1"] > 0 > ep.rewards["player_0"]
    assert play_episode(env, [never, never]).steps == 0  # an ended game plays nothing


def test_illegal_action_raises_and_leaves_the_game_unchanged() -> None:
    env = two_card_env(["red-draw-two", "red-9"])
    before = env.engine.to_dict()
    selection, steps = env.agent_selection, env.num_steps
    illegal = env.action_index("play red-9") if "play red-9" not in {
        env.action_meanings[a] for a in env.engine.legal} else env.action_index("pass")
    assert illegal not in env.engine.legal
    with pytest.raises(IllegalActionError, match=r"player_1 \(seat 1\) chose .*allowed: \["):
        play_episode(env, [never, lambda o, m: illegal])
    assert env.engine.to_dict() == before
    assert (env.agent_selection, env.num_steps) == (selection, steps)
    with pytest.raises(IllegalActionError, match="forbids"):
        play_episode(env, [never, lambda o, m: 10_000])
    with pytest.raises(IllegalActionError, match="forbids"):
        play_episode(env, [never, lambda o, m: "uno"])
    assert env.engine.to_dict() == before


def test_max_steps_pauses_and_a_second_call_resumes_the_same_game() -> None:
    env = raw_env("classic", 2)
    env.reset(seed=3)
    ref = raw_env("classic", 2)
    ref.reset(seed=3)
    agents = [RandomAgent(seed=1), RandomAgent(seed=2)]
    first = play_episode(env, agents, max_steps=5, record_actions=True)
    assert first.steps == 5 and not first.over and first.winners == []
    rest = play_episode(env, agents, record_actions=True)
    assert rest.over
    whole = play_episode(ref, [RandomAgent(seed=1), RandomAgent(seed=2)], record_actions=True)
    assert first.actions + rest.actions == whole.actions
    assert env.engine.scores == ref.engine.scores


def test_env_truncation_and_a_seat_without_agent_stop_the_loop() -> None:
    env = raw_env("classic", 2, max_steps=4)
    env.reset(seed=0)
    ep = play_episode(env, [RandomAgent(seed=0), RandomAgent(seed=1)])
    assert ep.steps == 4 and ep.truncated and not ep.over
    env = raw_env("classic", 2)
    env.reset(seed=0)
    waiting = env.agent_selection
    other = next(n for n in env.possible_agents if n != waiting)
    ep = play_episode(env, {other: never})
    assert ep.steps == 0 and env.agent_selection == waiting


def test_bad_agents_argument_is_refused() -> None:
    env = raw_env("classic", 2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="got 1 agents for 2 seats"):
        play_episode(env, [never])
    with pytest.raises(ValueError, match="not seats of this env"):
        play_episode(env, {"player_7": never})
    with pytest.raises(TypeError, match="act\\(observation, action_mask\\)"):
        play_episode(env, [3, 4])
    with pytest.raises(ValueError, match="max_steps"):
        play_episode(env, [never, never], max_steps=-1)
