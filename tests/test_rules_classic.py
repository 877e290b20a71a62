"""Scenario tests for classic UNO (docs/games/classic.md), each from a fixed deck order."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from scenario_helpers import (
    PREFIX,
    PREFIX_DRAWS,
    SEAT0,
    act,
    card_value,
    color,
    discard,
    hand,
    hand_total,
    legal,
    make_deck,
    new_env,
    obs,
    phase,
    pile,
    points,
    quick_win_env,
    top,
    two_card_env,
)

from uno_env import raw_env
from uno_env.variants import find_variant

# Every test runs on the Python engine and again on the batch engine (tests/batch_mirror.py).
pytestmark = pytest.mark.usefixtures("engine")

COLORS = ("red", "yellow", "green", "blue")


# --- C-deck, C-players ---------------------------------------------------------------------------

def test_c_deck() -> None:
    names = find_variant("classic").card_names
    assert len(names) == 108
    counts = Counter(names)
    expected: dict[str, int] = {"wild": 4, "wild-draw-four": 4}
    for c in COLORS:
        expected[f"{c}-0"] = 1
        for n in range(1, 10):
            expected[f"{c}-{n}"] = 2
        for symbol in ("skip", "reverse", "draw-two"):
            expected[f"{c}-{symbol}"] = 2
    assert dict(counts) == expected
    env = raw_env("classic", 2)
    env.reset(seed=0)
    g = env.engine
    assert sorted([c for h in g.hands for c in h] + g.draw_pile + g.discard) == list(range(108))


@pytest.mark.parametrize("n", range(2, 11))
def test_c_players_accepted(n: int) -> None:
    env = raw_env("classic", n, voluntary_draw=True)  # no forced plays after the deal
    env.reset(seed=n)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    g = env.engine
    # every hand got 7 (the first player may have drawn since: a Draw Two, a forced draw)
    assert min(g.hand_len) == 7 and len(g.hand_len) == n
    assert sum(g.hand_len) + len(g.draw_pile) + len(g.discard) == 108


@pytest.mark.parametrize("n", [0, 1, 11, 12])
def test_c_players_rejected(n: int) -> None:
    with pytest.raises(ValueError, match="2-10"):
        raw_env("classic", n)


def test_c_players_hand_size() -> None:
    env = new_env(10, 9, first="red-5")
    assert env.engine.hand_len == [7] * 10
    assert len(env.engine.draw_pile) == 108 - 70 - 1


# --- C-first-discard (3 players, seat 1 deals, seat 2 is the first player) -------------------

HANDS3 = {
    0: ["red-9", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6", "blue-7"],
    1: ["red-8", "green-1", "green-2", "green-3", "green-4", "green-6", "green-7"],
    2: ["red-7", "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-6", "yellow-7"],
}


def first_env(first: str, draw: list[str] | None = None, seed: int = 0) -> raw_env:
    return new_env(3, 1, hands=HANDS3, first=first, draw=draw or [], seed=seed)


def test_c_first_discard_number() -> None:
    env = first_env("red-5")
    g = env.engine
    assert g.current == 2 and phase(env) == "play" and g.direction == 1
    assert color(env) == "red" and top(env) == "red-5"
    assert g.hand_len == [7, 7, 7]
    assert legal(env) == {"play red-7", "draw"}


def test_c_first_discard_skip() -> None:
    env = first_env("red-skip")
    g = env.engine
    assert g.current == 0 and phase(env) == "play"  # the first player (seat 2) is skipped
    assert g.hand_len == [7, 7, 7] and g.direction == 1
    act(env, "play red-9")
    assert g.current == 1


def test_c_first_discard_skip_two_players() -> None:
    env = new_env(2, 0, hands={1: ["red-1"], 0: ["red-2"]}, first="red-skip")
    assert env.engine.current == 0  # seat 1 skipped: the dealer plays


def test_c_first_discard_reverse() -> None:
    env = first_env("red-reverse")
    g = env.engine
    assert g.current == 1 and g.direction == -1  # the dealer plays first, counter-clockwise
    assert obs(env, 1)["counter_clockwise"][0] == 1
    act(env, "play red-8")
    assert g.current == 0


def test_c_first_discard_reverse_two_players() -> None:
    env = new_env(2, 0, hands={1: ["red-1"], 0: ["red-2"]}, first="red-reverse")
    assert env.engine.current == 0 and env.engine.direction == -1


def test_c_first_discard_draw_two() -> None:
    env = first_env("red-draw-two", draw=["green-8", "green-9"])
    g = env.engine
    assert hand(env, 2) == sorted(HANDS3[2] + ["green-8", "green-9"])
    assert g.current == 0 and phase(env) == "play"
    assert hand(env, 0) == sorted(HANDS3[0]) and hand(env, 1) == sorted(HANDS3[1])
    assert g.pending == 0


def test_c_first_discard_wild() -> None:
    env = first_env("wild")
    g = env.engine
    assert g.current == 2 and phase(env) == "color"  # the first player chooses the colour
    assert color(env) is None and obs(env, 2)["active_color"].sum() == 0
    act(env, "color yellow")
    assert g.current == 2 and phase(env) == "play"  # ... then plays
    assert color(env) == "yellow"
    assert "play yellow-1" in legal(env) and "play red-7" not in legal(env)


@pytest.mark.parametrize("seed", range(5))
def test_c_first_discard_wild_draw_four_returned(seed: int) -> None:
    env = first_env("wild-draw-four", seed=seed)
    g = env.engine
    assert len(g.discard) == 1 and top(env) != "wild-draw-four"
    names = env.game.card_names
    assert sum(names[c] == "wild-draw-four" for c in g.draw_pile) >= 1  # returned to the deck
    for seat in range(3):
        assert Counter(HANDS3[seat]) <= Counter(hand(env, seat))  # the deal is not redone
    assert sorted([c for h in g.hands for c in h] + g.draw_pile + g.discard) == list(range(108))


def test_c_first_discard_wild_draw_four_reshuffle_is_seeded() -> None:
    a = first_env("wild-draw-four", seed=4)
    b = first_env("wild-draw-four", seed=4)
    assert pile(a) == pile(b) and top(a) == top(b)
    tops = {top(first_env("wild-draw-four", seed=s)) for s in range(6)}
    assert len(tops) > 1  # the rest of the deck really is reshuffled


# --- C-effects (3 players, seat 0 deals, seat 1 plays first) ------------------------------------

EFF = {
    1: ["red-skip", "red-reverse", "red-draw-two", "wild", "wild-draw-four", "red-8", "blue-9"],
    2: ["red-7", "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-6", "yellow-7"],
    0: ["red-9", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6", "blue-7"],
}
EFF_DRAW = ["green-1", "green-2", "green-3", "green-4", "green-6", "green-7"]


def eff_env(**options: Any) -> raw_env:
    return new_env(3, 0, hands=EFF, first="red-5", draw=EFF_DRAW, **options)


def test_c_effects_skip() -> None:
    env = eff_env()
    act(env, "play red-skip")
    assert env.engine.current == 0  # seat 2 lost its turn
    assert hand(env, 2) == sorted(EFF[2])


def test_c_effects_reverse() -> None:
    env = eff_env()
    act(env, "play red-reverse")
    assert env.engine.direction == -1 and env.engine.current == 0
    act(env, "play red-9")
    assert env.engine.current == 2


def test_c_effects_draw_two() -> None:
    env = eff_env()
    act(env, "play red-draw-two")
    assert hand(env, 2) == sorted(EFF[2] + EFF_DRAW[:2])
    assert env.engine.current == 0 and env.engine.pending == 0


def test_c_effects_wild() -> None:
    env = eff_env()
    act(env, "play wild")
    assert phase(env) == "color" and env.engine.current == 1
    act(env, "color blue")
    assert color(env) == "blue"
    # seat 2 holds no blue: the engine drew for it (green-1, not playable, kept); seat 0 plays
    assert hand(env, 2) == sorted(EFF[2] + EFF_DRAW[:1])
    assert env.engine.current == 0


def test_c_effects_wild_draw_four() -> None:
    env = eff_env()
    act(env, "play wild-draw-four")  # a bluff (seat 1 holds red cards), still legal
    act(env, "color blue")
    assert env.engine.current == 2 and phase(env) == "challenge"
    assert obs(env, 2)["pending_draw"][0] == 4
    act(env, "accept")
    assert hand(env, 2) == sorted(EFF[2] + EFF_DRAW[:4])
    assert env.engine.current == 0 and color(env) == "blue"


# --- C-wild-any-time -------------------------------------------------------------------------------

def test_c_wild_any_time_with_matching_cards_in_hand() -> None:
    env = eff_env()
    assert {"play red-skip", "play red-8", "play wild"} <= legal(env)


@pytest.mark.parametrize(("first", "dealer"), [
    ("yellow-0", 0),  # seat 1 plays first
    ("blue-draw-two", 1), ("green-reverse", 1), ("yellow-skip", 1),  # the dealer, seat 1, plays
])
def test_c_wild_any_time_on_any_card(first: str, dealer: int) -> None:
    mine = ["wild", "red-1", "red-2", "red-3", "red-4", "red-6", "red-7"]
    env = new_env(2, dealer, hands={1: mine, 0: SEAT0}, first=first)
    assert env.engine.current == 1 and top(env) == first
    assert legal(env) == {"play wild", "draw"}


def test_c_wild_any_time_drawn_wild_playable() -> None:
    env = new_env(2, 0, hands={1: ["red-9"], 0: SEAT0}, first="red-5", draw=["wild"])
    act(env, "draw")
    assert legal(env) == {"play wild", "pass"}


# --- C-stacking ------------------------------------------------------------------------------------

STACK = {
    1: ["red-draw-two", "wild-draw-four", "red-6", "red-7", "red-8", "red-9", "green-9"],
    2: ["blue-draw-two", "wild-draw-four", "red-1", "yellow-1", "yellow-2", "yellow-3",
        "yellow-4"],
    0: ["red-2", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6", "blue-7"],
}
STACK_DRAW = [f"green-{n}" for n in (1, 1, 2, 2, 3, 3, 4, 4, 6, 6)]


def stack_env(hands: dict[int, list[str]] | None = None, **options: Any) -> raw_env:
    return new_env(3, 0, hands=hands or STACK, first="red-5", draw=STACK_DRAW, stacking=True,
                   **options)


def test_c_stacking_draw_two() -> None:
    env = stack_env()
    act(env, "play red-draw-two")
    g = env.engine
    assert g.current == 2 and phase(env) == "stack" and g.pending == 2
    assert legal(env) == {"play blue-draw-two", "accept"}
    act(env, "play blue-draw-two")
    # seat 0 holds no Draw Two: it draws the total (automatically) and loses the turn
    assert hand(env, 0) == sorted(STACK[0] + STACK_DRAW[:4])
    assert g.pending == 0 and g.current == 1 and phase(env) == "play"
    assert color(env) == "blue"


def test_c_stacking_accept() -> None:
    env = stack_env()
    act(env, "play red-draw-two")
    act(env, "accept")
    assert hand(env, 2) == sorted(STACK[2] + STACK_DRAW[:2])
    assert env.engine.current == 0


def test_c_stacking_wild_draw_four_not_on_draw_two() -> None:
    hands = {**STACK, 2: ["wild-draw-four", "red-1", "yellow-1", "yellow-2", "yellow-3",
                          "yellow-4", "yellow-6"]}
    env = stack_env(hands)
    act(env, "play red-draw-two")  # seat 2's Wild Draw Four may not stack on a Draw Two
    assert hand(env, 2) == sorted(hands[2] + STACK_DRAW[:2])  # drawn automatically
    assert env.engine.current == 0


def test_c_stacking_draw_two_not_on_wild_draw_four() -> None:
    hands = {**STACK, 2: ["blue-draw-two", "red-1", "yellow-1", "yellow-2", "yellow-3",
                          "yellow-4", "yellow-6"]}
    env = stack_env(hands)
    act(env, "play wild-draw-four")
    act(env, "color blue")
    assert env.engine.current == 2 and legal(env) == {"challenge", "accept"}


def test_c_stacking_wild_draw_four() -> None:
    env = stack_env()
    act(env, "play wild-draw-four")
    act(env, "color green")
    assert env.engine.current == 2
    assert legal(env) == {"challenge", "play wild-draw-four", "accept"}
    act(env, "play wild-draw-four")
    act(env, "color red")
    g = env.engine
    assert g.current == 0 and phase(env) == "challenge" and g.pending == 8
    act(env, "accept")
    assert hand(env, 0) == sorted(STACK[0] + STACK_DRAW[:8])
    assert g.current == 1 and color(env) == "red"


def test_c_stacking_draw_two_no_stack_cards_auto_accept() -> None:
    hands = dict(STACK)
    hands[2] = ["red-1", "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-6",
                "yellow-7"]
    env = stack_env(hands)
    act(env, "play red-draw-two")
    assert hand(env, 2) == sorted(hands[2] + STACK_DRAW[:2])
    assert env.engine.current == 0


# Two players: seat 1 plays an honest Wild Draw Four (no red), choosing green; seat 0 stacks
# its own, then seat 1 challenges the stacked card.
SEAT1_WD = ["wild-draw-four", "blue-1", "blue-2", "yellow-3", "yellow-4", "blue-6", "blue-7"]
WD8 = [f"yellow-{n}" for n in (1, 1, 2, 2, 5, 5, 6, 6, 7, 7)]


def test_c_stacking_wd4_challenge_bluff() -> None:
    seat0 = ["wild-draw-four", "green-3", "blue-3", "blue-4", "blue-8", "blue-9", "yellow-8"]
    env = new_env(2, 0, hands={1: SEAT1_WD, 0: seat0}, first="red-5", draw=WD8,
                  stacking=True)
    act(env, "play wild-draw-four")
    act(env, "color green")
    act(env, "play wild-draw-four")  # a bluff: seat 0 holds green-3 and green was active
    act(env, "color blue")
    g = env.engine
    assert g.current == 1 and legal(env) == {"challenge", "accept"} and g.pending == 8
    act(env, "challenge")
    assert hand(env, 0) == sorted(seat0[1:] + WD8[:8])  # the bluffer draws the whole total
    assert hand(env, 1) == sorted(SEAT1_WD[1:])
    assert g.current == 1 and phase(env) == "play"  # the challenger then plays normally
    assert color(env) == "blue" and g.pending == 0


def test_c_stacking_wd4_challenge_honest() -> None:
    seat0 = ["wild-draw-four", "red-3", "blue-3", "blue-4", "blue-8", "blue-9", "yellow-8"]
    env = new_env(2, 0, hands={1: SEAT1_WD, 0: seat0}, first="red-5", draw=WD8,
                  stacking=True)
    act(env, "play wild-draw-four")
    act(env, "color green")
    act(env, "play wild-draw-four")  # honest: seat 0 holds no green
    act(env, "color blue")
    act(env, "challenge")
    assert hand(env, 1) == sorted(SEAT1_WD[1:] + WD8[:10])  # the total plus 2
    assert hand(env, 0) == sorted(seat0[1:])
    assert env.engine.current == 0 and phase(env) == "play"  # the challenger lost the turn
    assert color(env) == "blue"


def test_c_stacking_first_wd4_challenged_instead_of_stacking() -> None:
    seat0 = ["wild-draw-four", "red-3", "blue-3", "blue-4", "blue-8", "blue-9", "yellow-8"]
    env = new_env(2, 0, hands={1: SEAT1_WD, 0: seat0}, first="red-5", draw=WD8,
                  stacking=True)
    act(env, "play wild-draw-four")
    act(env, "color blue")
    act(env, "challenge")  # honest: seat 0 draws 4 + 2
    assert hand(env, 0) == sorted(seat0 + WD8[:6])
    assert env.engine.current == 1


# --- C-double-play ---------------------------------------------------------------------------------

DOUBLE = ["red-7", "red-7", "blue-5", "blue-5", "red-skip", "red-skip", "green-3"]


def test_c_double_play() -> None:
    env = new_env(2, 0, hands={1: DOUBLE, 0: SEAT0}, first="red-5", double_play=True)
    assert {"play-two red-7", "play-two blue-5"} <= legal(env)
    assert not any(m.startswith("play-two") and "skip" in m for m in env.action_meanings)
    assert "play-two green-3" not in legal(env)
    act(env, "play-two red-7")
    assert discard(env) == ["red-5", "red-7", "red-7"]
    assert hand(env, 1) == sorted(DOUBLE[2:])
    assert env.engine.current == 0


def test_c_double_play_by_number_match() -> None:
    env = new_env(2, 0, hands={1: DOUBLE, 0: SEAT0}, first="red-5", double_play=True)
    act(env, "play-two blue-5")
    assert discard(env) == ["red-5", "blue-5", "blue-5"] and color(env) == "blue"


def test_c_double_play_only_identical_copies() -> None:
    hand1 = ["red-7", "blue-7", "red-6", "green-3", "green-4", "yellow-8", "yellow-9"]
    env = new_env(2, 0, hands={1: hand1, 0: SEAT0}, first="red-5", double_play=True)
    assert not any(m.startswith("play-two") for m in legal(env))


def test_c_double_play_uno_with_three_cards() -> None:
    env = new_env(2, 0, hands={1: PREFIX[:4] + ["red-7", "red-7", "blue-1"], 0: SEAT0},
                  first="red-5", double_play=True, draw=["yellow-1", "yellow-2"])
    for card in PREFIX[:4]:
        act(env, f"play {card}")
    assert legal(env) == {"play red-7", "play-two red-7", "uno", "draw"}
    act(env, "uno")
    act(env, "play-two red-7")
    assert hand(env, 1) == ["blue-1"]  # called: not caught


def test_c_double_play_caught_without_call() -> None:
    env = new_env(2, 0, hands={1: PREFIX[:4] + ["red-7", "red-7", "blue-1"], 0: SEAT0},
                  first="red-5", double_play=True, draw=["yellow-1", "yellow-2"])
    for card in PREFIX[:4]:
        act(env, f"play {card}")
    act(env, "play-two red-7")
    assert hand(env, 1) == ["blue-1", "yellow-1", "yellow-2"]


def test_c_double_play_going_out() -> None:
    env = new_env(2, 0, hands={1: PREFIX + ["red-7", "red-7"], 0: SEAT0}, first="red-5",
                  double_play=True, draw=PREFIX_DRAWS)
    for card in PREFIX:
        act(env, f"play {card}")
    act(env, "play-two red-7")
    assert env.engine.is_over and env.engine.winners() == [1]
    assert env.engine.scores == [0, 31 + 3]


# --- C-jump-in (3 players, seat 0 deals, seat 1 plays first) -----------------------------------

JUMP = {
    1: ["red-7", "red-skip", "wild", "red-8", "blue-1", "blue-2", "blue-3"],
    2: ["red-skip", "red-1", "yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-6"],
    0: ["red-7", "wild", "red-2", "green-1", "green-2", "green-3", "green-4"],
}


def jump_env(hands: dict[int, list[str]] | None = None, **options: Any) -> raw_env:
    opts = {"jump_in": True, **options}
    return new_env(3, 0, hands=hands or JUMP, first="red-5", bottom=["red-9"], **opts)


def test_c_jump_in() -> None:
    env = jump_env()
    act(env, "play red-7")
    g = env.engine
    assert g.current == 0 and phase(env) == "jump-in"  # seat 0 holds the twin; seat 2 skipped
    assert legal(env) == {"play red-7", "pass"}
    act(env, "play red-7")
    assert discard(env) == ["red-5", "red-7", "red-7"]
    assert hand(env, 0) == sorted(JUMP[0][1:])
    assert g.current == 1 and phase(env) == "play"  # play continues from seat 0
    assert hand(env, 2) == sorted(JUMP[2])  # seat 2 lost its turn


def test_c_jump_in_pass() -> None:
    env = jump_env()
    act(env, "play red-7")
    act(env, "pass")
    assert env.engine.current == 2 and phase(env) == "play"
    assert hand(env, 0) == sorted(JUMP[0])


def test_c_jump_in_never_wild() -> None:
    env = jump_env()
    act(env, "play wild")
    act(env, "color red")
    assert env.engine.current == 2 and phase(env) == "play"  # seat 0's wild is not asked


def test_c_jump_in_action_card() -> None:
    env = jump_env()
    act(env, "play red-skip")  # seat 2 skipped; seat 2 holds the other red-skip
    assert env.engine.current == 2 and phase(env) == "jump-in"
    act(env, "play red-skip")  # from seat 2: seat 0 is skipped
    assert env.engine.current == 1 and phase(env) == "play"


def test_c_jump_in_leaves_no_trace() -> None:
    asked = jump_env()
    other = {**JUMP, 0: ["red-9", *JUMP[0][1:]]}
    not_asked = new_env(3, 0, hands=other, first="red-5", bottom=["red-7"], jump_in=True)
    act(asked, "play red-7")
    act(asked, "pass")
    act(not_asked, "play red-7")
    for env in (asked, not_asked):
        assert env.engine.current == 2 and phase(env) == "play"
    for seat in (1, 2):
        a = asked.observe(f"player_{seat}")
        b = not_asked.observe(f"player_{seat}")
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])


def test_c_jump_in_off() -> None:
    env = jump_env(jump_in=False)
    act(env, "play red-7")
    assert env.engine.current == 2 and phase(env) == "play"


# --- C-score ---------------------------------------------------------------------------------------

def test_c_score_values() -> None:
    for c in COLORS:
        for n in range(10):
            assert points(f"{c}-{n}") == n
        for symbol in ("skip", "reverse", "draw-two"):
            assert points(f"{c}-{symbol}") == 20
    assert points("wild") == 50 and points("wild-draw-four") == 50


def test_c_score_round() -> None:
    seat0 = ["red-3", "blue-skip", "green-reverse", "yellow-draw-two", "wild",
             "wild-draw-four", "blue-0"]
    env = quick_win_env(seat0=seat0)
    assert env.engine.is_over and env.engine.winners() == [1]
    # 3 + 20 + 20 + 20 + 50 + 50 + 0, plus green-1, green-2, yellow-1, yellow-2
    assert env.engine.scores == [0, 163 + 6]
    assert env.engine.round_results[-1]["hand_values"] == [169, 0]
    assert hand_total(env, 0) == 169 == sum(card_value(c) for c in hand(env, 0))


def test_scenario_builder_baseline() -> None:
    # the scenario builder itself: seat 1 holds the two named cards after PREFIX
    env = two_card_env(["red-9", "blue-1"])
    assert top(env) == "red-draw-two" and hand(env, 0) == sorted(SEAT0 + PREFIX_DRAWS)
    deck = make_deck("classic", 2, 0, hands={1: ["red-9"]}, first="red-5", draw=["wild"])
    assert deck[0] == "red-9" and deck[14:16] == ["red-5", "wild"]
    assert sorted(deck) == sorted(find_variant("classic").card_names)
