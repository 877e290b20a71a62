"""Scenario tests for UNO Express (docs/games/express.md), each from a fixed deck order, plus
snapshot/restore inside a jump-in window and seeded random-play checks at 2, 3, 4 and 6 players.

Express card names: ``red-draw-one``, ``wild-draw-two`` and the classic ``red-7``,
``red-skip``, ``red-reverse``, ``wild``. Every scenario deals full 5-card hands, so no seat holds
a card the test did not name (an unnamed twin would open a jump-in window).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from conftest import configs, play_policy
from scenario_helpers import (
    act,
    card_value,
    color,
    discard,
    hand,
    hand_total,
    legal,
    new_env,
    obs,
    phase,
    pile,
    top,
)

import uno_env
from uno_env import raw_env
from uno_env.variants import find_variant

# Every test runs on the Python engine and again on the batch engine (tests/batch_mirror.py).
pytestmark = pytest.mark.usefixtures("engine")

V = "express"
COLORS = ("red", "yellow", "green", "blue")


def xenv(n: int, hands: Mapping[int, Sequence[str]], first: str = "red-5",
         draw: Sequence[str] = (), dealer: int = 0, seed: int = 0,
         env_kwargs: Mapping[str, Any] | None = None, **options: Any) -> raw_env:
    """An Express game dealt from a fixed deck: every seat's full hand is given."""
    assert sorted(hands) == list(range(n)) and all(len(h) == 5 for h in hands.values())
    return new_env(n, dealer, hands=hands, first=first, draw=list(draw), seed=seed,
                   variant=V, env_kwargs=env_kwargs, **options)


def others_obs(env: raw_env, seats: Sequence[int]) -> list[bytes]:
    return [env.observe(env.possible_agents[s])["observation"].tobytes() for s in seats]


# --- E-deck ---------------------------------------------------------------------------------------

def test_e_deck_counts_per_kind() -> None:
    names = find_variant(V).card_names
    assert len(names) == 108
    expected: dict[str, int] = {"wild": 4, "wild-draw-two": 4}
    for c in COLORS:
        expected[f"{c}-0"] = 1
        for n in range(1, 10):
            expected[f"{c}-{n}"] = 2
        for symbol in ("draw-one", "skip", "reverse"):
            expected[f"{c}-{symbol}"] = 2
    assert dict(Counter(names)) == expected
    assert len(expected) == 54  # kinds: what matching and the action space see


def test_e_deck_action_space_and_conservation() -> None:
    env = raw_env(V, 2)
    meanings = set(env.action_meanings)
    for name in find_variant(V).card_names:
        assert f"play {name}" in meanings
    assert not any("draw-two" in m and "wild" not in m for m in meanings)  # no Draw Two
    assert "play wild-draw-four" not in meanings
    assert "challenge" not in meanings  # wd_challenge is off by default (E-wilds)
    env.reset(seed=0)
    g = env.engine
    assert sorted([c for h in g.hands for c in h] + g.draw_pile + g.discard) == list(range(108))


def test_e_deck_point_values() -> None:
    """E-end: numbers face value, coloured actions 20, wilds 50."""
    game = uno_env.Game(V, 2)
    for f, face in enumerate(game.faces):
        assert game.face_points[f] == card_value(face.name), face.name


# --- E-players ------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(2, 7))
def test_e_players_two_to_six(n: int) -> None:
    env = raw_env(V, n)
    env.reset(seed=n)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    g = env.engine
    assert min(g.hand_len) == 5 and len(g.hand_len) == n  # the first may have drawn one
    assert sum(g.hand_len) + len(g.draw_pile) + len(g.discard) == 108


@pytest.mark.parametrize("n", [0, 1, 7, 8, 10])
def test_e_players_refused_outside_two_to_six(n: int) -> None:
    with pytest.raises(ValueError, match="2-6"):
        raw_env(V, n)


@pytest.mark.parametrize("n", range(7, 11))
def test_e_players_seven_to_ten_with_allow_more_players(n: int) -> None:
    env = raw_env(V, n, allow_more_players=True)
    env.reset(seed=n)
    assert len(env.possible_agents) == n
    assert min(env.engine.hand_len) == 5
    assert sum(env.engine.hand_len) + len(env.engine.draw_pile) + len(env.engine.discard) == 108


@pytest.mark.parametrize("n", [1, 11])
def test_e_players_allow_more_players_still_two_to_ten(n: int) -> None:
    with pytest.raises(ValueError, match="2-10"):
        raw_env(V, n, allow_more_players=True)


def test_e_players_hand_size_five() -> None:
    env = new_env(6, 5, first="red-5", variant=V)
    assert env.engine.hand_len == [5] * 6
    assert len(env.engine.draw_pile) == 108 - 30 - 1
    env = new_env(10, 9, first="red-5", variant=V, allow_more_players=True)
    assert env.engine.hand_len == [5] * 10
    assert len(env.engine.draw_pile) == 108 - 50 - 1


# --- E-match --------------------------------------------------------------------------------------

def test_e_match_colour_number_wild() -> None:
    hands = {1: ["red-7", "yellow-5", "blue-skip", "wild-draw-two", "blue-draw-one"],
             2: ["green-1", "green-2", "green-3", "green-4", "green-6"],
             0: ["blue-1", "blue-2", "blue-3", "blue-4", "blue-6"]}
    env = xenv(3, hands, first="red-5")
    assert env.engine.current == 1
    assert legal(env) == {"play red-7", "play yellow-5", "play wild-draw-two", "draw"}


def test_e_match_symbol() -> None:
    hands = {1: ["red-skip", "green-1", "green-2", "green-3", "green-4"],
             2: ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-6"],
             0: ["blue-skip", "blue-reverse", "red-1", "green-draw-one", "wild"]}
    env = xenv(3, hands, first="red-5")
    act(env, "play red-skip")
    assert env.engine.current == 0 and phase(env) == "play"
    assert legal(env) == {"play blue-skip", "play red-1", "play wild", "draw"}


# --- E-first-discard (3 players, seat 1 deals, seat 2 is the first player) ------------------

HANDS3 = {
    0: ["red-9", "blue-1", "blue-2", "blue-3", "blue-4"],
    1: ["red-8", "green-1", "green-2", "green-3", "green-4"],
    2: ["red-7", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
}


def first_env(first: str, draw: Sequence[str] = (), seed: int = 0,
              hands: Mapping[int, Sequence[str]] = HANDS3) -> raw_env:
    return xenv(3, hands, first=first, draw=draw, dealer=1, seed=seed)


def test_e_first_discard_number() -> None:
    env = first_env("red-5")
    g = env.engine
    assert g.current == 2 and phase(env) == "play" and g.direction == 1
    assert color(env) == "red" and top(env) == "red-5" and g.hand_len == [5, 5, 5]
    assert legal(env) == {"play red-7", "draw"}


def test_e_first_discard_skip() -> None:
    env = first_env("red-skip")
    g = env.engine
    assert g.current == 0 and phase(env) == "play" and g.hand_len == [5, 5, 5]
    act(env, "play red-9")
    assert g.current == 1


def test_e_first_discard_skip_cannot_be_reversed_back() -> None:
    """Nobody played the turned-up card, so there is nobody to send it back to."""
    hands = {**HANDS3, 2: ["red-reverse", "yellow-1", "yellow-2", "yellow-3", "yellow-4"]}
    env = first_env("red-skip", hands=hands)
    assert env.engine.current == 0 and phase(env) == "play"


def test_e_first_discard_reverse() -> None:
    env = first_env("red-reverse")
    g = env.engine
    assert g.current == 1 and g.direction == -1  # the dealer plays first, counter-clockwise
    act(env, "play red-8")
    assert g.current == 0


def test_e_first_discard_draw_one() -> None:
    env = first_env("red-draw-one", draw=["green-8", "green-9"])
    g = env.engine
    assert hand(env, 2) == sorted(HANDS3[2] + ["green-8"])  # draws 1 ...
    assert g.current == 0 and phase(env) == "play"  # ... and is skipped
    assert hand(env, 0) == sorted(HANDS3[0]) and hand(env, 1) == sorted(HANDS3[1])
    assert pile(env)[0] == "green-9" and g.pending == 0


def test_e_first_discard_wild() -> None:
    env = first_env("wild")
    g = env.engine
    assert g.current == 2 and phase(env) == "color" and color(env) is None
    act(env, "color yellow")
    assert g.current == 2 and phase(env) == "play" and color(env) == "yellow"
    assert legal(env) == {"play yellow-1", "play yellow-2", "play yellow-3", "play yellow-4",
                          "draw"}


@pytest.mark.parametrize("seed", range(4))
def test_e_first_discard_wild_draw_two_returned(seed: int) -> None:
    env = first_env("wild-draw-two", seed=seed)
    g = env.engine
    assert len(g.discard) == 1 and top(env) != "wild-draw-two"
    assert "wild-draw-two" in pile(env)  # returned to the deck ...
    assert "wild-draw-two" not in discard(env)
    for seat in range(3):  # ... and the deal stands (a seat may have drawn since)
        assert Counter(HANDS3[seat]) <= Counter(hand(env, seat))
    assert sorted([c for h in g.hands for c in h] + g.draw_pile + g.discard) == list(range(108))


def test_e_first_discard_wild_draw_two_reshuffle_is_seeded() -> None:
    a, b = first_env("wild-draw-two", seed=4), first_env("wild-draw-two", seed=4)
    assert pile(a) == pile(b) and top(a) == top(b)
    assert len({top(first_env("wild-draw-two", seed=s)) for s in range(6)}) > 1


# --- E-draw-one -----------------------------------------------------------------------------------

def test_e_draw_one_only_on_its_own_colour() -> None:
    # 2 players, seat 0 deals, seat 1 first; blue-7 up
    hands = {1: ["blue-draw-one", "blue-draw-one", "red-draw-one", "green-draw-one", "blue-3"],
             0: ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "green-5"]}
    env = xenv(2, hands, first="blue-7", draw=["yellow-6"])
    assert legal(env) == {"play blue-draw-one", "play blue-3", "draw"}
    act(env, "play blue-draw-one")
    # seat 0 drew 1 and was skipped; on a blue Draw One only blue cards (and wilds) go:
    # not a Draw One of another colour
    assert env.engine.current == 1 and top(env) == "blue-draw-one"
    assert legal(env) == {"play blue-draw-one", "play blue-3", "draw"}


def test_e_draw_one_not_on_other_colours_draw_one() -> None:
    hands = {1: ["red-draw-one", "green-9", "green-1", "green-2", "green-3"],
             0: ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-draw-one"]}
    env = xenv(2, hands, first="red-9")
    act(env, "play red-draw-one")  # seat 0 draws 1 and is skipped: seat 1 again
    assert env.engine.current == 1
    # seat 0 holds yellow-draw-one but red-draw-one is on top: check the match table too
    g = env.engine
    yellow_d1 = env.game.face_names.index("yellow-draw-one")
    red_d1 = env.game.face_names.index("red-draw-one")
    assert not g.playable(yellow_d1) and g.playable(red_d1)


def test_e_draw_one_on_chosen_colour_after_wild() -> None:
    hands = {1: ["wild", "red-draw-one", "green-draw-one", "blue-1", "blue-2"],
             0: ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-6"]}
    env = xenv(2, hands, first="blue-9", draw=["yellow-7"])
    act(env, "play wild")
    act(env, "color green")
    # seat 0 has no green card: it draws (yellow-7, unplayable, kept); seat 1 again
    assert env.engine.current == 1 and color(env) == "green"
    assert legal(env) == {"play green-draw-one", "draw"}


def test_e_draw_one_next_draws_one_and_loses_turn() -> None:
    hands = {1: ["red-draw-one", "green-1", "green-2", "green-3", "green-4"],
             2: ["red-1", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
             0: ["red-2", "blue-1", "blue-2", "blue-3", "blue-4"]}
    env = xenv(3, hands, draw=["blue-9", "blue-8"])
    act(env, "play red-draw-one")
    g = env.engine
    assert hand(env, 2) == sorted(hands[2] + ["blue-9"])  # exactly one card
    assert g.current == 0 and phase(env) == "play" and g.pending == 0
    assert pile(env)[0] == "blue-8"
    act(env, "play red-2")
    assert g.current == 1


def test_e_draw_one_two_players() -> None:
    hands = {1: ["red-draw-one", "green-1", "green-2", "green-3", "red-4"],
             0: ["red-1", "blue-1", "blue-2", "blue-3", "blue-4"]}
    env = xenv(2, hands, draw=["blue-9"])
    act(env, "play red-draw-one")
    assert hand(env, 0) == sorted(hands[0] + ["blue-9"])
    assert env.engine.current == 1 and phase(env) == "play"  # seat 1 plays again


# --- E-jump-in (3 players, seat 0 deals: turn order 1, 2, 0) ---------------------------------

JUMP = {
    1: ["red-5", "red-6", "green-1", "green-2", "green-3"],
    2: ["red-9", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
    0: ["red-5", "red-1", "blue-1", "blue-2", "blue-3"],
}


def test_e_jump_in_on_a_number() -> None:
    env = xenv(3, JUMP, first="red-4")
    act(env, "play red-5")
    g = env.engine
    # seat 2 holds no red-5: seat 0 is asked, out of turn
    assert g.current == 0 and phase(env) == "jump-in"
    assert legal(env) == {"play red-5", "pass"}  # 5 cards: no UNO call offered
    act(env, "play red-5")
    # play continues from the jumper: seat 1 is next, seat 2 lost its turn
    assert g.current == 1 and phase(env) == "play"
    assert discard(env) == ["red-4", "red-5", "red-5"] and g.hand_len == [4, 4, 5]


def test_e_jump_in_pass() -> None:
    env = xenv(3, JUMP, first="red-4")
    act(env, "play red-5")
    act(env, "pass")
    g = env.engine
    assert g.current == 2 and phase(env) == "play" and g.hand_len == [5, 4, 5]
    assert legal(env) == {"play red-9", "draw"}


def test_e_jump_in_on_a_skip_by_its_victim() -> None:
    hands = {1: ["red-skip", "red-6", "green-1", "green-2", "green-3"],
             2: ["red-skip", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
             0: ["red-1", "blue-1", "blue-2", "blue-3", "blue-4"]}
    env = xenv(3, hands, first="red-4")
    act(env, "play red-skip")
    g = env.engine
    assert g.current == 2 and phase(env) == "jump-in"  # the skipped player may jump in
    act(env, "play red-skip")
    assert g.current == 1 and phase(env) == "play"  # seat 0 is skipped by the jumper
    assert g.hand_len == [5, 4, 4]


def test_e_jump_in_on_a_draw_one() -> None:
    hands = {1: ["red-draw-one", "red-6", "green-1", "green-2", "green-3"],
             2: ["red-draw-one", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
             0: ["red-1", "blue-1", "blue-2", "blue-3", "blue-4"]}
    env = xenv(3, hands, first="red-4", draw=["green-8", "green-9"])
    act(env, "play red-draw-one")
    g = env.engine
    assert hand(env, 2) == sorted(hands[2] + ["green-8"])  # the effect resolved first
    assert g.current == 2 and phase(env) == "jump-in"
    act(env, "play red-draw-one")
    assert hand(env, 0) == sorted(hands[0] + ["green-9"])
    assert g.current == 1 and phase(env) == "play"


def test_e_jump_in_on_a_reverse() -> None:
    hands = {1: ["red-reverse", "red-6", "green-1", "green-2", "green-3"],
             2: ["red-reverse", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
             0: ["red-1", "blue-1", "blue-2", "blue-3", "blue-4"]}
    env = xenv(3, hands, first="red-4")
    act(env, "play red-reverse")
    g = env.engine
    # counter-clockwise now: seat 0 is asked first, holds none; then seat 2
    assert g.direction == -1 and g.current == 2 and phase(env) == "jump-in"
    act(env, "play red-reverse")
    assert g.direction == 1 and g.current == 0 and phase(env) == "play"


def test_e_jump_in_two_rivals_cannot_arise() -> None:
    """With two copies of each coloured kind, only one other player can hold the top card's
    twin: after a play the window asks at most one player, and after a jump-in the window
    (which opens again for the new top card) asks nobody."""
    names = find_variant(V).card_names
    assert max(n for name, n in Counter(names).items() if not name.startswith("wild")) == 2
    env = xenv(3, JUMP, first="red-4")
    act(env, "play red-5")
    assert phase(env) == "jump-in"
    steps = env.num_steps
    act(env, "play red-5")
    assert env.num_steps == steps + 1 and phase(env) == "play"  # no second window


def test_e_jump_in_chain_over_turns() -> None:
    """Jump-ins one after another: each continues play from its jumper."""
    hands = {**JUMP, 1: ["red-5", "red-6", "red-7", "green-1", "green-2"],
             0: ["red-5", "red-6", "blue-1", "blue-2", "blue-3"]}
    env = xenv(3, hands, first="red-4")
    g = env.engine
    act(env, "play red-5")
    act(env, "play red-5")  # seat 0 jumps in
    assert g.current == 1
    act(env, "play red-6")
    assert g.current == 0 and phase(env) == "jump-in"  # seat 2 holds no red-6
    act(env, "play red-6")  # seat 0 jumps in again
    assert g.current == 1 and phase(env) == "play"
    assert g.hand_len == [3, 3, 5] and discard(env)[-4:] == ["red-5", "red-5", "red-6", "red-6"]


def test_e_jump_in_chain_skip_jump_reverse_back_jump() -> None:
    """The window opens again after every play: seat 1's Skip, seat 0 jumps in with the twin
    Skip (hitting seat 1), seat 1 answers with a Reverse (E-reverse-back: seat 0 is skipped),
    and seat 2 jumps in with the twin Reverse."""
    hands = {1: ["red-skip", "red-reverse", "green-1", "green-2", "green-3"],
             2: ["red-reverse", "yellow-1", "yellow-2", "yellow-3", "red-9"],
             0: ["red-skip", "blue-1", "blue-2", "blue-3", "red-1"]}
    env = xenv(3, hands, first="red-4")
    g = env.engine
    act(env, "play red-skip")
    # seat 2 is the victim and holds a red Reverse: it may send the skip back first
    assert g.current == 2 and phase(env) == "reverse-back"
    act(env, "accept")
    # then the window: seat 2 holds no red-skip, seat 0 does
    assert g.current == 0 and phase(env) == "jump-in"
    act(env, "play red-skip")  # skips seat 1, who holds a red Reverse
    assert g.current == 1 and phase(env) == "reverse-back"
    assert legal(env) == {"play red-reverse", "accept"}
    act(env, "play red-reverse")  # the skip goes back to seat 0; counter-clockwise now
    assert g.direction == -1
    # window for the Reverse, from seat 0 (counter-clockwise from seat 1): seat 2 holds it
    assert g.current == 2 and phase(env) == "jump-in"
    act(env, "play red-reverse")  # a plain Reverse out of turn: clockwise, seat 0 next
    assert g.direction == 1 and g.current == 0 and phase(env) == "play"
    assert discard(env) == ["red-4", "red-skip", "red-skip", "red-reverse", "red-reverse"]
    assert g.hand_len == [4, 3, 4]


def test_e_jump_in_chain_after_reverse_back_pass() -> None:
    hands = {1: ["red-skip", "red-6", "green-1", "green-2", "green-3"],
             2: ["red-reverse", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
             0: ["red-reverse", "blue-1", "blue-2", "blue-3", "red-1"]}
    env = xenv(3, hands, first="red-4")
    g = env.engine
    act(env, "play red-skip")
    act(env, "play red-reverse")  # seat 2 sends the skip back: seat 1 skipped
    assert g.direction == -1
    assert g.current == 0 and phase(env) == "jump-in"  # seat 0 holds the twin Reverse
    act(env, "pass")
    assert g.current == 0 and phase(env) == "play"  # its normal turn (after skipped seat 1)
    act(env, "play red-1")
    assert g.current == 2  # still counter-clockwise


def test_e_jump_in_second_to_last_card_calls_uno() -> None:
    env = _uno_jump_env()
    assert legal(env) == {"play red-9", "uno", "pass"}  # UNO offered in the jump-in phase
    act(env, "uno")
    assert phase(env) == "jump-in" and legal(env) == {"play red-9", "pass"}
    act(env, "play red-9")
    assert hand(env, 0) == ["blue-0"]  # no penalty
    assert env.engine.current == 1 and phase(env) == "play"


def test_e_jump_in_second_to_last_card_without_call_penalised_four() -> None:
    env = _uno_jump_env()
    act(env, "play red-9")
    assert hand(env, 0) == sorted(["blue-0", *UNO_PENALTY])  # E-uno: 4 cards
    assert env.engine.current == 1 and phase(env) == "play"


def test_e_jump_in_second_to_last_card_caught_by_decision() -> None:
    env = _uno_jump_env(uno_catch="decision")
    act(env, "play red-9")
    assert env.engine.current == 1 and phase(env) == "catch"
    act(env, "catch")
    assert hand(env, 0) == sorted(["blue-0", *UNO_PENALTY])


UNO_PENALTY = ["green-6", "green-7", "green-8", "green-9"]


def _uno_jump_env(**options: Any) -> raw_env:
    """Two players: seat 0 is down to red-9 + blue-0 when seat 1 plays the other red-9."""
    hands = {1: ["red-1", "red-2", "red-3", "red-9", "blue-9"],
             0: ["red-6", "red-7", "red-8", "red-9", "blue-0"]}
    env = xenv(2, hands, first="red-5", draw=UNO_PENALTY, **options)
    for a, b in (("red-1", "red-6"), ("red-2", "red-7"), ("red-3", "red-8")):
        act(env, f"play {a}")
        act(env, f"play {b}")
    act(env, "uno")
    act(env, "play red-9")
    assert hand(env, 1) == ["blue-9"] and env.engine.current == 0 and phase(env) == "jump-in"
    return env


def test_e_jump_in_with_last_card_goes_out() -> None:
    env = _uno_jump_env()
    act(env, "uno")
    act(env, "play red-9")
    act(env, "play blue-9")  # seat 1 plays on, holding one card ... and goes out
    assert env.engine.is_over and env.engine.winners() == [1]


def test_e_jump_in_never_a_wild() -> None:
    hands = {1: ["wild", "wild-draw-two", "green-1", "green-2", "green-3"],
             2: ["wild", "yellow-1", "yellow-2", "yellow-3", "yellow-4"],
             0: ["wild-draw-two", "blue-1", "blue-2", "blue-3", "red-1"]}
    env = xenv(3, hands, first="red-4", draw=["green-8", "green-9", "blue-9"])
    g = env.engine
    act(env, "play wild")
    act(env, "color yellow")
    assert g.current == 2 and phase(env) == "play"  # seat 2 holds a wild: not asked
    act(env, "play yellow-1")
    act(env, "play red-1")
    assert g.current == 1
    act(env, "play wild-draw-two")
    act(env, "color green")
    assert hand(env, 2) == sorted(["wild", "yellow-2", "yellow-3", "yellow-4", "green-8",
                                   "green-9"])
    assert g.current == 0 and phase(env) == "play"  # seat 0 holds a Wild Draw Two: not asked


def test_e_jump_in_window_costs_no_step_when_nobody_holds_the_twin() -> None:
    hands = {1: ["red-5", "red-6", "red-skip", "green-2", "green-3"],
             2: ["red-9", "red-8", "yellow-2", "yellow-3", "yellow-4"],
             0: ["red-1", "red-2", "blue-1", "blue-2", "blue-3"]}
    script = ["play red-5", "play red-9", "play red-1", "play red-skip", "play red-2",
              "play red-6"]
    frames = []
    for jump_in in (True, False):
        env = xenv(3, hands, first="red-4", draw=["green-8", "green-9"], jump_in=jump_in)
        seen = []
        for meaning in script:
            act(env, meaning)
            assert phase(env) != "jump-in"
            seen.append((env.num_steps, env.agent_selection, others_obs(env, range(3)),
                         env.state().tobytes()))
        frames.append(seen)
    assert frames[0] == frames[1]
    assert [f[0] for f in frames[0]] == list(range(1, len(script) + 1))


def infos_of(env: object) -> dict[str, list[int]]:
    return {a: i["action_mask"].tolist() for a, i in env.infos.items()}  # type: ignore[attr-defined]


def test_e_jump_in_observations_carry_no_trace_of_who_was_asked() -> None:
    """Seat 0 is asked (it holds red-5) and passes; in the twin game it holds green-5
    instead and is not asked. Everything the other seats observe is the same, during the
    window and after, and seat 0's own observation differs only in its hand."""
    asked = xenv(3, JUMP, first="red-4")
    quiet = xenv(3, {**JUMP, 0: ["green-5", *JUMP[0][1:]]}, first="red-4")
    act(asked, "play red-5")
    act(quiet, "play red-5")
    assert asked.engine.current == 0 and phase(asked) == "jump-in"
    assert quiet.engine.current == 2 and phase(quiet) == "play"
    assert others_obs(asked, [1]) == others_obs(quiet, [1])  # seat 2 is to act in `quiet`
    jump = uno_env.PHASES.index("jump-in")
    assert obs(asked, 0)["phase"][jump] == 1 and not obs(asked, 2)["phase"].any()
    act(asked, "pass")
    assert asked.agent_selection == quiet.agent_selection
    assert infos_of(asked) == infos_of(quiet)  # the same masks: only the actor's is set
    for _ in range(2):
        assert others_obs(asked, [1, 2]) == others_obs(quiet, [1, 2])
        mine = [asked.layout.decode(asked.observe("player_0")["observation"]),
                quiet.layout.decode(quiet.observe("player_0")["observation"])]
        for name in mine[0]:
            if name != "hand":
                assert np.array_equal(mine[0][name], mine[1][name]), name
        for e in (asked, quiet):
            act(e, "play red-9" if e.engine.current == 2 else "play red-1")


def test_e_jump_in_not_asked_of_the_player_who_played() -> None:
    """Engine decision: the window goes round from the next player and stops before the
    player of the card, who may not jump in on their own play (no double play)."""
    env = xenv(3, {**JUMP, 1: ["red-5", "red-5", "red-6", "green-1", "green-2"],
                   0: ["green-5", *JUMP[0][1:]]}, first="red-4")
    act(env, "play red-5")
    assert env.engine.current == 2 and phase(env) == "play"


def test_e_jump_in_option_off() -> None:
    env = xenv(3, JUMP, first="red-4", jump_in=False)
    act(env, "play red-5")
    assert env.engine.current == 2 and phase(env) == "play"


def test_e_jump_in_not_on_the_first_discard() -> None:
    """The turned-up card is nobody's play: no window opens for it."""
    env = xenv(3, JUMP, first="red-6")  # seat 1 holds the other red-6
    assert env.engine.current == 1 and phase(env) == "play"


# --- E-reverse-back -------------------------------------------------------------------------------

REV3 = {1: ["red-skip", "red-draw-one", "red-6", "green-1", "green-2"],
        2: ["red-reverse", "red-9", "yellow-1", "yellow-2", "yellow-3"],
        0: ["red-1", "red-2", "blue-1", "blue-2", "blue-3"]}


def test_e_reverse_back_plain_reverse_turns_direction() -> None:
    env = xenv(3, {**REV3, 1: ["red-reverse", *REV3[1][1:]], 2: ["green-9", *REV3[2][1:]]},
               first="red-4")
    act(env, "play red-reverse")
    assert env.engine.direction == -1 and env.engine.current == 0 and phase(env) == "play"


def test_e_reverse_back_on_skip_two_players() -> None:
    hands = {1: ["red-skip", "red-6", "green-1", "green-2", "green-3"],
             0: ["red-reverse", "red-1", "blue-1", "blue-2", "blue-3"]}
    env = xenv(2, hands, first="red-4")
    g = env.engine
    act(env, "play red-skip")
    assert g.current == 0 and phase(env) == "reverse-back"
    assert legal(env) == {"play red-reverse", "accept"}
    act(env, "play red-reverse")
    # the skip goes back to seat 1: seat 0 plays
    assert g.current == 0 and phase(env) == "play" and g.direction == -1
    assert hand(env, 0) == sorted(hands[0][1:]) and top(env) == "red-reverse"


def test_e_reverse_back_on_skip_two_players_accept() -> None:
    hands = {1: ["red-skip", "red-6", "green-1", "green-2", "green-3"],
             0: ["red-reverse", "red-1", "blue-1", "blue-2", "blue-3"]}
    env = xenv(2, hands, first="red-4")
    act(env, "play red-skip")
    act(env, "accept")
    assert env.engine.current == 1 and phase(env) == "play" and env.engine.direction == 1
    assert hand(env, 0) == sorted(hands[0])


def test_e_reverse_back_on_skip_three_players() -> None:
    env = xenv(3, REV3, first="red-4")
    g = env.engine
    act(env, "play red-skip")
    assert g.current == 2 and phase(env) == "reverse-back"
    act(env, "play red-reverse")
    # counter-clockwise; seat 1 (who played the Skip) is skipped: seat 0 plays, then seat 2
    assert g.direction == -1 and g.current == 0 and phase(env) == "play"
    act(env, "play red-1")
    assert g.current == 2


def test_e_reverse_back_on_skip_three_players_accept() -> None:
    env = xenv(3, REV3, first="red-4")
    g = env.engine
    act(env, "play red-skip")
    act(env, "accept")
    assert g.direction == 1 and g.current == 0 and phase(env) == "play"
    act(env, "play red-1")
    assert g.current == 1


def test_e_reverse_back_on_draw_one_two_players() -> None:
    hands = {1: ["red-draw-one", "red-6", "green-1", "green-2", "green-3"],
             0: ["red-reverse", "red-1", "blue-1", "blue-2", "blue-3"]}
    env = xenv(2, hands, first="red-4", draw=["yellow-8"])
    g = env.engine
    act(env, "play red-draw-one")
    assert g.current == 0 and phase(env) == "reverse-back"
    assert legal(env) == {"play red-reverse", "accept"}
    assert hand(env, 0) == sorted(hands[0])  # nothing drawn yet
    act(env, "play red-reverse")
    assert hand(env, 1) == sorted(hands[1][1:] + ["yellow-8"])  # the player of the Draw One
    assert hand(env, 0) == sorted(hands[0][1:])
    assert g.current == 0 and phase(env) == "play"


def test_e_reverse_back_on_draw_one_two_players_accept() -> None:
    hands = {1: ["red-draw-one", "red-6", "green-1", "green-2", "green-3"],
             0: ["red-reverse", "red-1", "blue-1", "blue-2", "blue-3"]}
    env = xenv(2, hands, first="red-4", draw=["yellow-8"])
    act(env, "play red-draw-one")
    act(env, "accept")
    assert hand(env, 0) == sorted(hands[0] + ["yellow-8"])
    assert env.engine.current == 1 and phase(env) == "play"


def test_e_reverse_back_on_draw_one_three_players() -> None:
    env = xenv(3, REV3, first="red-4", draw=["yellow-8", "yellow-9"])
    g = env.engine
    act(env, "play red-draw-one")
    assert g.current == 2 and phase(env) == "reverse-back"
    act(env, "play red-reverse")
    assert hand(env, 1) == sorted(["red-skip", "red-6", "green-1", "green-2", "yellow-8"])
    assert hand(env, 2) == sorted(REV3[2][1:])
    assert g.direction == -1 and g.current == 0 and phase(env) == "play"
    act(env, "play red-1")
    assert g.current == 2


def test_e_reverse_back_on_draw_one_three_players_accept() -> None:
    env = xenv(3, REV3, first="red-4", draw=["yellow-8", "yellow-9"])
    g = env.engine
    act(env, "play red-draw-one")
    act(env, "accept")
    assert hand(env, 2) == sorted(REV3[2] + ["yellow-8"])
    assert g.direction == 1 and g.current == 0


def test_e_reverse_back_ping_pong_draw_one() -> None:
    """The player of the Draw One also holds a red Reverse: it may send the draw back again."""
    hands = {1: ["red-draw-one", "red-reverse", "red-6", "green-1", "green-2"],
             2: ["red-reverse", "red-9", "yellow-1", "yellow-2", "yellow-3"],
             0: ["red-1", "red-2", "blue-1", "blue-2", "blue-3"]}
    env = xenv(3, hands, first="red-4", draw=["yellow-8", "yellow-9"])
    g = env.engine
    act(env, "play red-draw-one")
    act(env, "play red-reverse")  # seat 2 sends it back
    assert g.current == 1 and phase(env) == "reverse-back"
    assert legal(env) == {"play red-reverse", "accept"}
    act(env, "play red-reverse")  # seat 1 sends it back again
    assert hand(env, 2) == sorted(hands[2][1:] + ["yellow-8"])
    assert hand(env, 1) == sorted(hands[1][2:])
    assert g.direction == 1 and g.current == 0 and phase(env) == "play"


def test_e_reverse_back_ping_pong_skip_two_players() -> None:
    hands = {1: ["red-skip", "red-reverse", "red-6", "green-1", "green-2"],
             0: ["red-reverse", "red-1", "blue-1", "blue-2", "blue-3"]}
    env = xenv(2, hands, first="red-4")
    g = env.engine
    act(env, "play red-skip")
    act(env, "play red-reverse")
    assert g.current == 1 and phase(env) == "reverse-back"
    act(env, "play red-reverse")  # back to seat 0, who has no red Reverse left
    assert g.current == 1 and phase(env) == "play" and g.direction == 1
    assert hand(env, 0) == sorted(hands[0][1:])


def test_e_reverse_back_needs_same_colour() -> None:
    hands = {1: ["red-skip", "red-6", "green-1", "green-2", "green-3"],
             0: ["blue-reverse", "red-1", "blue-1", "blue-2", "blue-3"]}
    env = xenv(2, hands, first="red-4")
    act(env, "play red-skip")
    assert env.engine.current == 1 and phase(env) == "play"  # seat 0 simply skipped


def test_e_reverse_back_not_on_wild_draw_two() -> None:
    hands = {1: ["wild-draw-two", "red-6", "green-1", "green-2", "green-3"],
             0: ["red-reverse", "red-1", "blue-1", "blue-2", "blue-3"]}
    env = xenv(2, hands, first="red-4", draw=["yellow-8", "yellow-9"])
    act(env, "play wild-draw-two")
    act(env, "color red")
    assert hand(env, 0) == sorted(hands[0] + ["yellow-8", "yellow-9"])
    assert env.engine.current == 1 and phase(env) == "play"


def test_e_reverse_back_option_off() -> None:
    env = xenv(3, REV3, first="red-4", reverse_back=False)
    act(env, "play red-skip")
    assert env.engine.current == 0 and phase(env) == "play" and env.engine.direction == 1


def _reverse_uno_env() -> raw_env:
    """Two players: seat 0 is down to red-reverse + red-0 when seat 1 plays a red Skip."""
    hands = {1: ["red-1", "red-2", "red-3", "red-skip", "blue-9"],
             0: ["red-6", "red-7", "red-8", "red-reverse", "red-0"]}
    env = xenv(2, hands, first="red-5", draw=UNO_PENALTY)
    for a, b in (("red-1", "red-6"), ("red-2", "red-7"), ("red-3", "red-8")):
        act(env, f"play {a}")
        act(env, f"play {b}")
    act(env, "uno")
    act(env, "play red-skip")
    assert env.engine.current == 0 and phase(env) == "reverse-back"
    return env


def test_e_reverse_back_with_second_to_last_card_calls_uno() -> None:
    env = _reverse_uno_env()
    assert legal(env) == {"play red-reverse", "uno", "accept"}
    act(env, "uno")
    act(env, "play red-reverse")
    assert hand(env, 0) == ["red-0"] and hand(env, 1) == ["blue-9"]
    assert env.engine.current == 0 and phase(env) == "play"  # seat 1 is skipped


def test_e_reverse_back_with_second_to_last_card_without_call() -> None:
    env = _reverse_uno_env()
    act(env, "play red-reverse")
    assert hand(env, 0) == sorted(["red-0", *UNO_PENALTY])  # E-uno: 4 cards
    assert env.engine.current == 0 and phase(env) == "play"


# --- E-wilds --------------------------------------------------------------------------------------

WILDS = {1: ["wild", "wild-draw-two", "red-6", "green-1", "green-2"],
         2: ["blue-9", "yellow-1", "yellow-2", "yellow-3", "red-9"],
         0: ["blue-1", "red-1", "yellow-6", "yellow-7", "green-9"]}


def test_e_wilds_wild_chooses_colour() -> None:
    env = xenv(3, WILDS, first="red-4")
    act(env, "play wild")
    assert phase(env) == "color" and env.engine.current == 1
    act(env, "color blue")
    assert color(env) == "blue" and env.engine.current == 2 and phase(env) == "play"
    assert legal(env) == {"play blue-9", "draw"}


def test_e_wilds_wild_draw_two() -> None:
    env = xenv(3, WILDS, first="red-4", draw=["green-7", "green-8", "green-6"])
    act(env, "play wild-draw-two")
    act(env, "color blue")
    g = env.engine
    assert hand(env, 2) == sorted(WILDS[2] + ["green-7", "green-8"])  # draws 2 ...
    assert g.current == 0 and phase(env) == "play" and color(env) == "blue"  # ... skipped
    assert legal(env) == {"play blue-1", "draw"}


def test_e_wilds_wild_draw_two_not_challengeable_by_default() -> None:
    env = xenv(3, WILDS, first="red-4", draw=["green-7", "green-8"])
    # seat 1 holds red-6 (the active colour): a bluff, yet nobody may challenge
    act(env, "play wild-draw-two")
    act(env, "color green")
    assert phase(env) == "play" and env.engine.current == 0
    assert hand(env, 1) == sorted(["wild", "red-6", "green-1", "green-2"])


def test_e_wilds_wild_draw_two_challenge_on_bluff() -> None:
    env = xenv(3, WILDS, first="red-4", draw=["green-7", "green-8"], wd_challenge=True)
    assert "challenge" in env.action_meanings
    act(env, "play wild-draw-two")  # seat 1 holds red-6: a bluff
    act(env, "color blue")
    g = env.engine
    assert g.current == 2 and phase(env) == "challenge"
    assert legal(env) == {"challenge", "accept"}
    act(env, "challenge")
    assert hand(env, 1) == sorted(["wild", "red-6", "green-1", "green-2", "green-7", "green-8"])
    assert g.current == 2 and phase(env) == "play" and hand(env, 2) == sorted(WILDS[2])


def test_e_wilds_wild_draw_two_challenge_on_honest_play() -> None:
    hands = {**WILDS, 1: ["wild", "wild-draw-two", "green-6", "green-1", "green-2"]}
    env = xenv(3, hands, first="red-4", draw=["green-7", "green-8", "yellow-8", "yellow-9"],
               wd_challenge=True)
    act(env, "play wild-draw-two")  # no red card left: honest
    act(env, "color blue")
    act(env, "challenge")
    assert hand(env, 2) == sorted(WILDS[2] + ["green-7", "green-8", "yellow-8", "yellow-9"])
    assert env.engine.current == 0 and phase(env) == "play"


def test_e_wilds_wild_draw_two_accept_when_challengeable() -> None:
    env = xenv(3, WILDS, first="red-4", draw=["green-7", "green-8"], wd_challenge=True)
    act(env, "play wild-draw-two")
    act(env, "color blue")
    act(env, "accept")
    assert hand(env, 2) == sorted(WILDS[2] + ["green-7", "green-8"])
    assert env.engine.current == 0


# --- E-uno ----------------------------------------------------------------------------------------

UNO_HANDS = {1: ["red-skip", "red-skip", "red-reverse", "red-7", "red-8"],
             0: ["red-1", "blue-2", "blue-3", "blue-4", "green-9"]}


def _uno_env(**options: Any) -> raw_env:
    """Two players; seat 1 plays Skip, Skip, Reverse (= Skip) and holds red-7, red-8."""
    env = xenv(2, UNO_HANDS, first="red-5", draw=UNO_PENALTY, **options)
    for card in ("red-skip", "red-skip", "red-reverse"):
        act(env, f"play {card}")
    assert env.engine.current == 1 and hand(env, 1) == ["red-7", "red-8"]
    return env


def test_e_uno_penalty_four() -> None:
    env = _uno_env()
    assert "uno" in legal(env)
    act(env, "play red-7")
    assert hand(env, 1) == sorted(["red-8", *UNO_PENALTY])
    assert env.engine.current == 0 and phase(env) == "play"


def test_e_uno_called_no_penalty() -> None:
    env = _uno_env()
    act(env, "uno")
    act(env, "play red-7")
    assert hand(env, 1) == ["red-8"] and env.engine.current == 0


def test_e_uno_penalty_four_when_caught_by_decision() -> None:
    env = _uno_env(uno_catch="decision")
    act(env, "play red-7")
    assert env.engine.current == 0 and phase(env) == "catch"
    act(env, "catch")
    assert hand(env, 1) == sorted(["red-8", *UNO_PENALTY])


def test_e_uno_off() -> None:
    env = _uno_env(uno_catch="off")
    assert "uno" not in env.action_meanings
    act(env, "play red-7")
    assert hand(env, 1) == ["red-8"]


# --- E-end ----------------------------------------------------------------------------------------

# Three players: seats 2 and 0 can never play (nothing red, no number 1-4), so the engine draws
# for them; seat 1 goes out with red-1, red-2, red-3, (UNO) red-4, red-draw-one.
END_HANDS = {1: ["red-1", "red-2", "red-3", "red-4", "red-draw-one"],
             2: ["yellow-7", "green-8", "blue-skip", "green-draw-one", "yellow-reverse"],
             0: ["blue-9", "yellow-0", "green-skip", "blue-reverse", "yellow-draw-one"]}
END_DRAW = ["yellow-9", "green-9", "blue-7", "blue-8", "yellow-8", "green-6", "blue-6",
            "yellow-6", "wild"]
END_SCRIPT = ["play red-1", "play red-2", "play red-3", "uno", "play red-4",
              "play red-draw-one"]


def _end_env(**kwargs: Any) -> raw_env:
    env_kwargs = {k: kwargs.pop(k) for k in ("reward",) if k in kwargs}
    return xenv(3, END_HANDS, first="red-5", draw=END_DRAW, env_kwargs=env_kwargs, **kwargs)


def test_e_end_others_score_their_own_hands() -> None:
    env = _end_env()
    for meaning in END_SCRIPT:
        act(env, meaning)
    g = env.engine
    assert g.is_over and g.winners() == [1]
    assert "wild" in hand(env, 2)  # the last card's Draw One still counts (G-win-round)
    values = [hand_total(env, s) for s in range(3)]
    assert values[1] == 0
    assert values[2] == 7 + 8 + 60 + 9 + 7 + 8 + 6 + 50
    assert values[0] == 9 + 0 + 60 + 9 + 8 + 6 + 6
    assert g.scores == values
    assert g.round_results[-1]["points"] == values and g.round_results[-1]["winner"] == 1
    assert env.rewards == {"player_0": -0.5, "player_1": 1.0, "player_2": -0.5}


def test_e_end_winner_scoring_option() -> None:
    env = _end_env(scoring="winner")
    for meaning in END_SCRIPT:
        act(env, meaning)
    values = [hand_total(env, s) for s in range(3)]
    assert env.engine.scores == [0, values[0] + values[2], 0]


def test_e_end_points_reward() -> None:
    env = _end_env(reward="points")
    for meaning in END_SCRIPT:
        act(env, meaning)
    values = [hand_total(env, s) for s in range(3)]
    assert env.rewards["player_1"] == 0.0
    assert env.rewards["player_0"] == pytest.approx(-values[0] / 100)
    assert env.rewards["player_2"] == pytest.approx(-values[2] / 100)


# Two players: seat 1 goes out in six steps without seat 0 ever playing (2p Reverse = Skip).
QUICK_SCRIPT = ["play red-skip", "play red-skip", "play red-reverse", "uno",
                "play red-reverse", "play red-9"]


def _quick_match(seat0: list[str], **options: Any) -> raw_env:
    hands = {1: ["red-skip", "red-skip", "red-reverse", "red-reverse", "red-9"], 0: seat0}
    env = xenv(2, hands, first="red-5", episode="match", **options)
    for meaning in QUICK_SCRIPT:
        act(env, meaning)
    return env


def test_e_end_game_ends_at_250() -> None:
    env = _quick_match(["wild"] * 4 + ["wild-draw-two"])  # exactly 250
    g = env.engine
    assert g.scores == [250, 0] and g.is_over
    assert g.winners() == [1]
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert all(env.terminations.values())


def test_e_end_game_goes_on_below_250() -> None:
    env = _quick_match(["wild"] * 4 + ["blue-9"])  # 209
    g = env.engine
    assert g.scores == [209, 0] and not g.is_over and len(g.round_results) == 1
    assert g.dealer == 1 and len(g.discard) == 1 and min(g.hand_len) >= 5  # a new deal
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_e_end_target_score_option() -> None:
    env = _quick_match(["wild"] * 4 + ["blue-9"], target_score=200)
    assert env.engine.is_over and env.engine.winners() == [1]


def test_e_end_lowest_total_wins_match() -> None:
    """Seat 2 reaches 250 in a round that seat 1 wins; seat 0 has the lowest total and wins
    the match (earlier rounds' scores are set through a snapshot)."""
    for reward in ("win_loss", "points"):
        env = _end_env(episode="match", reward=reward)
        snap = env.snapshot()
        snap["scores"] = [10, 240, 120]
        env.restore(snap)
        for meaning in END_SCRIPT:
            act(env, meaning)
        g = env.engine
        values = [hand_total(env, s) for s in range(3)]
        assert g.scores == [10 + values[0], 240, 120 + values[2]]
        assert g.scores[2] >= 250 and g.scores[0] < g.scores[1]
        assert g.is_over and g.winners() == [0]
        if reward == "win_loss":
            assert env.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_e_end_match_random_play(n: int) -> None:
    """Seeded random matches to a short target: the match ends once someone reaches it and
    the lowest total wins (+1 shared by the winners)."""
    rng = random.Random(n)
    env = raw_env(V, n, episode="match", target_score=60, uno_catch="off", max_steps=6000)
    env.reset(seed=n)
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        env.step(rng.choice(env.engine.legal))
    g = env.engine
    assert g.is_over, "the match did not end"
    assert max(g.scores) >= 60 and len(g.round_results) >= 1
    low = min(g.scores)
    assert g.winners() == [s for s in range(n) if g.scores[s] == low]
    for r in g.round_results:
        if r["winner"] >= 0:
            w = r["winner"]
            assert r["points"] == [0 if s == w else r["hand_values"][s] for s in range(n)]


# --- snapshot / restore inside a jump-in window ---------------------------------------------

def _frames(env: raw_env, script: Sequence[str]) -> list[Any]:
    out = []
    for meaning in script:
        env.step(env.action_index(meaning))
        out.append((env.agent_selection, others_obs(env, range(env.num_players)),
                    env.state().tobytes(), dict(env.rewards), env.snapshot()))
    return out


@pytest.mark.parametrize("choice", ["play red-5", "pass"])
def test_e_jump_in_snapshot_restore_inside_window(choice: str) -> None:
    env = xenv(3, JUMP, first="red-4", draw=["green-8", "green-9", "blue-9"])
    act(env, "play red-5")
    assert phase(env) == "jump-in"
    snap = json.loads(json.dumps(env.snapshot()))
    assert snap["phase"] == "jump-in" and snap["current"] == "player_0"
    after = {"play red-5": ["play red-6", "play red-9", "play red-1"],
             "pass": ["play red-9", "play red-1", "play red-6"]}[choice]
    want = _frames(env, [choice, *after])
    fresh = raw_env(V, 3)
    fresh.restore(json.loads(json.dumps(snap)))
    assert fresh.agent_selection == "player_0" and phase(fresh) == "jump-in"
    assert legal(fresh) == {"play red-5", "pass"}
    assert _frames(fresh, [choice, *after]) == want
    env.restore(snap)  # the same env again, after it played on
    assert _frames(env, [choice, *after]) == want


# --- random play at 2, 3, 4 and 6 players ---------------------------------------------------

def test_e_generic_tests_cover_express_player_counts() -> None:
    counts = {n for (v, n, _) in configs(sample=12) if v == V}
    assert {2, 3, 4, 6} <= counts


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_e_random_play_invariants(n: int) -> None:
    """Seeded random play: cards conserved, masks exact, a selected agent has a real choice;
    a jump-in window asks only the holder of the top card's (single) twin and a reverse-back
    only a holder of the same-colour Reverse; a seed replays identically; a finished game
    pays +1 to its winner and is zero-sum."""
    seen: Counter[str] = Counter()
    ended = 0
    for seed in range(3):
        traces = []
        for _ in range(2):
            env = raw_env(V, n, max_steps=400)
            env.reset(seed=seed)
            rng = random.Random(seed)
            trace = []
            total = dict.fromkeys(env.possible_agents, 0.0)
            while not (any(env.terminations.values()) or any(env.truncations.values())):
                _check(env, seen)
                a = play_policy(rng, env)
                env.step(a)
                trace.append((a, env.agent_selection, env.state().tobytes()))
                for agent, r in env.rewards.items():
                    total[agent] += r
            traces.append(trace)
        assert traces[0] == traces[1], "the same seed did not replay identically"
        if any(env.terminations.values()):
            ended += 1
            (w,) = env.engine.winners()
            assert env.engine.hand_len[w] == 0
            assert total[env.possible_agents[w]] == pytest.approx(1.0)
            assert sum(total.values()) == pytest.approx(0.0, abs=1e-9)
    assert seen["jump-in"] and seen["reverse-back"] and ended


def _check(env: raw_env, seen: Counter[str]) -> None:
    g = env.engine
    hands = g.hands
    assert sorted([c for h in hands for c in h] + g.draw_pile + g.discard) == list(range(108))
    for a in env.agents:
        mask = env.observe(a)["action_mask"]
        if a == env.agent_selection:
            assert sorted(int(x) for x in np.flatnonzero(mask)) == sorted(g.legal)
            assert len(g.legal) >= 2
        else:
            assert not mask.any()
    ph = phase(env)
    seen[ph] += 1
    names = env.game.card_names
    top_name = names[g.discard[-1]]
    if ph == "jump-in":
        holders = [s for s in range(env.num_players) if top_name in hand(env, s)]
        assert holders == [g.current] and hand(env, g.current).count(top_name) == 1
        assert not top_name.startswith("wild")
    if ph == "reverse-back":
        col = top_name.split("-")[0]
        assert f"{col}-reverse" in hand(env, g.current)
        assert top_name.endswith(("skip", "draw-one", "reverse"))
