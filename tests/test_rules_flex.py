"""Scenario tests for UNO Flex! (docs/games/flex.md), each from a fixed deck order.

A Flex card kind is a whole physical card: ``green-2/yellow-2`` (normal face / flex face),
``red-3*`` (a number card with the Power Card flip symbol), ``wild-all-flip``. The action
``play <kind>`` plays it by its normal face, ``play <kind> flex`` by its flex face, and
``target +k`` picks the victim of a targeted draw (k seats after the player, in the current
direction). Every test name carries the rule id it pins down (``X-power`` ->
``test_x_power_...``).

The scenarios use four seats at most, seat 0 deals, so seat 1 plays first; the seats that do
not act in a scenario hold a card of every colour, so that whenever their turn comes they
have a real choice and are asked (the engine takes forced decisions itself).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from conftest import configs, episode_over, play_policy, player_counts
from scenario_helpers import act, color, discard, hand, legal, new_env, obs, phase, pile, top

from uno_env import raw_env
from uno_env.variants import find_variant

# Every test runs on the Python engine and again on the batch engine (tests/batch_mirror.py).
pytestmark = pytest.mark.usefixtures("engine")

COLORS = ("red", "yellow", "green", "blue")
WILD_KINDS = ("wild/wild-target-draw-two", "wild/wild-all-draw",
              "wild-draw-four/wild-target-draw-four", "wild-all-flip")

# Seat 1 (the actor) gets the scenario's cards topped up from S1_FILL; it holds one red card
# (red-9*) so that it is asked again after a flex Skip / Reverse on red.
S1_FILL = ["red-9*", "yellow-5", "green-5", "blue-6*", "green-9*", "yellow-3*", "blue-9*"]
S2 = ["red-7", "yellow-7", "green-7", "blue-7", "red-8", "yellow-8", "green-8"]
S3 = ["red-4", "yellow-4", "green-4", "blue-4", "blue-8", "red-2", "yellow-2"]
S0 = ["red-1", "yellow-1", "green-1", "blue-1", "green-2", "blue-2", "blue-5"]
# The top of the draw pile, top first: what the victims of draw effects take, in order.
DRAWS = ["green-1/yellow-1", "green-3/yellow-3", "green-4/red-4", "green-7/blue-7",
         "green-8/blue-8", "blue-1/green-1", "blue-2/green-2", "blue-4/yellow-4",
         "blue-7/red-7", "blue-8/red-8"]


def seat1(cards: list[str], fill: list[str] | None = None) -> list[str]:
    """A 7-card hand: ``cards`` topped up from ``fill`` (default S1_FILL)."""
    out = list(cards)
    for c in fill if fill is not None else S1_FILL:
        if len(out) == 7:
            break
        if c not in out:
            out.append(c)
    assert len(out) == 7
    return out


def fx(n: int, s1: list[str], first: str = "red-5", draw: list[str] | None = None,
       s0: list[str] | None = None, s2: list[str] | None = None, s3: list[str] | None = None,
       **options: Any) -> raw_env:
    """A Flex game, seat 0 deals, ``first`` turned up; seat 1 holds ``s1`` (topped up)."""
    hands = {1: seat1(s1), 0: list(S0 if s0 is None else s0)}
    if n >= 3:
        hands[2] = list(S2 if s2 is None else s2)
    if n >= 4:
        hands[3] = list(S3 if s3 is None else s3)
    if n > 4:
        raise ValueError("scenarios use up to four seats")
    return new_env(n, 0, hands=hands, first=first, draw=DRAWS if draw is None else draw,
                   variant="flex", **options)


def power(env: raw_env) -> list[bool]:
    return list(env.engine.power)


def face_index(env: raw_env, kind: str) -> int:
    return env.game.face_names.index(kind)


# --- X-deck ----------------------------------------------------------------------------------

def expected_flex_deck() -> Counter[str]:
    """The deck of docs/games/flex.md (X-deck), written out independently of the engine."""
    steps = {1: -1, 2: -1, 3: -1, 4: 2, 5: 2, 6: 2, 7: 1, 8: 1, 9: 1}
    deck: Counter[str] = Counter()
    for ci, c in enumerate(COLORS):
        for num in range(1, 10):
            deck[f"{c}-{num}/{COLORS[(ci + steps[num]) % 4]}-{num}"] += 1
            deck[f"{c}-{num}*" if num in (3, 6, 9) else f"{c}-{num}"] += 1
        deck[f"{c}-skip"] += 1
        deck[f"{c}-skip/{c}-skip-all"] += 1
        deck[f"{c}-reverse"] += 1
        deck[f"{c}-reverse/{c}-reverse-skip"] += 1
        deck[f"{c}-draw-two"] += 1
        deck[f"{c}-draw-two/{c}-all-draw-one"] += 1
    for w in WILD_KINDS:
        deck[w] += 2
    return deck


def test_x_deck_counts_per_kind() -> None:
    names = find_variant("flex").card_names
    assert len(names) == 104
    want = expected_flex_deck()
    assert sum(want.values()) == 104
    assert Counter(names) == want
    assert sum(n.endswith("*") for n in names) == 12  # the second copies of 3, 6 and 9
    assert sum("/" in n for n in names) == 36 + 12 + 6  # numbers, coloured actions, wilds
    assert "wild" not in names and "wild-draw-four" not in names  # every wild has a flex face
    assert not any(n.endswith("-0") or "-0/" in n for n in names)  # no zeros


def test_x_deck_flex_faces_of_the_rules_examples() -> None:
    names = set(find_variant("flex").card_names)
    for kind in ("green-2/yellow-2", "red-2/blue-2", "red-5/green-5", "blue-8/red-8"):
        assert kind in names


def test_x_deck_action_space() -> None:
    """One ``play <kind>`` per kind, a ``play <kind> flex`` exactly for kinds with a flex face,
    ``target +k`` for every other seat."""
    for n in (2, 3, 4, 8):
        e = raw_env("flex", n)
        meanings = set(e.action_meanings)
        kinds = set(find_variant("flex").card_names)
        assert {m[5:] for m in meanings if m.startswith("play ") and not m.endswith(" flex")} \
            == kinds
        assert {m[5:-5] for m in meanings if m.endswith(" flex")} == {k for k in kinds if "/" in k}
        assert {m for m in meanings if m.startswith("target")} == {
            f"target +{k}" for k in range(1, n)}
        for must in ("draw", "pass", "color red", "color blue", "challenge", "accept", "uno"):
            assert must in meanings
        with pytest.raises(ValueError, match="unknown action"):
            e.action_index("play red-3* flex")


def test_x_deck_dealt_whole() -> None:
    for n in (2, 5, 8):
        e = raw_env("flex", n)
        e.reset(seed=n)
        g = e.engine
        everything = sorted([c for h in g.hands for c in h] + g.draw_pile + g.discard)
        assert everything == list(range(104))


# --- X-players -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(2, 9))
def test_x_players_accepted(n: int) -> None:
    e = raw_env("flex", n)
    e.reset(seed=n)
    g = e.engine
    assert e.possible_agents == [f"player_{i}" for i in range(n)]
    assert e.game.hand_size == 7
    assert min(g.hand_len) == 7 and len(g.hand_len) == n  # the first player may have drawn
    assert sum(g.hand_len) + len(g.draw_pile) + len(g.discard) == 104
    assert power(e) == [True] * n  # every Power Card green side up at the start
    o = obs(e, g.current)
    assert o["own_power"].tolist() == [1] and o["opp_power"].tolist() == [1] * (n - 1)


@pytest.mark.parametrize("n", [0, 1, 9, 10])
def test_x_players_refused(n: int) -> None:
    with pytest.raises(ValueError, match="2-8"):
        raw_env("flex", n)


def test_x_players_eight_hands_of_seven() -> None:
    hands: dict[int, list[str]] = {s: [] for s in range(8)}
    e = new_env(8, 7, hands=hands, first="red-5", variant="flex")
    assert e.engine.hand_len == [7] * 8 and e.engine.current == 0
    assert len(e.engine.draw_pile) == 104 - 56 - 1


# --- X-first-discard -------------------------------------------------------------------------

def test_x_first_discard_number() -> None:
    e = fx(3, ["red-9*"], first="blue-5/yellow-5", draw=[])
    g = e.engine
    assert discard(e) == ["blue-5/yellow-5"] and color(e) == "blue"
    assert g.current == 1 and phase(e) == "play" and g.direction == 1


def test_x_first_discard_actions_ignored_until_a_number() -> None:
    turned = ["red-skip", "blue-draw-two/blue-all-draw-one", "wild-draw-four/wild-target-draw-four",
              "yellow-reverse/yellow-reverse-skip", "wild-all-flip", "red-draw-two",
              "wild/wild-target-draw-two", "green-6*"]
    e = fx(3, ["red-9*"], first=turned[0], draw=turned[1:] + ["blue-8/red-8", "blue-7/red-7"])
    g = e.engine
    assert discard(e) == turned  # the action cards stay in the discard pile, under the number
    assert top(e) == "green-6*" and color(e) == "green"
    assert pile(e)[:2] == ["blue-8/red-8", "blue-7/red-7"]
    # no effect applied: nobody drew or was skipped, no reversal, no colour choice, no flip
    assert g.current == 1 and phase(e) == "play" and g.direction == 1
    assert g.hand_len == [7, 7, 7] and g.pending == 0
    assert power(e) == [True, True, True]


def test_x_first_discard_dealer_and_flex_number() -> None:
    """A Flex number card turned up lies as its normal face; the player left of the dealer
    starts; a flip-symbol card turned up flips no Power Card (nobody played it)."""
    hands = {2: ["green-1", "blue-4"], 0: ["yellow-2"], 1: ["blue-1"]}
    e = new_env(3, 1, hands=hands, first="yellow-reverse", draw=["green-2/yellow-2"],
                variant="flex")
    assert top(e) == "green-2/yellow-2" and color(e) == "green"
    assert e.engine.current == 2 and e.engine.direction == 1
    e = new_env(3, 1, hands=hands, first="red-skip/red-skip-all", draw=["blue-3*"],
                variant="flex")
    assert top(e) == "blue-3*" and color(e) == "blue" and power(e) == [True] * 3


def test_x_first_discard_seeded_deals() -> None:
    """Shuffled deals: the discard pile starts as action cards (if any) under one number."""
    numbers = {f.name for f in find_variant("flex").faces if f.is_number}
    longest = 1
    for n in (2, 3, 4, 8):
        e = raw_env("flex", n)
        for seed in range(25):
            e.reset(seed=seed)
            names = discard(e)  # nobody has played yet (no play is ever forced)
            assert names[-1] in numbers
            assert all(x not in numbers for x in names[:-1])
            assert power(e) == [True] * n and e.engine.direction == 1
            longest = max(longest, len(names))
    assert longest > 1, "no shuffled deal turned an action card first"


# --- X-flex-play -----------------------------------------------------------------------------

@pytest.mark.parametrize("uno_catch", ["auto", "decision", "off"])
def test_x_flex_play_only_the_flex_face_matches(uno_catch: str) -> None:
    """Top yellow-8: seat 1's only playable card is green-2/yellow-2 by its flex face."""
    s1 = ["green-2/yellow-2", "red-4/green-4", "blue-9/red-9", "green-5", "red-1", "blue-4",
          "green-1"]
    s0 = ["yellow-7", "green-8", "red-2", "blue-1", "blue-5", "red-5", "yellow-4/blue-4"]
    e = fx(2, s1, first="yellow-8", s0=s0, uno_catch=uno_catch)
    assert e.engine.current == 1
    assert legal(e) == {"play green-2/yellow-2 flex", "draw"}


def test_x_flex_play_card_lies_as_its_normal_face() -> None:
    """After green-2/yellow-2 is played as a yellow 2, the next player matches green 2."""
    s1 = ["green-2/yellow-2", "red-4/green-4", "blue-9/red-9", "green-5", "red-1", "blue-4",
          "green-1"]
    s0 = ["yellow-7", "green-8", "red-2", "blue-1", "blue-5", "red-5", "yellow-4/blue-4"]
    e = fx(2, s1, first="yellow-8", s0=s0)
    act(e, "play green-2/yellow-2 flex")
    assert top(e) == "green-2/yellow-2" and e.engine.current == 0
    assert power(e) == [True, False]
    o = obs(e, 0)
    assert o["top"][face_index(e, "green-2/yellow-2")] == 1 and o["top"].sum() == 1
    assert color(e) == "green", "the card lies as its normal face: green 2"
    assert o["active_color"].tolist() == [0, 0, 1, 0]
    assert legal(e) == {"play green-8", "play red-2", "draw"}


def test_x_flex_play_mask_per_face() -> None:
    """Normal and flex faces are judged apart: each by its own colour, number or symbol."""
    s1 = ["green-2/yellow-2", "yellow-1/red-1", "red-4/green-4", "blue-skip/blue-skip-all",
          "red-skip/red-skip-all", "wild/wild-all-draw", "blue-9*"]
    e = fx(2, s1, first="red-2")
    assert legal(e) == {
        "play green-2/yellow-2", "play green-2/yellow-2 flex",  # both by the number 2
        "play yellow-1/red-1 flex",  # only the flex face is red
        "play red-4/green-4",  # only the normal face is red
        "play red-skip/red-skip-all", "play red-skip/red-skip-all flex",
        "play wild/wild-all-draw", "play wild/wild-all-draw flex",
        "draw",
    }
    mask = e.observe("player_1")["action_mask"]
    assert mask[e.action_index("play blue-skip/blue-skip-all flex")] == 0
    assert mask[e.action_index("play yellow-1/red-1")] == 0
    assert mask[e.action_index("play yellow-1/red-1 flex")] == 1


def test_x_flex_play_needs_a_green_power_card() -> None:
    s1 = ["green-2/yellow-2", "yellow-1/red-1", "red-4/green-4", "blue-skip/blue-skip-all",
          "red-skip/red-skip-all", "wild/wild-all-draw", "blue-9*"]
    e = fx(2, s1, first="red-2")
    act(e, "play red-skip/red-skip-all flex")  # two players: the same player plays again
    assert e.engine.current == 1 and power(e) == [True, False]
    # top red-skip, red: yellow-1/red-1 and the wild would match by their flex faces
    assert legal(e) == {"play red-4/green-4", "play blue-skip/blue-skip-all",
                        "play wild/wild-all-draw", "draw"}
    assert not any(m.endswith(" flex") for m in legal(e))


def test_x_flex_play_skip_all_face_does_not_match_a_skip() -> None:
    s1 = ["blue-skip", "red-skip/red-skip-all", "yellow-reverse/yellow-reverse-skip", "red-1",
          "green-2", "yellow-4", "green-7"]
    e = fx(2, s1, first="blue-5", s0=["red-2", "yellow-1", "green-1", "blue-1", "green-4",
                                      "blue-2", "yellow-2"])
    act(e, "play blue-skip")  # two players: plays again, top blue-skip
    assert e.engine.current == 1 and top(e) == "blue-skip" and power(e) == [True, True]
    assert legal(e) == {"play red-skip/red-skip-all", "draw"}


def test_x_flex_play_applies_the_flex_effect_not_the_normal_one() -> None:
    """red-draw-two/red-all-draw-one by its flex face: the next player draws 1, not 2, and is
    not skipped; by its normal face: draws 2 and is skipped."""
    e = fx(3, ["red-draw-two/red-all-draw-one"])
    act(e, "play red-draw-two/red-all-draw-one flex")
    assert e.engine.hand_len == [8, 6, 8] and e.engine.current == 2
    e = fx(3, ["red-draw-two/red-all-draw-one"])
    act(e, "play red-draw-two/red-all-draw-one")
    assert e.engine.hand_len == [7, 6, 9] and e.engine.current == 0
    assert power(e) == [True, True, True]


# --- X-power ---------------------------------------------------------------------------------

def test_x_power_red_after_a_flex_play_public() -> None:
    e = fx(4, ["green-5/red-5"])
    act(e, "play green-5/red-5 flex")
    assert power(e) == [True, False, True, True]
    assert obs(e, 1)["own_power"].tolist() == [0]
    assert obs(e, 1)["opp_power"].tolist() == [1, 1, 1]
    assert obs(e, 2)["own_power"].tolist() == [1]
    assert obs(e, 2)["opp_power"].tolist() == [1, 1, 0]  # seats 3, 0, 1
    assert obs(e, 0)["opp_power"].tolist() == [0, 1, 1]  # seats 1, 2, 3
    snap = e.snapshot()
    assert snap["power_green"] == [True, False, True, True]


def test_x_power_normal_plays_keep_it() -> None:
    e = fx(2, ["red-4/green-4", "wild-draw-four/wild-target-draw-four"])
    act(e, "play red-4/green-4")
    assert power(e) == [True, True]


def test_x_power_flip_symbol_both_ways() -> None:
    e = fx(2, ["red-3*", "red-6*"])
    act(e, "play red-3*")  # compulsory: green -> red, no decision asked
    assert power(e) == [True, False] and e.engine.current == 0 and phase(e) == "play"
    act(e, "play red-1")
    act(e, "play red-6*")  # red -> green
    assert power(e) == [True, True]


def test_x_power_flip_symbol_after_flex_play() -> None:
    e = fx(2, ["red-skip/red-skip-all", "red-9*"])
    act(e, "play red-skip/red-skip-all flex")
    assert power(e) == [True, False] and e.engine.current == 1
    act(e, "play red-9*")
    assert power(e) == [True, True]


def test_x_power_all_red_reset_by_flex_plays() -> None:
    """Three players turn red one after another; the last one turns everyone green."""
    e = fx(3, ["green-5/red-5"], s2=["yellow-5/blue-5"] + S2[:6],
           s0=["red-5/green-5"] + S0[:6])
    act(e, "play green-5/red-5 flex")
    assert power(e) == [True, False, True]
    act(e, "play yellow-5/blue-5 flex")  # matches by the number 5
    assert power(e) == [True, False, False]
    assert e.engine.current == 0
    act(e, "play red-5/green-5 flex")
    assert power(e) == [True, True, True]
    assert obs(e, 1)["own_power"].tolist() == [1]


def test_x_power_all_red_reset_by_flip_symbol() -> None:
    e = fx(2, ["red-skip/red-skip-all", "red-4"], s0=["red-6*"] + S0[1:])
    act(e, "play red-skip/red-skip-all flex")
    act(e, "play red-4")
    assert power(e) == [True, False] and e.engine.current == 0
    act(e, "play red-6*")  # seat 0 green -> red: all red, all turn green
    assert power(e) == [True, True]


def test_x_power_wild_all_flip_flips_everyone() -> None:
    e = fx(3, ["green-5/red-5"], s2=["wild-all-flip"] + S2[:6])
    act(e, "play green-5/red-5 flex")
    assert power(e) == [True, False, True]
    act(e, "play wild-all-flip")
    assert phase(e) == "color" and e.engine.current == 2  # a wild: choose the colour
    act(e, "color blue")
    assert power(e) == [False, True, False]
    assert color(e) == "blue" and e.engine.current == 0 and phase(e) == "play"


def test_x_power_wild_all_flip_when_all_green() -> None:
    """Every card flips to red, so all are red: all turn green at once (engine decision:
    the reset applies after the flip, so a Wild All Flip with all green changes nothing)."""
    e = fx(2, ["wild-all-flip"])
    act(e, "play wild-all-flip")
    act(e, "color green")
    assert power(e) == [True, True] and e.engine.current == 0


def test_x_power_green_at_every_deal() -> None:
    e = score_env(episode="match")
    g = e.engine
    assert len(g.round_results) == 1 and g.round_results[0]["winner"] == 1
    assert g.dealer == 1 and not g.is_over
    assert power(e) == [True, True]  # seat 1 was red when the round ended


# --- X-drawn-only ----------------------------------------------------------------------------

def test_x_drawn_only_by_flex_face() -> None:
    e = fx(2, ["red-9*"], draw=["blue-7/red-7"])
    assert "play red-9*" in legal(e)
    act(e, "draw")
    assert phase(e) == "drawn"
    assert legal(e) == {"play blue-7/red-7 flex", "pass"}  # not red-9*, which matches too
    act(e, "play blue-7/red-7 flex")
    assert power(e) == [True, False] and top(e) == "blue-7/red-7"
    assert "red-9*" in hand(e, 1)


def test_x_drawn_only_either_face() -> None:
    e = fx(2, ["red-9*"], draw=["yellow-5/blue-5"])
    act(e, "draw")
    assert legal(e) == {"play yellow-5/blue-5", "play yellow-5/blue-5 flex", "pass"}
    act(e, "play yellow-5/blue-5")
    assert power(e) == [True, True] and top(e) == "yellow-5/blue-5"


def test_x_drawn_only_by_normal_face() -> None:
    e = fx(2, ["red-9*", "red-skip/red-skip-all"], draw=["red-4"])
    act(e, "draw")
    assert legal(e) == {"play red-4", "pass"}


def test_x_drawn_only_red_power_keeps_a_flex_only_card() -> None:
    e = fx(2, ["red-skip/red-skip-all"], draw=["blue-7/red-7"])
    act(e, "play red-skip/red-skip-all flex")
    assert e.engine.current == 1 and power(e) == [True, False]
    act(e, "draw")  # the drawn card matches only by its flex face, which a red card forbids
    assert e.engine.current == 0 and "blue-7/red-7" in hand(e, 1)
    assert e.engine.hand_len[1] == 7


# --- X-effects -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 4])
def test_x_effects_skip_all(n: int) -> None:
    e = fx(n, ["red-skip/red-skip-all"])
    before = [hand(e, s) for s in range(n)]
    act(e, "play red-skip/red-skip-all flex")
    assert e.engine.current == 1 and phase(e) == "play"  # everyone else skipped
    assert e.engine.direction == 1
    assert [hand(e, s) for s in range(n) if s != 1] == [before[s] for s in range(n) if s != 1]
    act(e, "play red-9*")
    assert e.engine.current == 2 % n


@pytest.mark.parametrize(("n", "after"), [(2, 1), (4, 3)])
def test_x_effects_reverse_skip(n: int, after: int) -> None:
    e = fx(n, ["red-reverse/red-reverse-skip"])
    act(e, "play red-reverse/red-reverse-skip flex")
    # direction flips; the first player that way (seat 0) is skipped
    assert e.engine.direction == -1 and e.engine.current == after
    assert e.engine.hand_len == [6 if s == 1 else 7 for s in range(n)] and phase(e) == "play"


@pytest.mark.parametrize("n", [2, 4])
def test_x_effects_all_draw_one(n: int) -> None:
    e = fx(n, ["red-draw-two/red-all-draw-one"])
    before = {s: hand(e, s) for s in range(n)}
    act(e, "play red-draw-two/red-all-draw-one flex")
    order = [(1 + k) % n for k in range(1, n)]  # everyone else, in turn order from the next
    for i, s in enumerate(order):
        assert hand(e, s) == sorted(before[s] + [DRAWS[i]])
    assert e.engine.hand_len[1] == 6
    assert e.engine.current == 2 % n and phase(e) == "play"  # nobody skipped
    assert pile(e)[0] == DRAWS[n - 1]


@pytest.mark.parametrize(("n", "k", "victim"), [(2, None, 0), (4, 1, 2), (4, 2, 3), (4, 3, 0)])
def test_x_effects_targeted_draw_two(n: int, k: int | None, victim: int) -> None:
    e = fx(n, ["wild/wild-target-draw-two"])
    before = {s: hand(e, s) for s in range(n)}
    act(e, "play wild/wild-target-draw-two flex")
    assert phase(e) == "color" and e.engine.current == 1  # colour first
    act(e, "color green")
    if k is not None:
        assert phase(e) == "target" and e.engine.current == 1 and color(e) == "green"
        assert legal(e) == {f"target +{j}" for j in range(1, n)}
        act(e, f"target +{k}")
    assert hand(e, victim) == sorted(before[victim] + DRAWS[:2])
    for s in range(n):
        if s not in (1, victim):
            assert hand(e, s) == before[s]
    assert e.engine.current == 2 % n and phase(e) == "play"  # nobody skipped
    assert color(e) == "green" and power(e)[1] is False


@pytest.mark.parametrize(("k", "victim"), [(1, 3), (2, 2), (3, 1)])
def test_x_effects_targeted_draw_two_counter_clockwise(k: int, victim: int) -> None:
    """``target +k`` counts in the current direction."""
    s0 = ["wild/wild-target-draw-two"] + S0[:6]
    e = fx(4, ["red-reverse"], s0=s0)
    act(e, "play red-reverse")
    assert e.engine.direction == -1 and e.engine.current == 0
    before = {s: hand(e, s) for s in range(4)}
    act(e, "play wild/wild-target-draw-two flex")
    act(e, "color yellow")
    act(e, f"target +{k}")
    assert hand(e, victim) == sorted(before[victim] + DRAWS[:2])
    assert e.engine.current == 3


@pytest.mark.parametrize("n", [2, 4])
def test_x_effects_all_draw(n: int) -> None:
    e = fx(n, ["wild/wild-all-draw"])
    before = {s: hand(e, s) for s in range(n)}
    act(e, "play wild/wild-all-draw flex")
    assert phase(e) == "color"
    act(e, "color blue")
    order = [(1 + k) % n for k in range(1, n)]
    for i, s in enumerate(order):
        assert hand(e, s) == sorted(before[s] + DRAWS[2 * i:2 * i + 2])
    assert e.engine.current == 2 % n and phase(e) == "play" and color(e) == "blue"


@pytest.mark.parametrize("card", ["red-skip/red-skip-all", "red-reverse/red-reverse-skip",
                                  "red-draw-two/red-all-draw-one", "wild/wild-target-draw-two",
                                  "wild/wild-all-draw"])
@pytest.mark.parametrize("n", [2, 4])
def test_x_effects_normal_faces(n: int, card: str) -> None:
    """A Flex card played by its normal face acts as the plain card (Wilds: a plain Wild)."""
    e = fx(n, [card])
    act(e, f"play {card}")
    g = e.engine
    if card.startswith("wild"):
        assert phase(e) == "color"
        act(e, "color green")
        assert g.current == 2 % n and g.hand_len[0] == 7 and color(e) == "green"
    elif "skip" in card.split("/")[0]:
        assert g.current == (1 if n == 2 else 3)
    elif "reverse" in card:
        assert g.direction == -1 and g.current == (1 if n == 2 else 0)
    else:
        assert g.hand_len[2 % n] == 9 and g.current == (1 if n == 2 else 3)
    assert power(e) == [True] * n


WD4 = "wild-draw-four/wild-target-draw-four"
HONEST = [WD4, "yellow-1/red-1", "yellow-5", "green-5", "blue-6*", "green-9*", "yellow-3*"]


def wd4_env(n: int, s1: list[str], **options: Any) -> raw_env:
    """Seat 1 holds ``s1`` (exactly) with red active."""
    return fx(n, s1, **options)


def play_targeted_wd4(e: raw_env, n: int, k: int) -> int:
    """Seat 1 plays the targeted Wild Draw Four, names blue, picks +k; the victim's seat."""
    act(e, f"play {WD4} flex")
    assert phase(e) == "color" and e.engine.current == 1  # colour before the target
    act(e, "color blue")
    if n > 2:
        assert phase(e) == "target" and color(e) == "blue"
        act(e, f"target +{k}")
    victim = (1 + k) % n
    assert phase(e) == "challenge" and e.engine.current == victim
    assert legal(e) == {"challenge", "accept"}
    return victim


@pytest.mark.parametrize(("n", "k"), [(2, 1), (4, 1), (4, 2), (4, 3)])
def test_x_effects_targeted_wild_draw_four_accept(n: int, k: int) -> None:
    e = wd4_env(n, HONEST)
    before = {s: hand(e, s) for s in range(n)}
    victim = play_targeted_wd4(e, n, k)
    act(e, "accept")
    assert hand(e, victim) == sorted(before[victim] + DRAWS[:4])
    assert e.engine.current == 2 % n and phase(e) == "play"  # nobody skipped, even at +1
    assert color(e) == "blue" and power(e)[1] is False


@pytest.mark.parametrize(("n", "k"), [(2, 1), (4, 1), (4, 2)])
def test_x_effects_targeted_wild_draw_four_challenge_honest(n: int, k: int) -> None:
    """Seat 1 holds no red normal face (yellow-1/red-1 is red only on its flex face) and no
    other wild: honest. The challenger draws 4 + 2; nobody is skipped."""
    e = wd4_env(n, HONEST)
    before = {s: hand(e, s) for s in range(n)}
    victim = play_targeted_wd4(e, n, k)
    act(e, "challenge")
    assert hand(e, victim) == sorted(before[victim] + DRAWS[:6])
    assert hand(e, 1) == sorted(HONEST[1:])
    assert e.engine.current == 2 % n and color(e) == "blue"
    o = obs(e, victim)  # the challenged hand is shown to the challenger
    assert o["revealed"][face_index(e, "yellow-1/red-1")] == 1 and o["revealed"].sum() == 6
    assert o["revealed_from"][(1 - victim) % n - 1] == 1


@pytest.mark.parametrize(("n", "k"), [(2, 1), (4, 1), (4, 3)])
def test_x_effects_targeted_wild_draw_four_challenge_bluff(n: int, k: int) -> None:
    s1 = [WD4, "red-9*"] + HONEST[2:]
    e = wd4_env(n, s1)
    before = {s: hand(e, s) for s in range(n)}
    victim = play_targeted_wd4(e, n, k)
    act(e, "challenge")
    assert hand(e, 1) == sorted(s1[1:] + DRAWS[:4])  # the bluffer draws the four
    assert hand(e, victim) == before[victim]
    assert e.engine.current == 2 % n and color(e) == "blue"  # the colour stands


@pytest.mark.parametrize("other", WILD_KINDS)
@pytest.mark.parametrize("n", [2, 4])
def test_x_effects_targeted_wild_draw_four_another_wild_counts(n: int, other: str) -> None:
    """No red card, but another wild in hand: a bluff."""
    s1 = [WD4, other] + HONEST[2:]
    e = wd4_env(n, s1)
    victim = play_targeted_wd4(e, n, n - 1)
    assert victim == 0
    act(e, "challenge")
    assert hand(e, 1) == sorted(s1[1:] + DRAWS[:4])
    assert e.engine.hand_len[0] == 7


@pytest.mark.parametrize("n", [2, 4])
def test_x_effects_wild_draw_four_normal_face_accept(n: int) -> None:
    e = wd4_env(n, HONEST)
    act(e, f"play {WD4}")
    act(e, "color yellow")
    victim = 2 % n
    assert phase(e) == "challenge" and e.engine.current == victim
    act(e, "accept")
    assert e.engine.hand_len[victim] == 11
    assert e.engine.current == (1 if n == 2 else 3)  # the victim loses the turn
    assert power(e) == [True] * n  # a normal face leaves the Power Card as it is


@pytest.mark.parametrize("n", [2, 4])
def test_x_effects_wild_draw_four_normal_face_honest(n: int) -> None:
    e = wd4_env(n, HONEST)
    act(e, f"play {WD4}")
    act(e, "color yellow")
    act(e, "challenge")
    assert e.engine.hand_len[2 % n] == 13
    assert e.engine.current == (1 if n == 2 else 3)


@pytest.mark.parametrize("other", WILD_KINDS)
@pytest.mark.parametrize("n", [2, 4])
def test_x_effects_wild_draw_four_normal_face_another_wild_counts(n: int, other: str) -> None:
    s1 = [WD4, other] + HONEST[2:]
    e = wd4_env(n, s1)
    act(e, f"play {WD4}")
    act(e, "color yellow")
    act(e, "challenge")
    assert hand(e, 1) == sorted(s1[1:] + DRAWS[:4])
    assert e.engine.hand_len[2 % n] == 7
    assert e.engine.current == 2 % n and color(e) == "yellow"  # the challenger plays


def test_x_effects_targeted_wild_draw_four_without_challenges() -> None:
    e = wd4_env(4, HONEST, wd_challenge=False)
    assert "challenge" not in e.action_meanings
    act(e, f"play {WD4} flex")
    act(e, "color blue")
    act(e, "target +2")
    assert e.engine.hand_len == [7, 6, 7, 11]
    assert e.engine.current == 2 and phase(e) == "play"


def with_hands(e: raw_env, hands: dict[int, list[str]]) -> raw_env:
    """The same game with ``hands`` replacing those seats' hands (their other cards go to
    the bottom of the draw pile), restored into a fresh env."""
    snap = e.snapshot()
    for seat, cards in hands.items():
        agent = f"player_{seat}"
        left = list(snap["hands"][agent])
        for c in cards:
            left.remove(c)
        snap["hands"][agent] = list(cards)
        snap["known_hidden"][seat] = [False] * len(cards)
        snap["draw_pile"] += left
    out = raw_env("flex", e.engine.n, **e.game.options)
    out.restore(snap)
    return out


def test_x_effects_targeted_draw_as_last_card() -> None:
    """G-win-round: a targeted Draw Two as the last card still asks for the victim (no colour:
    it would not matter), and the victim's draw counts for the score."""
    e = with_hands(fx(3, ["wild/wild-target-draw-two"]), {1: ["wild/wild-target-draw-two"]})
    assert e.engine.current == 1
    act(e, "play wild/wild-target-draw-two flex")
    assert phase(e) == "target"
    act(e, "target +2")
    g = e.engine
    assert g.is_over and g.winners() == [1]
    assert hand(e, 0) == sorted(S0 + DRAWS[:2])
    assert g.round_results[-1]["hand_values"][0] == sum(
        int(c.split("/")[0].rstrip("*")[-1]) for c in S0 + DRAWS[:2])


# --- X-score ---------------------------------------------------------------------------------

SCORE_S1 = ["red-skip/red-skip-all", "red-skip", "red-reverse", "red-reverse/red-reverse-skip",
            "red-draw-two", "red-draw-two/red-all-draw-one", "red-1"]
SCORE_S0 = ["red-9/yellow-9", "blue-3*", "green-skip/green-skip-all", "yellow-reverse",
            "wild/wild-all-draw", "wild-all-flip", WD4]
SCORE_DRAWS = ["green-draw-two/green-all-draw-one", "blue-1/green-1",
               "wild/wild-target-draw-two", "yellow-5"]
SCORE_VALUE = 9 + 3 + 20 + 20 + 50 + 50 + 50 + 20 + 1 + 50 + 5


def score_env(**options: Any) -> raw_env:
    """Seat 1 goes out without seat 0 ever playing (two players: Skips and Reverses give the
    turn back, the Draw Twos skip seat 0, who takes SCORE_DRAWS)."""
    e = new_env(2, 0, hands={1: SCORE_S1, 0: SCORE_S0}, first="red-5", draw=SCORE_DRAWS,
                variant="flex", **options)
    act(e, "play red-skip/red-skip-all flex")
    for card in SCORE_S1[1:5]:
        act(e, f"play {card}")
    act(e, "uno")
    act(e, "play red-draw-two/red-all-draw-one")
    assert power(e) == [True, False]
    act(e, "play red-1")
    return e


def test_x_score_face_values() -> None:
    for f in find_variant("flex").faces:
        normal = f.name.split("/")[0]
        if normal.startswith("wild"):
            assert f.points == 50, f.name
        elif normal.rstrip("*")[-1].isdigit():
            assert f.points == int(normal.rstrip("*")[-1]), f.name
        else:
            assert f.points == 20, f.name


@pytest.mark.parametrize("scoring", ["winner", "penalty"])
def test_x_score_round(scoring: str) -> None:
    e = score_env(scoring=scoring)
    g = e.engine
    assert g.is_over and g.winners() == [1]
    assert sorted(hand(e, 0)) == sorted(SCORE_S0 + SCORE_DRAWS)
    res = g.round_results[-1]
    assert res["winner"] == 1 and res["hand_values"] == [SCORE_VALUE, 0]
    assert g.scores == ([0, SCORE_VALUE] if scoring == "winner" else [SCORE_VALUE, 0])


def test_x_score_target() -> None:
    assert find_variant("flex").options["target_score"].default == 500
    e = score_env(episode="match", target_score=SCORE_VALUE)
    assert e.engine.is_over and e.engine.winners() == [1]
    assert e.engine.scores == [0, SCORE_VALUE]
    e = score_env(episode="match")  # 278 < 500: the match goes on
    assert not e.engine.is_over and e.engine.scores == [0, SCORE_VALUE]


# --- snapshot / restore ----------------------------------------------------------------------

def _frame(e: raw_env) -> tuple[Any, ...]:
    return (e.agent_selection, e.snapshot(), e.state().tobytes(),
            [(e.observe(a)["observation"].tobytes(), e.observe(a)["action_mask"].tobytes())
             for a in e.agents])


@pytest.mark.parametrize("stop_at", ["target", "challenge", "play"])
def test_x_snapshot_restore_mid_effect(stop_at: str) -> None:
    """Snapshots in the target decision, in the targeted challenge and with a red Power Card
    restore into a fresh env and play on identically."""
    e = wd4_env(4, HONEST)
    act(e, f"play {WD4} flex")
    act(e, "color blue")
    script = ["target +2", "challenge"]
    while e.phase != stop_at:
        act(e, script.pop(0))
    snap = json.loads(json.dumps(e.snapshot()))
    assert snap["power_green"] == [True, False, True, True]
    fresh = raw_env("flex", 4)
    fresh.restore(snap)
    assert _frame(fresh) == _frame(e)
    rng_a, rng_b = random.Random(7), random.Random(7)
    for _ in range(40):
        if episode_over(e):
            break
        if script:
            m = script.pop(0)
            act(e, m)
            act(fresh, m)
        else:
            e.step(play_policy(rng_a, e))
            fresh.step(play_policy(rng_b, fresh))
        assert _frame(fresh) == _frame(e)


# --- API, seed and properties at 2, 3, 4 and 8 players ----------------------------------------

def test_x_players_generic_suites_cover_flex_counts() -> None:
    """tests/test_api.py, test_properties.py and test_snapshot.py iterate over conftest's
    configurations: they must include Flex at 2, 3, 4 and 8 players."""
    assert player_counts("flex") == [2, 3, 4, 8]
    assert {n for v, n, _ in configs(sample=12) if v == "flex"} == {2, 3, 4, 8}


def _symbol(face: str) -> str:
    """What "same number or symbol" compares, from a face name (independent of the engine)."""
    if face.startswith("wild"):
        return face
    return face.split("-", 1)[1].rstrip("*")


def _matches(face: str, active: str, top_symbol: str) -> bool:
    return face.startswith("wild") or face.split("-", 1)[0] == active or \
        _symbol(face) == top_symbol


def oracle_plays(e: raw_env) -> set[str]:
    """The legal play actions of the player to act, from G-match, X-flex-play and
    X-drawn-only, computed from card names."""
    g = e.engine
    names = e.game.card_names
    active = COLORS[g.active_color]
    top_symbol = _symbol(names[g.discard[-1]].split("/")[0])
    cards = [g.drawn_card] if e.phase == "drawn" else g.hands[g.current]
    out = set()
    for c in cards:
        kind = names[c]
        normal, _, flex = kind.partition("/")
        if _matches(normal, active, top_symbol):
            out.add(f"play {kind}")
        if flex and g.power[g.current] and _matches(flex, active, top_symbol):
            out.add(f"play {kind} flex")
    return out


@pytest.mark.parametrize(("n", "uno_catch"), [(2, "auto"), (3, "auto"), (4, "auto"),
                                              (8, "auto"), (2, "off"), (4, "off")])
def test_x_flex_play_mask_exact_in_random_play(n: int, uno_catch: str) -> None:
    """Over random games: the play and flex-play actions offered are exactly those the rules
    allow, and the Power Cards in every observation are the engine's."""
    flex_seen = red_seen = 0
    for seed in range(6):
        e = raw_env("flex", n, max_steps=250, uno_catch=uno_catch)
        e.reset(seed=seed)
        rng = random.Random(seed)
        while not episode_over(e):
            g = e.engine
            offered = {e.action_meanings[a] for a in g.legal}
            if e.phase in ("play", "drawn"):
                assert {m for m in offered if m.startswith("play ")} == oracle_plays(e)
                red_seen += not g.power[g.current]
            seat = g.current
            o = obs(e, seat)
            assert o["own_power"][0] == g.power[seat]
            assert o["opp_power"].tolist() == [
                int(g.power[(seat + k) % n]) for k in range(1, n)]
            a = play_policy(rng, e)
            flex_seen += e.action_meanings[a].endswith(" flex")
            e.step(a)
    assert flex_seen and red_seen


@pytest.mark.parametrize("n", [2, 4])
def test_x_flex_play_active_colour_in_random_play(n: int) -> None:
    """X-flex-play: whenever a coloured card lies on top, the active colour is its normal
    face's colour (also after it was played by its flex face)."""
    checked = 0
    for seed in range(6):
        e = raw_env("flex", n, max_steps=250)
        e.reset(seed=seed)
        rng = random.Random(seed)
        while not episode_over(e):
            g = e.engine
            normal = e.game.card_names[g.discard[-1]].split("/")[0]
            if e.phase in ("play", "drawn") and not normal.startswith("wild"):
                assert color(e) == normal.split("-")[0], (seed, normal, color(e))
                checked += 1
            e.step(play_policy(rng, e))
    assert checked


def test_x_seed_replays_flex_games() -> None:
    for n in (2, 3, 4, 8):
        runs = []
        for _ in range(2):
            e = raw_env("flex", n, max_steps=150)
            e.reset(seed=11)
            rng = random.Random(3)
            trace = []
            while not episode_over(e):
                a = play_policy(rng, e)
                trace.append((a, tuple(e.engine.power)))
                e.step(a)
            runs.append((trace, e.snapshot()))
        assert runs[0] == runs[1]
