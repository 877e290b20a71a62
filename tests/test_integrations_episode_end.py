"""Every episode ends: a legal policy that loops forever is cut at ``DEFAULT_MAX_STEPS``
(truncation, reward 0), and the AEC env's infos carry the observation's action mask."""

from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env import DEFAULT_MAX_STEPS
from uno_env.aec import raw_env

PILE, TOP = "yellow-reverse|orange-5", "red-reverse|orange-7"


def _looping_flip(env: raw_env) -> None:
    """2-player Flip, player_0 to play: the draw pile holds one Reverse, a Reverse is on
    top of the discard pile, every other card is in the two hands."""
    env.reset(seed=0)
    snap = env.snapshot()
    rest = [n for n in env.game.card_names]
    rest.remove(PILE)
    rest.remove(TOP)
    half = len(rest) // 2
    hands = {"player_0": rest[:half], "player_1": rest[half:]}
    snap.update(hands=hands, draw_pile=[PILE], discard=[TOP], active_color="red",
                current="player_0", phase="play", direction=1, side=0, drawn_card=None,
                known_hidden=[[False] * len(h) for h in hands.values()])
    snap["env"]["engine_current"] = 0
    env.restore(snap)


def _loop_policy(env: raw_env) -> int:
    """Draw; play the drawn Reverse (a Skip with two players: the same player again)."""
    legal = {env.action_meanings[a]: a for a in env.engine.legal}
    if env.phase == "play" and "draw" in legal:
        return legal["draw"]
    plays = [a for m, a in legal.items() if m.startswith("play") and m.endswith("-reverse")]
    return plays[0] if plays else legal.get("pass", min(legal.values()))


def test_g_end_the_looping_flip_policy_is_truncated_at_the_default_limit() -> None:
    env = raw_env("flip", 2)
    assert env.max_steps == DEFAULT_MAX_STEPS and raw_env("flip", 2, max_steps=None).max_steps \
        == DEFAULT_MAX_STEPS
    _looping_flip(env)
    sizes = list(env.engine.hand_len)
    seen = set()
    for _ in range(8):  # it is a loop: the same few positions, no hand changes size
        env.step(_loop_policy(env))
        seen.add((env.phase, env.engine.current, len(env.engine.draw_pile),
                  tuple(env.engine.discard)))
    assert env.engine.hand_len == sizes and len(seen) <= 4
    assert env.agent_selection == "player_0" and not env.engine.is_over
    while not (env.terminations["player_0"] or env.truncations["player_0"]):
        env.step(_loop_policy(env))
        if env.num_steps % 10_000 == 0:
            assert env.engine.hand_len == sizes and env.agent_selection == "player_0"
    assert env.num_steps == DEFAULT_MAX_STEPS
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}
    assert not env.engine.is_over  # cut, not decided
    for a in env.agents:
        assert not env.infos[a]["action_mask"].any()
        assert not env.observe(a)["action_mask"].any()


def test_a_short_limit_truncates_the_loop_in_the_wrapped_env() -> None:
    e = uno_env.env("flip", 2, max_steps=500)
    e.reset(seed=0)
    raw = e.unwrapped
    _looping_flip(raw)
    while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        e.step(_loop_policy(raw))
    assert raw.num_steps == 500 and all(e.truncations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}


@pytest.mark.parametrize("variant", uno_env.list_variants())
@pytest.mark.parametrize("obs_type", ["dict", "flat"])
def test_infos_action_mask_equals_the_observation_mask(variant: str, obs_type: str) -> None:
    """At every step, for every agent: infos[agent]["action_mask"] is the observation's mask
    (the legal actions of the agent to act, zeros for the others and after the end)."""
    e = uno_env.env(variant, 3, obs_type=obs_type, max_steps=300)
    dict_view = uno_env.raw_env(variant, 3, max_steps=300)  # reference: the dict obs
    rng = np.random.default_rng(0)
    for seed in range(3):
        e.reset(seed=seed)
        dict_view.reset(seed=seed)
        while True:
            for a in e.agents:
                info_mask = e.infos[a]["action_mask"]
                ref = dict_view.observe(a)["action_mask"]
                assert info_mask.dtype == np.int8 and np.array_equal(info_mask, ref)
                obs = e.observe(a)
                if obs_type == "dict":
                    assert np.array_equal(obs["action_mask"], info_mask)
                else:
                    assert isinstance(obs, np.ndarray)
                    assert e.observation_space(a).contains(obs)
            sel = e.agent_selection
            if e.terminations[sel] or e.truncations[sel]:
                break
            action = int(rng.choice(np.flatnonzero(e.infos[sel]["action_mask"])))
            e.step(action)
            dict_view.step(action)


def test_an_illegal_move_in_flat_mode_ends_the_game_and_empties_every_mask() -> None:
    """TerminateIllegalWrapper reads the mask from infos in flat mode; once it ends the game
    no agent has legal actions (before, the raw env kept offering them)."""
    for obs_type in ("dict", "flat"):
        e = uno_env.env("classic", 2, obs_type=obs_type)
        e.reset(seed=1)
        sel = e.agent_selection
        illegal = int(np.flatnonzero(e.infos[sel]["action_mask"] == 0)[0])
        e.step(illegal)
        assert e.rewards[sel] == -1 and all(e.terminations.values())
        for a in e.agents:
            assert not e.infos[a]["action_mask"].any()
            obs = e.observe(a)
            if obs_type == "dict":
                assert not obs["action_mask"].any()


def test_flat_mode_spaces_and_errors() -> None:
    e = uno_env.raw_env("flip", 2, obs_type="flat")
    space = e.observation_space("player_0")
    assert space.shape == (e.layout.size,) and np.isfinite(space.high).all()
    with pytest.raises(ValueError, match="obs_type"):
        uno_env.raw_env("classic", 2, obs_type="box")


def test_api_test_in_flat_mode_warns_nothing() -> None:
    """The claim of docs/environments.md: api_test's two warnings are about the dict observation only."""
    import warnings

    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(uno_env.env("flip", 3, obs_type="flat", max_steps=300), num_cycles=100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(uno_env.env("flip", 3, max_steps=300), num_cycles=20)
    known = ("Observation is not a NumPy array",
             "Observation space for each agent probably should be")
    texts = {str(w.message) for w in caught}
    assert texts and all(t.startswith(known) for t in texts), texts
