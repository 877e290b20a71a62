"""Errors say what was wrong and what is allowed: unknown variants and options, bad option
values and player counts, illegal actions (raw env: IllegalActionError; wrapped env:
PettingZoo's TerminateIllegalWrapper), bad decks and dealers on reset.
"""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pytest
from conftest import VARIANTS, episode_over, legal_from_mask, play_policy, player_counts

import uno_env

MAKERS = [uno_env.env, uno_env.raw_env]
MAKER_IDS = ["env", "raw_env"]


def _spec(variant: str) -> Any:
    return uno_env.find_variant(variant)


@pytest.mark.parametrize("make", MAKERS, ids=MAKER_IDS)
def test_unknown_variant(make: Any) -> None:
    with pytest.raises(ValueError) as info:
        make("klondike")
    msg = str(info.value)
    assert "klondike" in msg and "allowed" in msg
    for v in VARIANTS:
        assert v in msg
    with pytest.raises(ValueError, match="klondike"):
        uno_env.find_variant("klondike")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("make", MAKERS, ids=MAKER_IDS)
def test_unknown_option(variant: str, make: Any) -> None:
    with pytest.raises(ValueError) as info:
        make(variant, 2, no_such_rule=True)
    msg = str(info.value)
    assert "no_such_rule" in msg
    for name in _spec(variant).options:  # the allowed option names are listed
        assert name in msg


def _bad_values(opt: Any) -> list[Any]:
    if opt.allowed is not None:
        bad: list[Any] = ["sometimes", "yes", None, 2, 1.5]
        if set(opt.allowed) == {False, True}:
            bad += [0, 1, "True"]  # a bool option takes real bools only
        return [b for b in bad if not any(b is a or (type(b) is type(a) and b == a)
                                          for a in opt.allowed)]
    if opt.kind is int:
        return [opt.minimum - 1, -5, str(opt.default), float(opt.default), True, None]
    return []


@pytest.mark.parametrize("variant", VARIANTS)
def test_bad_option_values(variant: str) -> None:
    checked = 0
    for name, opt in _spec(variant).options.items():
        for bad in _bad_values(opt):
            for make in MAKERS:
                with pytest.raises(ValueError) as info:
                    make(variant, 2, **{name: bad})
                msg = str(info.value)
                assert name in msg and repr(bad) in msg and "allowed" in msg, msg
                for ok in opt.allowed or ():
                    assert repr(ok) in msg, msg
                checked += 1
    assert checked


def test_bad_classic_option_values_named_in_the_brief() -> None:
    cases: dict[str, Any] = {"uno_catch": "sometimes", "stacking": "yes", "target_score": 0,
             "scoring": "lowest", "episode": "forever", "wd_challenge": 1}
    for name, bad in cases.items():
        with pytest.raises(ValueError, match=rf"{name}.*allowed"):
            uno_env.raw_env("classic", 2, **{name: bad})
    with pytest.raises(ValueError, match="'auto', 'decision', 'off'"):
        uno_env.env(uno_catch="sometimes")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("make", MAKERS, ids=MAKER_IDS)
def test_bad_player_count(variant: str, make: Any) -> None:
    lo, hi = _spec(variant).player_range(
        {k: o.default for k, o in _spec(variant).options.items()})
    for bad in (lo - 1, hi + 1, 0, -2, str(lo), float(lo), True, None):
        with pytest.raises(ValueError) as info:
            make(variant, bad)
        msg = str(info.value)
        assert f"{lo}-{hi}" in msg and "num_players" in msg and variant in msg, msg
        assert repr(bad) in msg, msg
    for n in player_counts(variant):
        make(variant, n)  # the whole range is accepted


def test_bad_player_count_classic_range() -> None:
    bads: tuple[Any, ...] = (1, 11, "2")
    for bad in bads:
        with pytest.raises(ValueError, match="2-10"):
            uno_env.raw_env("classic", bad)


@pytest.mark.parametrize("kwargs", [
    {"reward": "score"}, {"max_steps": 0}, {"max_steps": "10"}, {"max_steps": True},
    {"render_mode": "rgb_array"},
])
def test_bad_env_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=re.escape(next(iter(kwargs)))):
        uno_env.raw_env("classic", 2, **kwargs)


def _mid_game(variant: str, n: int, seed: int, steps: int, **opts: Any) -> Any:
    e = uno_env.raw_env(variant, n, **opts)
    e.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if episode_over(e):
            break
        e.step(play_policy(rng, e))
    assert not episode_over(e)
    return e


@pytest.mark.parametrize("variant", VARIANTS)
def test_illegal_action_on_raw_env(variant: str) -> None:
    for seed in range(3):
        e = _mid_game(variant, 3, seed, 10 * seed)
        legal = legal_from_mask(e.observe(e.agent_selection)["action_mask"])
        bad = next(a for a in range(len(e.action_meanings)) if a not in legal)
        before = (e.snapshot(), e.agent_selection, dict(e.rewards))
        with pytest.raises(uno_env.IllegalActionError) as info:
            e.step(bad)
        assert isinstance(info.value, ValueError)
        msg = str(info.value)
        assert e.action_meanings[bad] in msg, msg
        for a in legal:  # the legal ones are named
            assert e.action_meanings[a] in msg, msg
        assert (e.snapshot(), e.agent_selection, dict(e.rewards)) == before
        e.step(legal[0])  # and the game goes on


def test_illegal_action_message_classic() -> None:
    e = uno_env.raw_env("classic", 2)
    e.reset(seed=0)
    legal = legal_from_mask(e.observe(e.agent_selection)["action_mask"])
    assert e.action_index("challenge") not in legal
    with pytest.raises(uno_env.IllegalActionError, match=r"challenge.*legal.*draw"):
        e.step(e.action_index("challenge"))
    for bad in (-1, len(e.action_meanings), 10**6):
        with pytest.raises(uno_env.IllegalActionError, match="not an index"):
            e.step(bad)
    not_ints: tuple[Any, ...] = ("draw", 1.0, None)
    for thing in not_ints:
        with pytest.raises((TypeError, ValueError)):
            e.step(thing)
    e.step(np.int64(legal[0]))  # numpy integers are actions too


@pytest.mark.parametrize("variant", VARIANTS)
def test_illegal_action_on_wrapped_env_terminates(variant: str) -> None:
    """TerminateIllegalWrapper: the offender gets -1, everyone else 0, the game ends."""
    e = uno_env.env(variant, 3)
    e.reset(seed=4)
    for _ in range(5):
        obs, *_ = e.last()
        e.step(int(legal_from_mask(obs["action_mask"])[0]))
    offender = e.agent_selection
    obs, *_ = e.last()
    legal = legal_from_mask(obs["action_mask"])
    bad = next(a for a in range(len(obs["action_mask"])) if a not in legal)
    e.step(bad)  # PettingZoo logs "Illegal move made" and ends the game
    assert all(e.terminations.values())
    rewards: dict[str, float] = {}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        assert term or trunc
        rewards[agent] = reward
        e.step(None)
    assert rewards[offender] == -1
    assert all(r == 0 for a, r in rewards.items() if a != offender)
    assert set(rewards) == set(e.possible_agents)


def _names(variant: str) -> list[str]:
    return list(_spec(variant).card_names)


@pytest.mark.parametrize("variant", VARIANTS)
def test_reset_with_a_wrong_deck(variant: str) -> None:
    names = _names(variant)
    total = len(names)
    e = uno_env.raw_env(variant, 2)
    e.reset(seed=0, options={"deck": names})  # the deck in its own order is fine
    with pytest.raises(ValueError, match=rf"{total}.*got {total - 1}"):
        e.reset(seed=0, options={"deck": names[:-1]})
    with pytest.raises(ValueError, match=rf"{total}.*got {total + 1}"):
        e.reset(seed=0, options={"deck": [*names, names[0]]})
    with pytest.raises(ValueError, match="unknown card 'purple-42'"):
        e.reset(seed=0, options={"deck": ["purple-42", *names[1:]]})
    # one copy too many of a card (replacing another card, so the length is right)
    dup = names[-1]
    other = next(i for i, x in enumerate(names) if x != dup)
    wrong = names[:other] + [dup] + names[other + 1:]
    with pytest.raises(ValueError, match=rf"too many {re.escape(repr(dup))}"):
        e.reset(seed=0, options={"deck": wrong})
    with pytest.raises(ValueError, match="list of card names"):
        e.reset(seed=0, options={"deck": "red-7"})


def test_reset_with_a_wrong_deck_classic() -> None:
    names = _names("classic")
    assert len(names) == 108
    wrong = ["red-0", *[n for n in names if n != "blue-0"]]  # two red-0, no blue-0
    with pytest.raises(ValueError, match="too many 'red-0'"):
        uno_env.raw_env().reset(options={"deck": wrong})


@pytest.mark.parametrize("variant", VARIANTS)
def test_reset_with_a_bad_dealer(variant: str) -> None:
    e = uno_env.raw_env(variant, 3)
    for bad in (-1, 3, 99, "0", 1.0, True, None):
        if bad is None:
            e.reset(seed=0, options={"dealer": None})  # None: drawn from the seed
            continue
        with pytest.raises(ValueError, match=r"dealer.*0-2"):
            e.reset(seed=0, options={"dealer": bad})
    for d in range(3):
        e.reset(seed=0, options={"dealer": d})
        assert e.engine.dealer == d


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("make", MAKERS, ids=MAKER_IDS)
def test_unknown_reset_options_are_ignored(variant: str, make: Any) -> None:
    a = make(variant, 2)
    b = make(variant, 2)
    a.reset(seed=0, options={"options": 1})
    b.reset(seed=0)
    assert a.agent_selection == b.agent_selection
    for agent in a.agents:
        assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])


def test_restore_refuses_another_configuration() -> None:
    a = uno_env.raw_env("classic", 2)
    a.reset(seed=0)
    snap = a.snapshot()
    for other in (uno_env.raw_env("classic", 3), uno_env.raw_env("classic", 2, stacking=True)):
        with pytest.raises(ValueError, match="another configuration"):
            other.restore(snap)
