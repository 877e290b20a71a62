"""G-draw (`voluntary_draw`) and G-uno (`catch_window`) in every variant, both settings.

One fixed two-player deal per variant, written with light face names so that it reads the
same in all four (Flip's card names also carry their dark face; Flex's plain numbers have no
flex face). Seat 0 deals, ``red-5`` is turned up, seat 1 plays first.
"""

from __future__ import annotations

from typing import Any

import pytest
from scenario_helpers import act, hand, legal, make_deck, obs, phase, top

from uno_env import find_variant, raw_env

# Every test runs on the Python engine and again on the batch engine (tests/batch_mirror.py).
pytestmark = pytest.mark.usefixtures("engine")

VARIANTS = ("classic", "express", "flip", "flex")
# Seat 1 can run through this without seat 0 ever playing (G-two-players: Reverse = Skip);
# it ends on blue.
PREFIX = {5: ["red-skip", "blue-skip", "blue-reverse"],
          7: ["red-skip", "yellow-skip", "yellow-reverse", "blue-reverse", "blue-skip"]}
SEAT0 = ["blue-7", "green-1", "green-2", "yellow-2", "yellow-5", "green-8", "yellow-1"]
STUCK = ["blue-1", "blue-2", "green-4", "green-7", "yellow-8", "blue-4", "blue-8"]  # on red-5


class Names:
    """Full card names of a variant from light face names, each physical card used once."""

    def __init__(self, variant: str) -> None:
        self.left = list(find_variant(variant).card_names)

    def __call__(self, faces: list[str]) -> list[str]:
        out = []
        for face in faces:
            name = next((n for n in self.left if n.split("|")[0] == face), None)
            assert name is not None, f"no {face!r} left"
            self.left.remove(name)
            out.append(name)
        return out


def deal(variant: str, seat1: list[str], seat0: list[str] = SEAT0,
         draw: tuple[str, ...] = (), **options: Any) -> raw_env:
    """The env after dealing ``seat1`` / ``seat0`` (cut to the hand size) on ``red-5``."""
    size = find_variant(variant).hand_size
    names = Names(variant)
    hands = {1: names(seat1[:size]), 0: names(seat0[:size])}
    first, *pile = names(["red-5", *draw])
    env = raw_env(variant, 2, **options)
    deck = make_deck(variant, 2, 0, hands=hands, first=first, draw=pile)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    return env


def faces(env: raw_env, seat: int) -> list[str]:
    return sorted(name.split("|")[0] for name in hand(env, seat))


def light(names: set[str]) -> set[str]:
    return {n.split("|")[0] for n in names}


def one_card_left(variant: str, last_two: list[str], **options: Any) -> raw_env:
    """Seat 1 plays its prefix and then the first of ``last_two`` without calling UNO."""
    size = find_variant(variant).hand_size
    env = deal(variant, PREFIX[size] + last_two, draw=("green-7", "yellow-7", "green-4",
                                                      "yellow-8"), **options)
    for card in PREFIX[size]:  # actions name faces: the light face while on the light side
        if f"play {card}" in legal(env):  # else it was seat 1's only play: the engine made it
            act(env, f"play {card}")
    assert env.engine.current == 1 and len(hand(env, 1)) == 2
    assert "uno" in legal(env)
    act(env, f"play {last_two[0]}")
    return env


# --- G-draw: voluntary_draw ----------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_g_draw_defaults(variant: str) -> None:
    """Off for classic (G-draw), on for Flip, Flex and Express."""
    opts = raw_env(variant, 2).options
    assert opts["voluntary_draw"] is (variant != "classic")
    assert opts["catch_window"] == ("until-out" if variant == "classic" else "turn")


@pytest.mark.parametrize("variant", VARIANTS)
def test_g_draw_voluntary_on_draw_beside_plays(variant: str) -> None:
    env = deal(variant, ["red-8", "red-2", *STUCK], draw=("yellow-7",), voluntary_draw=True)
    assert light(legal(env)) == {"play red-8", "play red-2", "draw"}
    act(env, "draw")
    assert phase(env) == "play" and env.engine.current == 0  # yellow-7 kept: turn over
    assert "yellow-7" in faces(env, 1)


@pytest.mark.parametrize("variant", VARIANTS)
def test_g_draw_voluntary_off_no_draw_with_a_playable_card(variant: str) -> None:
    env = deal(variant, ["red-8", "red-2", *STUCK], voluntary_draw=False)
    assert light(legal(env)) == {"play red-8", "play red-2"}
    with pytest.raises(ValueError, match="not legal"):
        env.step(env.action_index("draw"))
    assert len(hand(env, 1)) == find_variant(variant).hand_size  # nothing changed


@pytest.mark.parametrize("variant", VARIANTS)
def test_g_draw_voluntary_off_single_playable_card_is_played(variant: str) -> None:
    """One legal action is a forced decision: the engine plays the only playable card."""
    env = deal(variant, ["red-8", *STUCK], voluntary_draw=False)
    g = env.engine
    assert [env.game.card_names[c].split("|")[0] for c in g.discard[:2]] == ["red-5", "red-8"]
    assert "red-8" not in faces(env, 1)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("voluntary", [False, True])
def test_g_draw_nothing_playable_draws_either_way(variant: str, voluntary: bool) -> None:
    """With no playable card draw is the only action (taken by the engine); a playable drawn
    card may then be played or kept under both settings (G-draw-then-play)."""
    env = deal(variant, STUCK, draw=("blue-5",), voluntary_draw=voluntary)
    assert env.engine.current == 1 and phase(env) == "drawn"
    assert light(legal(env)) == {"play blue-5", "pass"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_g_draw_voluntary_off_flex_and_double_plays_count_as_plays(variant: str) -> None:
    """Any play (a flex play, a double play) makes draw illegal; no play brings it back."""
    if variant == "flex":  # yellow-1 does not match red-5; its flex face red-1 does
        env = deal("flex", ["yellow-1/red-1", *STUCK], voluntary_draw=False)
        assert top(env) == "yellow-1/red-1"  # the only play (draw not legal): the engine made it
        assert env.engine.flex_play
    elif variant == "classic":
        env = deal("classic", ["red-8", "red-8", *STUCK], voluntary_draw=False,
                   double_play=True)
        assert legal(env) == {"play red-8", "play-two red-8"}
    else:
        pytest.skip(f"{variant} has neither flex faces nor double play")


# --- G-uno: catch_window ---------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_g_uno_catch_window_turn_catch_phase_then_no_catch(variant: str) -> None:
    env = one_card_left(variant, ["blue-4", "blue-8"], uno_catch="decision",
                        catch_window="turn", voluntary_draw=True)
    assert env.engine.current == 0 and phase(env) == "catch"
    assert legal(env) == {"catch", "pass"}
    act(env, "pass")
    assert phase(env) == "play" and "catch" not in legal(env)  # the next turn has begun
    act(env, "draw")  # green-7 cannot be played: kept, the turn ends
    assert env.engine.current == 1
    act(env, "play blue-8")
    assert env.engine.is_over and env.engine.winners() == [1]  # never penalised


@pytest.mark.parametrize("variant", VARIANTS)
def test_g_uno_catch_window_until_out_every_opponent_decision(variant: str) -> None:
    env = one_card_left(variant, ["blue-4", "blue-8"], uno_catch="decision",
                        catch_window="until-out", voluntary_draw=True)
    g = env.engine
    # no catch phase: the opponent's own turn offers catch beside its other actions
    assert g.current == 0 and phase(env) == "play"
    assert light(legal(env)) == {"play blue-7", "draw", "catch"}
    assert list(obs(env, 0)["catch_target"]) == [1.0]
    assert not obs(env, 1)["catch_target"].any()  # only the one to decide sees it
    act(env, "draw")  # green-7 cannot be played, but keeping it is now one of two actions
    assert phase(env) == "drawn" and legal(env) == {"pass", "catch"}
    act(env, "pass")
    assert g.current == 1 and "catch" not in legal(env)  # never to the player themself
    act(env, "play blue-8")
    assert g.is_over and g.winners() == [1]  # nobody caught it before the last card


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("voluntary", [False, True])
def test_g_uno_catch_window_until_out_catch_then_same_decision(variant: str,
                                                               voluntary: bool) -> None:
    env = one_card_left(variant, ["blue-4", "blue-8"], uno_catch="decision",
                        catch_window="until-out", voluntary_draw=voluntary)
    g = env.engine
    before = legal(env)
    snap = env.snapshot()
    act(env, "catch")
    penalty = find_variant(variant).uno_penalty
    assert len(hand(env, 1)) == 1 + penalty
    if voluntary:  # the same decision goes on, without catch
        assert g.current == 0 and phase(env) == "play" and legal(env) == before - {"catch"}
    else:  # ... and is a forced one now: blue-7 is seat 0's only action
        assert top(env).split("|")[0] == "blue-7" and g.current == 1
    env.restore(snap)  # the offer survives a snapshot round trip
    assert legal(env) == before and env.engine.catch_victim() == 1


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("window", ["turn", "until-out"])
def test_g_uno_catch_window_no_difference_with_auto(variant: str, window: str) -> None:
    env = one_card_left(variant, ["blue-4", "blue-8"], uno_catch="auto", catch_window=window)
    assert len(hand(env, 1)) == 1 + find_variant(variant).uno_penalty
    assert "catch" not in env.action_meanings


def test_g_uno_catch_window_until_out_nearest_opponent_in_turn_order() -> None:
    """Three players: the catch hits the first uncalled one-card opponent after the one who
    catches, in the current direction."""
    from scenario_helpers import RUN3, pile, three_player_env

    env = three_player_env(uno_catch="decision", catch_window="until-out")
    for card in RUN3[:5]:
        act(env, f"play {card}")
    act(env, "play red-4")  # seat 1 left with red-3, no call
    g = env.engine
    # seats 2 and 0 hold nothing playable: their forced draws become real decisions
    assert g.current == 2 and phase(env) == "play" and legal(env) == {"draw", "catch"}
    assert list(obs(env, 2)["catch_target"]) == [0.0, 1.0]  # seat 1 is two seats on
    act(env, "draw")
    assert phase(env) == "drawn" and legal(env) == {"pass", "catch"}
    act(env, "pass")
    assert g.current == 0 and legal(env) == {"draw", "catch"}
    assert list(obs(env, 0)["catch_target"]) == [1.0, 0.0]
    nxt = pile(env)[:2]
    act(env, "catch")
    assert hand(env, 1) == sorted(["red-3", *nxt])
    assert g.catch_victim() == -1  # seat 0 then draws, its only action, taken for it
