"""Determinization (uno_env.determinize): a sample never contradicts the observation.

Over random games of every variant (2-4 players, house rules on), at every decision the
sampled state's observation and legal actions for the observer equal the real ones, and the
sample plays on legally.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from uno_env import raw_env
from uno_env.determinize import InconsistentObservation, Recall, determinize
from uno_env.rules.codes import P_COLOR

CONFIGS = [
    ("classic", 2, {}),
    ("classic", 2, {"voluntary_draw": True}),
    ("classic", 3, {"stacking": True, "uno_catch": "decision"}),
    ("classic", 4, {"double_play": True, "jump_in": True}),
    ("classic", 3, {"uno_catch": "decision", "catch_window": "until-out"}),
    ("flip", 2, {}),
    ("flip", 3, {"uno_catch": "decision"}),
    ("flip", 4, {"episode": "match", "target_score": 100}),
    ("flex", 2, {}),
    ("flex", 4, {"uno_catch": "decision"}),
    ("express", 2, {}),
    ("express", 3, {"episode": "match", "target_score": 60}),
    ("classic", 2, {"episode": "match", "target_score": 100}),
]


def mask_of(state, num_actions: int) -> np.ndarray:
    m = np.zeros(num_actions, dtype=np.int8)
    m[state.legal] = 1
    return m


@pytest.mark.parametrize(("variant", "n", "options"), CONFIGS)
def test_determinization_matches_observation(variant: str, n: int, options: dict) -> None:
    env = raw_env(variant, num_players=n, **options)
    game = env.game
    rng = random.Random(7)
    phases: set[str] = set()
    checked = 0
    for episode in range(4):
        env.reset(seed=100 + episode)
        recall: dict[int, Recall] = {}
        steps = 0
        while not env.engine.is_over and steps < 400:
            s = env.engine
            seat = s.current
            obs = env.layout.build(s, seat)
            mask = mask_of(s, game.num_actions)
            if rng.random() < 0.5 or s.phase == P_COLOR:
                for k in range(2):
                    sample = determinize(game, obs, mask, random.Random(rng.getrandbits(32)),
                                         seat=seat, recall=recall.get(seat))
                    np.testing.assert_array_equal(env.layout.build(sample, seat), obs)
                    np.testing.assert_array_equal(mask_of(sample, game.num_actions), mask)
                    if k == 0:  # the sample plays on by the rules
                        for _ in range(30):
                            if sample.is_over:
                                break
                            sample.step(rng.choice(sample.legal))
                checked += 1
                phases.add(env.phase)
            a = rng.choice(s.legal)
            recall[seat] = Recall(a, s.active_color)
            s.step(a)
            steps += 1
    assert checked > 30
    assert "play" in phases


def test_sample_hides_the_opponents_cards() -> None:
    """Different seeds give different opponent hands: the hidden part really is sampled."""
    env = raw_env("classic", num_players=2)
    env.reset(seed=3)
    s = env.engine
    obs, mask = env.layout.build(s, s.current), mask_of(s, env.game.num_actions)
    hands = {tuple(determinize(env.game, obs, mask, random.Random(i),
                                seat=s.current).counts[1 - s.current])
             for i in range(10)}
    assert len(hands) > 5


def test_not_to_act_is_refused() -> None:
    env = raw_env("classic", num_players=2)
    env.reset(seed=3)
    s = env.engine
    other = 1 - s.current
    with pytest.raises(ValueError, match="not to act"):
        determinize(env.game, env.layout.build(s, other), np.zeros(env.game.num_actions),
                    random.Random(0), seat=other)


def test_observation_of_another_configuration_is_refused() -> None:
    env = raw_env("classic", num_players=2)
    env.reset(seed=3)
    s = env.engine
    obs = env.layout.build(s, s.current)
    obs[0:54] = 0
    obs[0] = 9  # nine copies of one face: no deal of the classic deck has that
    with pytest.raises(InconsistentObservation, match="no deal"):
        determinize(env.game, obs, mask_of(s, env.game.num_actions), random.Random(0),
                    seat=s.current)
