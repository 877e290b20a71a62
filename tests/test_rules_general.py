"""Scenario tests for the general rules (docs/games/index.md), played on the classic deck.

Every scenario is dealt from a fixed deck order (``scenario_helpers.make_deck``); each test
name carries the rule id it pins down (``G-uno`` -> ``test_g_uno_...``).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from scenario_helpers import (
    PREFIX,
    PREFIX_DRAWS,
    RUN3,
    SEAT0,
    act,
    card_value,
    color,
    discard,
    drain,
    hand,
    hand_total,
    legal,
    make_deck,
    new_env,
    obs,
    phase,
    pile,
    quick_win_env,
    three_player_env,
    top,
    two_card_env,
)

from uno_env import raw_env
from uno_env.variants import find_variant

# Every test runs on the Python engine and again on the batch engine (tests/batch_mirror.py).
pytestmark = pytest.mark.usefixtures("engine")

# --- G-seats, G-dealer, G-deal --------------------------------------------------------------

def test_g_seats_clockwise_increasing_index() -> None:
    hands = {1: ["red-1"] * 2, 2: ["red-2"] * 2, 3: ["red-3"] * 2, 0: ["red-6"] * 2}
    env = new_env(4, 0, hands=hands, first="red-5")
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert env.engine.direction == 1
    order = []
    for card in ["red-1", "red-2", "red-3", "red-6", "red-1"]:
        order.append(env.engine.current)
        assert env.agent_selection == f"player_{env.engine.current}"
        act(env, f"play {card}")
    assert order == [1, 2, 3, 0, 1]


def test_g_dealer_drawn_from_seed() -> None:
    deck = make_deck("classic", 4, 0)
    env = raw_env("classic", 4)
    seen = set()
    for seed in range(40):
        env.reset(seed=seed, options={"deck": deck})
        d = env.engine.dealer
        seen.add(d)
        assert env.engine.current == (d + 1) % 4  # the first discard is a number card
        env.reset(seed=seed, options={"deck": deck})
        assert env.engine.dealer == d
    assert seen == {0, 1, 2, 3}


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_g_dealer_left_of_dealer_plays_first(dealer: int) -> None:
    env = new_env(3, dealer, first="red-5")
    assert env.engine.dealer == dealer
    assert env.engine.current == (dealer + 1) % 3


def test_g_dealer_passes_left_in_match() -> None:
    env = quick_win_env(episode="match", target_score=500)
    g = env.engine
    assert len(g.round_results) == 1 and g.round_results[0]["winner"] == 1
    assert not g.is_over and not any(env.terminations.values())
    assert g.dealer == 1  # the deal passed from seat 0 to seat 1
    assert sum(g.hand_len) + len(g.draw_pile) + len(g.discard) == 108
    assert g.scores == [0, 37]


def test_g_deal_order() -> None:
    names = list(find_variant("classic").card_names)
    random.Random(7).shuffle(names)
    n, dealer = 3, 2
    number = next(i for i, c in enumerate(names) if i > 7 * n and c[-1].isdigit())
    names[7 * n], names[number] = names[number], names[7 * n]
    env = raw_env("classic", n)
    env.reset(seed=0, options={"deck": names, "dealer": dealer})
    for seat in range(n):
        dealt = [names[i] for i in range(7 * n) if (dealer + 1 + i) % n == seat]
        assert hand(env, seat) == sorted(dealt)
    assert hand(env, 0) == sorted(names[0:21:3])  # one at a time, starting left of the dealer
    assert discard(env) == [names[7 * n]]
    assert pile(env) == names[7 * n + 1:]


def test_g_deal_shuffle_from_seed() -> None:
    env = raw_env("classic", 2)
    deals = []
    for seed in (0, 0, 1):
        env.reset(seed=seed)
        g = env.engine
        ids = [c for h in g.hands for c in h] + g.draw_pile + g.discard
        assert sorted(ids) == list(range(108))
        deals.append((hand(env, 0), hand(env, 1), pile(env)))
    assert deals[0] == deals[1]
    assert deals[0] != deals[2]


# --- G-match ---------------------------------------------------------------------------------

def test_g_match_color_number_wild() -> None:
    seat1 = ["red-9", "blue-5", "green-7", "wild", "wild-draw-four", "yellow-skip",
             "blue-reverse"]
    env = new_env(2, 0, hands={1: seat1, 0: SEAT0}, first="red-5")
    assert legal(env) == {"play red-9", "play blue-5", "play wild", "play wild-draw-four",
                          "draw"}


def test_g_match_symbol() -> None:
    mine = ["yellow-skip", "green-2", "yellow-2", "red-draw-two", "blue-reverse", "wild",
            "yellow-9"]
    # green-skip turned up: seat 1 is skipped and the dealer (seat 0) plays on it
    env = new_env(2, 0, hands={1: SEAT0, 0: mine}, first="green-skip")
    assert env.engine.current == 0
    assert legal(env) == {"play yellow-skip", "play green-2", "play wild", "draw"}


def test_g_match_active_color_after_wild() -> None:
    seat1 = ["wild", "red-9", "red-8", "red-7", "red-6", "red-4", "red-3"]
    seat0 = ["blue-3", "red-3", "yellow-5", "green-1", "green-2", "yellow-8", "yellow-9"]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5")
    act(env, "play wild")
    act(env, "color blue")
    assert env.engine.current == 0 and color(env) == "blue"
    # red-3 matched red-5's colour before, but the active colour is now blue
    assert legal(env) == {"play blue-3", "draw"}


# --- G-wild-color ----------------------------------------------------------------------------

def test_g_wild_color_no_active_colour_while_choosing() -> None:
    """While the colour is being chosen neither the snapshot nor any observation shows the
    colour that was active before the wild."""
    env = new_env(2, 0, hands={1: ["wild", "red-9"], 0: SEAT0}, first="red-5")
    assert color(env) == "red"
    act(env, "play wild")
    assert phase(env) == "color" and color(env) is None
    assert env.snapshot()["active_color"] is None
    for seat in (0, 1):
        assert not obs(env, seat)["active_color"].any()
    act(env, "color green")
    assert color(env) == "green" and list(obs(env, 0)["active_color"]) == [0, 0, 1, 0]


# --- G-draw, G-draw-then-play -------------------------------------------------------------

def test_g_draw_allowed_with_playable_card() -> None:
    env = new_env(2, 0, hands={1: ["red-9"], 0: SEAT0}, first="red-5", draw=["blue-9"])
    assert "play red-9" in legal(env) and "draw" in legal(env)
    act(env, "draw")
    assert len(hand(env, 1)) == 8 and "blue-9" in hand(env, 1)


def test_g_draw_then_play_drawn_card() -> None:
    seat1 = ["red-9", "green-1", "green-2", "green-3", "green-4", "green-6", "green-7"]
    seat0 = ["red-8", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6", "blue-7"]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5", draw=["red-2"])
    act(env, "draw")
    assert env.engine.current == 1 and phase(env) == "drawn"
    # only the drawn card may be played (red-9 is playable but was not drawn), or kept
    assert legal(env) == {"play red-2", "pass"}
    act(env, "play red-2")
    assert top(env) == "red-2"
    assert hand(env, 1) == sorted(seat1)
    assert env.engine.current == 0 and phase(env) == "play"


def test_g_draw_then_play_keep() -> None:
    seat0 = ["red-8", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6", "blue-7"]
    env = new_env(2, 0, hands={1: ["red-9"], 0: seat0}, first="red-5", draw=["red-2"])
    act(env, "draw")
    act(env, "pass")
    assert "red-2" in hand(env, 1) and len(hand(env, 1)) == 8
    assert top(env) == "red-5"
    assert env.engine.current == 0 and phase(env) == "play"


def test_g_draw_then_play_unplayable_card_is_kept_and_turn_ends() -> None:
    seat0 = ["red-8", "blue-1", "blue-2", "blue-3", "blue-4", "blue-6", "blue-7"]
    env = new_env(2, 0, hands={1: ["red-9"], 0: seat0}, first="red-5", draw=["green-3"])
    act(env, "draw")  # green-3 cannot be played on red-5: kept automatically
    assert "green-3" in hand(env, 1) and len(hand(env, 1)) == 8
    assert top(env) == "red-5"
    assert env.engine.current == 0 and phase(env) == "play"


def test_g_draw_forced_when_nothing_playable() -> None:
    # seat 1 holds nothing playable: the engine draws for it (and keeps an unplayable card)
    seat1 = ["blue-1", "blue-2", "green-3", "green-4", "yellow-6", "yellow-7", "blue-8"]
    seat0 = ["red-8", "blue-3", "blue-4", "blue-6", "blue-7", "green-1", "green-2"]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5", draw=["green-9"])
    assert env.engine.current == 0
    assert hand(env, 1) == sorted(seat1 + ["green-9"])


# --- G-reshuffle, G-blocked --------------------------------------------------------------------

def test_g_reshuffle() -> None:
    seat1 = ["red-6", "red-1", "red-2", "red-3", "red-4", "red-8", "red-9"]
    seat0 = ["red-7", "red-1", "red-2", "red-3", "red-4", "red-8", "red-9"]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5")
    act(env, "play red-6")
    act(env, "play red-7")
    assert discard(env) == ["red-5", "red-6", "red-7"]
    drain(env)
    g = env.engine
    assert g.draw_pile == [] and phase(env) == "play"
    seat = g.current
    before = len(hand(env, seat))
    act(env, "draw")  # the pile is empty: the discards under red-7 become the new pile
    assert discard(env) == ["red-7"]
    assert len(hand(env, seat)) == before + 1
    drawn = env.game.card_names[g.last_drawn]
    assert sorted([drawn, *pile(env)]) == ["red-5", "red-6"]


def test_g_reshuffle_from_game_rng() -> None:
    results = []
    for _ in range(2):
        seat1 = ["red-6", "red-1", "red-2", "red-3", "red-4", "red-8", "red-9"]
        seat0 = ["red-7", "red-1", "red-2", "red-3", "red-4", "red-8", "red-9"]
        env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5", seed=3)
        for card in ["red-6", "red-7", "red-8", "red-8", "red-9", "red-9"]:
            act(env, f"play {card}")
        drain(env)
        act(env, "draw")
        results.append((pile(env), env.engine.last_drawn))
    assert results[0] == results[1]


def _tie_deck() -> list[str]:
    """Seat 1 and seat 0 end up holding one copy each of every pair (values equal)."""
    names = list(find_variant("classic").card_names)
    names.remove("red-0")
    a: list[str] = []
    b: list[str] = []
    copies: dict[str, int] = {}
    for name in names:
        k = copies.get(name, 0)
        copies[name] = k + 1
        (a if k % 2 == 0 else b).append(name)
    a.remove("blue-0")
    b.append("blue-0")  # zeros are worth nothing: 54 cards for seat 1, 53 for seat 0
    assert len(a) == 54 and len(b) == 53
    assert sum(map(card_value, a)) == sum(map(card_value, b))
    deal = [c for pair in zip(a[:7], b[:7], strict=True) for c in pair]
    rest = [c for pair in zip(a[7:], b[7:] + [""], strict=True) for c in pair if c]
    return deal + ["red-0"] + rest


def test_g_reshuffle_nothing_to_draw_ends_turn() -> None:
    env = raw_env("classic", 2, voluntary_draw=True)
    env.reset(seed=0, options={"deck": _tie_deck(), "dealer": 0})
    drain(env)
    g = env.engine
    assert discard(env) == ["red-0"]  # nothing to reshuffle
    seat = g.current
    before = hand(env, seat)
    act(env, "draw")
    assert hand(env, seat) == before
    assert g.current == 1 - seat and not g.is_over


def test_g_blocked_tie_nobody_scores() -> None:
    env = raw_env("classic", 2, voluntary_draw=True)
    env.reset(seed=0, options={"deck": _tie_deck(), "dealer": 0})
    drain(env)
    assert len(hand(env, 1)) == 54 and len(hand(env, 0)) == 53
    act(env, "draw")
    act(env, "draw")
    g = env.engine
    assert g.is_over and all(env.terminations.values())
    r = g.round_results[-1]
    assert r["blocked"] and r["winner"] == -1
    assert r["hand_values"][0] == r["hand_values"][1] == hand_total(env, 0)
    assert g.scores == [0, 0] and r["points"] == [0, 0]
    assert g.winners() == []
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_g_blocked_lowest_hand_wins() -> None:
    heavy = ["wild"] * 4 + ["wild-draw-four"] * 3
    env = new_env(2, 0, hands={0: heavy}, first="red-0")
    drain(env)
    while not env.engine.is_over:  # nobody can draw any more: everyone passes once
        act(env, "draw")
    g = env.engine
    r = g.round_results[-1]
    v0, v1 = hand_total(env, 0), hand_total(env, 1)
    assert r["blocked"] and r["hand_values"] == [v0, v1]
    assert v1 < v0
    assert r["winner"] == 1 and g.winners() == [1]
    assert g.scores == [0, v0]  # scores as if seat 1 had gone out
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_g_blocked_needs_every_player_to_pass() -> None:
    env = raw_env("classic", 3, voluntary_draw=True)
    env.reset(seed=0, options={"deck": make_deck("classic", 3, 0, first="red-0"),
                               "dealer": 0})
    drain(env)
    act(env, "draw")
    act(env, "draw")
    assert not env.engine.is_over  # two of three passed
    act(env, "draw")
    assert env.engine.is_over and env.engine.round_results[-1]["blocked"]


# --- G-two-players ------------------------------------------------------------------------------

def test_g_two_players_reverse_acts_as_skip() -> None:
    env = new_env(2, 0, hands={1: ["red-reverse", "red-9"], 0: SEAT0}, first="red-5")
    act(env, "play red-reverse")
    assert env.engine.current == 1 and phase(env) == "play"
    assert top(env) == "red-reverse"
    assert env.engine.direction == -1
    assert hand(env, 0) == sorted(SEAT0)


# --- G-wild-color ------------------------------------------------------------------------------

def test_g_wild_color_chosen_by_player() -> None:
    env = new_env(2, 0, hands={1: ["wild", "red-9"], 0: SEAT0}, first="red-5")
    act(env, "play wild")
    assert env.engine.current == 1 and phase(env) == "color"
    assert legal(env) == {"color red", "color yellow", "color green", "color blue"}
    act(env, "color green")
    assert color(env) == "green"
    assert env.engine.current == 0


def test_g_wild_color_before_draw_effect() -> None:
    env = new_env(2, 0, hands={1: ["wild-draw-four", "red-9"], 0: SEAT0}, first="red-5",
                  draw=["yellow-1", "yellow-2", "yellow-3", "yellow-4"])
    act(env, "play wild-draw-four")
    assert phase(env) == "color" and env.engine.current == 1
    assert hand(env, 0) == sorted(SEAT0)  # nothing drawn before the colour is chosen
    act(env, "color blue")
    assert color(env) == "blue"
    assert env.engine.current == 0 and phase(env) == "challenge"


# --- G-uno --------------------------------------------------------------------------------------

def test_g_uno_offered_with_two_cards_and_a_play() -> None:
    env = two_card_env(["red-9", "blue-1"])
    assert legal(env) == {"play red-9", "uno", "draw"}
    assert "uno" in env.action_meanings


def test_g_uno_not_offered_with_three_cards() -> None:
    env = new_env(2, 0, hands={1: PREFIX[:4] + ["red-9", "red-8", "blue-1"], 0: SEAT0},
                  first="red-5")
    for card in PREFIX[:4]:
        act(env, f"play {card}")
    assert len(hand(env, 1)) == 3
    assert "uno" not in legal(env)


def test_g_uno_call_then_play_no_penalty() -> None:
    env = two_card_env(["red-9", "blue-1"], draw=["yellow-1", "yellow-2"])
    act(env, "uno")
    g = env.engine
    assert g.uno_called[1] and g.current == 1 and phase(env) == "play"
    assert "uno" not in legal(env)
    assert obs(env, 0)["opp_uno"][0] == 1  # the call is public
    act(env, "play red-9")
    assert hand(env, 1) == ["blue-1"]
    assert g.current == 0 and pile(env)[:2] == ["yellow-1", "yellow-2"]


def test_g_uno_caught_auto() -> None:
    env = two_card_env(["red-9", "blue-1"], draw=["yellow-1", "yellow-2"])
    act(env, "play red-9")  # no call: an opponent always notices
    assert hand(env, 1) == ["blue-1", "yellow-1", "yellow-2"]
    assert env.engine.current == 0 and phase(env) == "play"


def test_g_uno_order_catch_before_effect() -> None:
    # the penalty is drawn before the Draw Two's victim draws
    env = two_card_env(["red-draw-two", "red-8"],
                       draw=["yellow-1", "yellow-2", "yellow-3", "yellow-4"])
    act(env, "play red-draw-two")
    assert env.engine.current == 1 and phase(env) == "play"
    assert hand(env, 1) == ["red-8", "yellow-1", "yellow-2"]
    assert hand(env, 0) == sorted(SEAT0 + PREFIX_DRAWS + ["yellow-3", "yellow-4"])


def test_g_uno_order_color_before_catch() -> None:
    env = two_card_env(["wild", "blue-1"], draw=["yellow-1", "yellow-2"])
    act(env, "play wild")
    assert phase(env) == "color" and hand(env, 1) == ["blue-1"]  # not caught yet
    act(env, "color green")
    assert hand(env, 1) == ["blue-1", "yellow-1", "yellow-2"]
    assert color(env) == "green" and env.engine.current == 0


def test_g_uno_order_wild_draw_four_color_catch_then_challenge() -> None:
    env = two_card_env(["wild-draw-four", "blue-1"],
                       draw=["yellow-1", "yellow-2", "yellow-3", "yellow-4"])
    act(env, "play wild-draw-four")
    assert phase(env) == "color" and hand(env, 1) == ["blue-1"]
    act(env, "color green")
    # caught (penalty drawn) before the victim's challenge decision
    assert hand(env, 1) == ["blue-1", "yellow-1", "yellow-2"]
    assert env.engine.current == 0 and phase(env) == "challenge"


def test_g_uno_call_lapses_when_hand_grows() -> None:
    env = two_card_env(["red-9", "blue-1"], draw=["green-9"])
    act(env, "uno")
    act(env, "draw")  # green-9 is not playable on red: kept, turn over
    assert not env.engine.uno_called[1]
    assert len(hand(env, 1)) == 3


def test_g_uno_call_stays_after_going_to_one_card() -> None:
    env = two_card_env(["red-9", "blue-1"])
    act(env, "uno")
    act(env, "play red-9")
    assert env.engine.uno_called[1]


def test_g_uno_offered_after_drawing_to_two_cards() -> None:
    # one card left (called); nothing playable, so the engine draws red-1 for seat 1: two
    # cards and a playable drawn card -> UNO is offered again beside play and keep
    env = two_card_env(["red-draw-two", "blue-1"], draw=["yellow-3", "yellow-4", "red-1"])
    act(env, "uno")
    act(env, "play red-draw-two")
    assert env.engine.current == 1 and phase(env) == "drawn"
    assert hand(env, 1) == ["blue-1", "red-1"]
    assert not env.engine.uno_called[1]  # the hand grew: the old call lapsed
    assert legal(env) == {"play red-1", "uno", "pass"}


def test_g_uno_catch_decision() -> None:
    env = two_card_env(["red-9", "blue-1"], draw=["yellow-1", "yellow-2"],
                       uno_catch="decision")
    act(env, "play red-9")
    assert env.engine.current == 0 and phase(env) == "catch"
    assert legal(env) == {"catch", "pass"}
    assert list(obs(env, 0)["catch_target"]) == [1.0]
    act(env, "catch")
    assert hand(env, 1) == ["blue-1", "yellow-1", "yellow-2"]
    assert env.engine.current == 0 and phase(env) == "play"


def test_g_uno_catch_decision_pass_no_penalty() -> None:
    env = two_card_env(["red-9", "blue-1"], uno_catch="decision")
    act(env, "play red-9")
    act(env, "pass")
    assert hand(env, 1) == ["blue-1"]
    # the next player's turn has started: no catch any more
    assert env.engine.current == 0 and phase(env) == "play"
    assert "catch" not in legal(env)


def test_g_uno_catch_decision_in_turn_order() -> None:
    env = three_player_env(uno_catch="decision")
    for card in RUN3[:5]:
        assert env.engine.current == 1
        act(env, f"play {card}")
    assert hand(env, 1) == ["red-3", "red-4"]
    top_two = pile(env)[:2]
    act(env, "play red-4")  # no call
    assert env.engine.current == 2 and phase(env) == "catch"  # the next player first
    assert list(obs(env, 2)["catch_target"]) == [0.0, 1.0]  # seat 1 is two seats on
    act(env, "pass")
    assert env.engine.current == 0 and phase(env) == "catch"
    assert hand(env, 1) == ["red-3"]
    act(env, "catch")
    assert hand(env, 1) == sorted(["red-3", *top_two])


def test_g_uno_catch_decision_all_pass() -> None:
    env = three_player_env(uno_catch="decision")
    for card in RUN3[:5]:
        act(env, f"play {card}")
    act(env, "play red-4")
    act(env, "pass")
    act(env, "pass")
    assert hand(env, 1) == ["red-3"]
    assert env.engine.current == 1  # seats 2 and 0 had to draw; no penalty ever applies now


def test_g_uno_off_no_rule() -> None:
    env = two_card_env(["red-9", "blue-1"], uno_catch="off")
    assert "uno" not in env.action_meanings and "catch" not in env.action_meanings
    act(env, "play red-9")
    assert hand(env, 1) == ["blue-1"]


# --- G-win-round, G-score -------------------------------------------------------------------

def test_g_win_round_ends_when_hand_empty() -> None:
    env = quick_win_env()
    g = env.engine
    assert g.is_over and g.hand_len[1] == 0
    assert all(env.terminations.values())
    assert g.winners() == [1]
    assert g.legal == []


def test_g_win_round_draw_two_last_card() -> None:
    env = quick_win_env(last="green-draw-two",
                        draw=["yellow-1", "yellow-2", "yellow-8", "yellow-9"])
    g = env.engine
    assert g.is_over and g.winners() == [1]
    # the last Draw Two still made seat 0 draw, and those cards count
    assert hand(env, 0) == sorted(SEAT0 + PREFIX_DRAWS + ["yellow-1", "yellow-2", "yellow-8",
                                                         "yellow-9"])
    assert g.scores[1] == 31 + 3 + 3 + 17 == hand_total(env, 0)


def test_g_score_winner_scores_other_hands() -> None:
    env = three_player_env()
    for card in RUN3[:5]:
        act(env, f"play {card}")
    act(env, "uno")
    act(env, "play red-3")
    act(env, "play red-4")
    g = env.engine
    assert g.is_over and g.winners() == [1]
    expected = hand_total(env, 2) + hand_total(env, 0)
    assert g.round_results[-1]["points"] == [0, expected, 0]
    assert g.scores == [0, expected, 0]
    assert obs(env, 1)["own_score"][0] == expected
    assert list(obs(env, 0)["opp_score"]) == [expected, 0]


def test_g_score_quick_win_value() -> None:
    env = quick_win_env()
    # SEAT0 (31) + green-1, green-2 + yellow-1, yellow-2
    assert env.engine.scores == [0, 37]


def test_g_score_match_ends_at_target() -> None:
    env = quick_win_env(episode="match", target_score=37)
    assert env.engine.is_over and env.engine.winners() == [1]
    env = quick_win_env(episode="match", target_score=38)
    assert not env.engine.is_over and env.engine.scores == [0, 37]


def test_g_score_match_accumulates_rounds() -> None:
    env = quick_win_env(episode="match", target_score=100_000)
    g = env.engine
    first = list(g.scores)
    # round 2 from the seeded shuffle, greedy: call UNO, else play, else accept (short games)
    rank = {"uno": 0, "accept": 2, "draw": 3, "pass": 3, "challenge": 3}
    for _ in range(5000):
        if len(g.round_results) == 2:
            break
        env.step(min(g.legal, key=lambda a: rank.get(env.action_meanings[a], 1)))
    assert len(g.round_results) == 2
    r = g.round_results[1]
    assert g.scores == [first[s] + r["points"][s] for s in range(2)]
    assert g.dealer == 0  # passed left twice with two players


# --- G-wd-challenge -----------------------------------------------------------------------

HONEST = ["wild-draw-four", "blue-5", "green-2", "yellow-3", "blue-7", "green-8", "yellow-9"]
BLUFF = ["wild-draw-four", "red-9", "green-2", "yellow-3", "blue-7", "green-8", "yellow-9"]
WD_DRAW = ["yellow-1", "yellow-2", "yellow-4", "yellow-6", "yellow-7", "yellow-8"]
SEAT0_WD = ["blue-1", "blue-2", "green-3", "green-4", "yellow-6", "red-7", "blue-8"]


def test_g_wd_challenge_bluff_is_legal() -> None:
    env = new_env(2, 0, hands={1: BLUFF, 0: SEAT0_WD}, first="red-5")
    assert "play wild-draw-four" in legal(env) and "play red-9" in legal(env)


def test_g_wd_challenge_accept() -> None:
    env = new_env(2, 0, hands={1: HONEST, 0: SEAT0_WD}, first="red-5", draw=WD_DRAW)
    act(env, "play wild-draw-four")
    act(env, "color green")
    assert env.engine.current == 0 and legal(env) == {"challenge", "accept"}
    act(env, "accept")
    assert hand(env, 0) == sorted(SEAT0_WD + WD_DRAW[:4])
    assert env.engine.current == 1 and color(env) == "green"
    assert obs(env, 0)["revealed"].sum() == 0  # accepting reveals nothing


def test_g_wd_challenge_honest() -> None:
    env = new_env(2, 0, hands={1: HONEST, 0: SEAT0_WD}, first="red-5", draw=WD_DRAW)
    act(env, "play wild-draw-four")  # honest: no red card (blue-5 matches only by number)
    act(env, "color green")
    act(env, "challenge")
    assert hand(env, 0) == sorted(SEAT0_WD + WD_DRAW[:6])  # penalty plus 2
    assert hand(env, 1) == sorted(HONEST[1:])
    assert env.engine.current == 1 and phase(env) == "play"  # the challenger lost the turn
    assert color(env) == "green"


def test_g_wd_challenge_bluff() -> None:
    env = new_env(2, 0, hands={1: BLUFF, 0: SEAT0_WD}, first="red-5", draw=WD_DRAW)
    act(env, "play wild-draw-four")  # a bluff: seat 1 holds red-9 and red was active
    act(env, "color blue")
    act(env, "challenge")
    assert hand(env, 1) == sorted(BLUFF[1:] + WD_DRAW[:4])  # the bluffer draws the penalty
    assert hand(env, 0) == sorted(SEAT0_WD)
    assert env.engine.current == 0 and phase(env) == "play"  # challenger plays normally
    assert color(env) == "blue"  # the chosen colour stands
    assert legal(env) == {"play blue-1", "play blue-2", "play blue-8", "draw"}


def test_g_wd_challenge_honesty_uses_active_color() -> None:
    # a wild set blue; seat 1 still holds red cards (red-5 was turned up) but no blue card,
    # so its Wild Draw Four is honest
    seat1 = ["wild", "wild-draw-four", "red-9", "red-8", "green-2", "yellow-3", "green-8"]
    seat0 = ["blue-1", "blue-2", "green-3", "green-4", "yellow-6", "yellow-7", "blue-8"]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5",
                  draw=["yellow-5", *WD_DRAW])
    act(env, "play wild")
    act(env, "color blue")
    act(env, "draw")  # seat 0 keeps yellow-5 (not playable on blue)
    assert env.engine.current == 1 and top(env) == "wild" and color(env) == "blue"
    act(env, "play wild-draw-four")
    act(env, "color green")
    act(env, "challenge")
    assert len(hand(env, 0)) == 8 + 6 and len(hand(env, 1)) == 5
    assert env.engine.current == 1


def test_g_wd_challenge_reveals_hand_to_challenger_only() -> None:
    seat1 = HONEST
    seat2 = ["blue-1", "blue-2", "green-3", "green-4", "yellow-6", "red-7", "blue-8"]
    seat0 = ["red-1", "red-2", "green-6", "green-7", "yellow-1", "red-3", "blue-9"]
    env = new_env(3, 0, hands={1: seat1, 2: seat2, 0: seat0}, first="red-5", draw=WD_DRAW)
    act(env, "play wild-draw-four")
    act(env, "color green")
    assert env.engine.current == 2
    act(env, "challenge")
    shown = obs(env, 2)
    names = env.layout.face_names
    revealed = {names[f]: int(k) for f, k in enumerate(shown["revealed"]) if k}
    assert revealed == {c: 1 for c in HONEST[1:]}
    assert list(shown["revealed_from"]) == [0.0, 1.0]  # seat 1 is two seats after seat 2
    for seat in (0, 1):
        assert obs(env, seat)["revealed"].sum() == 0
        assert obs(env, seat)["revealed_from"].sum() == 0
    assert env.engine.current == 0  # seat 2 lost its turn


# --- G-hidden ------------------------------------------------------------------------------------

def _obs_vec(env: raw_env, seat: int) -> np.ndarray:
    return np.asarray(env.observe(env.possible_agents[seat])["observation"])


def test_g_hidden_opponent_hand_not_observed() -> None:
    # both hands can answer red-6, so seat 0 is asked in both deals (no forced draw)
    x = ["red-7", "blue-1", "blue-2", "green-3", "green-4", "yellow-6", "blue-8"]
    y = ["wild", "wild-draw-four", "red-9", "green-skip", "yellow-0", "blue-7", "red-8"]
    seat1 = ["red-6", "red-1", "green-1", "green-2", "yellow-2", "yellow-3", "blue-3"]
    envs = [new_env(2, 0, hands={1: seat1, 0: mine}, first="red-5", bottom=other)
            for mine, other in ((x, y), (y, x))]
    assert hand(envs[0], 0) != hand(envs[1], 0)
    assert not np.array_equal(envs[0].state(), envs[1].state())
    assert np.array_equal(_obs_vec(envs[0], 1), _obs_vec(envs[1], 1))
    for env in envs:
        act(env, "play red-6")
        assert env.engine.current == 0
    assert np.array_equal(_obs_vec(envs[0], 1), _obs_vec(envs[1], 1))


def test_g_hidden_draw_pile_order_not_observed() -> None:
    seat1 = ["red-6", "red-1", "green-1", "green-2", "yellow-2", "yellow-3", "blue-3"]
    a = new_env(2, 0, hands={1: seat1, 0: SEAT0}, first="red-5", draw=["wild", "blue-9"])
    b = new_env(2, 0, hands={1: seat1, 0: SEAT0}, first="red-5", draw=["blue-9", "wild"])
    assert pile(a) != pile(b)
    for seat in (0, 1):
        assert np.array_equal(_obs_vec(a, seat), _obs_vec(b, seat))


def test_g_hidden_observation_holds_own_hand_and_public_facts() -> None:
    env = new_env(2, 0, hands={1: ["red-6", "red-6", "wild"], 0: SEAT0}, first="red-5")
    o = obs(env, 1)
    names = env.layout.face_names
    mine = {names[f]: int(k) for f, k in enumerate(o["hand"]) if k}
    assert sum(mine.values()) == 7 and mine["red-6"] == 2 and mine["wild"] == 1
    assert names[int(np.argmax(o["top"]))] == "red-5"
    assert list(o["opp_hand_size"]) == [7.0]
    assert o["draw_pile"][0] == 108 - 15


def test_g_uno_call_stays_until_hand_grows() -> None:
    # RULES G-uno: the call "stays made until their hand grows again". Seat 1 calls with three
    # cards (a double play was possible), plays one card, and later goes to one card without
    # calling again: it was never caught, because its call still stood.
    env = new_env(2, 0, hands={1: PREFIX[:4] + ["red-7", "red-7", "blue-1"], 0: SEAT0},
                  first="red-5", double_play=True)
    for card in PREFIX[:4]:
        act(env, f"play {card}")
    assert "play-two red-7" in legal(env) and "uno" in legal(env)
    act(env, "uno")
    act(env, "play red-7")
    assert hand(env, 1) == ["blue-1", "red-7"]
    assert env.engine.uno_called[1]
    act(env, "play red-1")  # seat 0
    act(env, "play red-7")  # seat 1: one card left, called earlier
    assert hand(env, 1) == ["blue-1"]


def test_g_wild_color_not_asked_when_going_out() -> None:
    # engine decision: a wild played as the last card ends the round at once; no colour is
    # asked (it could not matter)
    env = quick_win_env(last="wild")
    assert env.engine.is_over and env.engine.winners() == [1]
    assert env.num_steps == len(PREFIX) + 3


def test_g_win_round_wild_draw_four_last_card() -> None:
    # the victim draws 4 (counted for scoring); engine decision: a last card is not
    # challengeable, the round is over once the player has no cards
    env = quick_win_env(last="wild-draw-four",
                        draw=["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5",
                              "yellow-6"])
    g = env.engine
    assert g.is_over and g.winners() == [1]
    assert len(hand(env, 0)) == 7 + 2 + 2 + 4
    assert g.scores[1] == hand_total(env, 0) == 31 + 3 + 3 + 18


def test_g_wd_challenge_bluff_three_players() -> None:
    seat2 = ["blue-1", "blue-2", "green-3", "green-4", "yellow-6", "red-7", "blue-8"]
    seat0 = ["red-1", "red-2", "green-6", "green-7", "yellow-1", "red-3", "blue-9"]
    env = new_env(3, 0, hands={1: BLUFF, 2: seat2, 0: seat0}, first="red-5", draw=WD_DRAW)
    act(env, "play wild-draw-four")
    act(env, "color blue")
    act(env, "challenge")  # seat 2 catches the bluff
    assert hand(env, 1) == sorted(BLUFF[1:] + WD_DRAW[:4])
    assert hand(env, 2) == sorted(seat2)
    assert env.engine.current == 2 and phase(env) == "play"  # and plays normally
    assert color(env) == "blue"


def test_g_reshuffle_during_penalty_draw() -> None:
    seat1 = ["red-6", "red-draw-two", "red-1", "red-2", "red-3", "red-4", "red-9"]
    seat0 = ["red-7", "red-draw-two", "red-1", "red-2", "red-3", "red-4", "red-9"]
    env = new_env(2, 0, hands={1: seat1, 0: seat0}, first="red-5")
    act(env, "play red-6")
    act(env, "play red-7")
    g = env.engine
    while len(g.draw_pile) > 1 or phase(env) == "drawn":
        act(env, "pass" if phase(env) == "drawn" else "draw")
    victim = 1 - g.current
    last = pile(env)[0]
    before = hand(env, victim)
    act(env, "play red-draw-two")  # the victim takes the last card, then one reshuffled
    after = hand(env, victim)
    assert len(after) == len(before) + 2 and last in after
    got = list(after)
    for c in before + [last]:
        got.remove(c)
    assert got[0] in ("red-5", "red-6", "red-7")
    assert discard(env) == ["red-draw-two"]
    assert sorted(pile(env) + got) == ["red-5", "red-6", "red-7"]
