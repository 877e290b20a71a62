"""Scenario tests for UNO Flip (docs/games/flip.md), each from a fixed deck order.

A physical Flip card is named ``light|dark`` (``red-7|teal-skip-everyone``). Scenarios name
cards by a *spec*: the full name, ``"red-7|*"`` (some card whose light face is red-7) or
``"*|teal-2"`` (some card whose dark face is teal-2); :func:`flip_deck` turns the specs into
physical cards of the fixed pairing and lays out a whole deck order, so every scenario is a
permutation of the 112 cards and fully deterministic.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from scenario_helpers import act, discard, legal, obs, phase, pile, top

from uno_env import PHASES, Game, State, raw_env
from uno_env.variants import find_variant
from uno_env.variants.flip import Flip

# Every test runs on the Python engine and again on the batch engine (tests/batch_mirror.py).
pytestmark = pytest.mark.usefixtures("engine")

V = find_variant("flip")
NAMES: tuple[str, ...] = V.card_names
LIGHT = ("red", "yellow", "green", "blue")
DARK = ("pink", "teal", "orange", "purple")
PLAYER_COUNTS = (2, 3, 4, 10)


def light(name: str) -> str:
    return name.split("|")[0]


def dark(name: str) -> str:
    return name.split("|")[1]


def face_value(face: str) -> int:
    """F-score, written independently of the engine's tables."""
    last = face.rsplit("-", 1)[-1]
    if last.isdigit():
        return int(last)
    return {"draw-one": 10, "draw-five": 20, "reverse": 20, "skip": 20, "flip": 20,
            "skip-everyone": 30, "wild": 40, "wild-draw-two": 50,
            "wild-draw-color": 60}[face if face.startswith("wild") else face.split("-", 1)[1]]


def _matches(spec: str, name: str) -> bool:
    lo, hi = spec.split("|")
    return (lo == "*" or lo == light(name)) and (hi == "*" or hi == dark(name))


def _default_fill(name: str) -> bool:
    """Filler cards: a number on both sides (no effect comes from an unnamed card)."""
    return light(name)[-1].isdigit() and dark(name)[-1].isdigit()


def flip_deck(
    num_players: int = 2,
    dealer: int = 0,
    hands: Mapping[int, Sequence[str]] | None = None,
    first: str = "red-5|*",
    draw: Sequence[str] = (),
    bottom: Sequence[str] = (),
    fill: Callable[[str], bool] = _default_fill,
) -> list[str]:
    """A full deck order (top first) dealing ``hands`` (seat -> specs; short hands are topped
    up with ``fill`` cards first), turning up ``first``, with ``draw`` on top of the draw pile
    (top first) and ``bottom`` at the very bottom. Exact names are taken before wildcards."""
    hands = dict(hands or {})
    slots: list[tuple[str, str]] = []  # (where, spec)
    for seat, specs in hands.items():
        assert 0 <= seat < num_players and len(specs) <= 7, (seat, specs)
        slots += [(f"hand{seat}", s) for s in specs]
    slots.append(("first", first))
    slots += [("draw", s) for s in draw]
    slots += [("bottom", s) for s in bottom]
    pool = list(NAMES)
    chosen: dict[int, str] = {}
    for exact in (True, False):
        for i, (_, spec) in enumerate(slots):
            if ("*" not in spec) != exact:
                continue
            name = next((n for n in pool if _matches(spec, n)), None)
            assert name is not None, f"no card {spec!r} left for this scenario"
            pool.remove(name)
            chosen[i] = name
    picked = [chosen[i] for i in range(len(slots))]
    full = {s: [picked[i] for i, (w, _) in enumerate(slots) if w == f"hand{s}"]
            for s in range(num_players)}
    pool = [n for n in pool if fill(n)] + [n for n in pool if not fill(n)]
    for s in range(num_players):
        while len(full[s]) < 7:
            full[s].append(pool.pop(0))
    deal = [full[(dealer + i) % num_players][k] for k in range(7)
            for i in range(1, num_players + 1)]
    at = {w: [picked[i] for i, (w2, _) in enumerate(slots) if w2 == w]
          for w in ("first", "draw", "bottom")}
    deck = deal + at["first"] + at["draw"] + pool + at["bottom"]
    assert sorted(deck) == sorted(NAMES)
    return deck


def flip_env(
    num_players: int = 2,
    dealer: int = 0,
    hands: Mapping[int, Sequence[str]] | None = None,
    first: str = "red-5|*",
    draw: Sequence[str] = (),
    bottom: Sequence[str] = (),
    fill: Callable[[str], bool] = _default_fill,
    seed: int = 0,
    env_kwargs: Mapping[str, Any] | None = None,
    **options: Any,
) -> raw_env:
    """A reset flip ``raw_env`` dealt from :func:`flip_deck`."""
    env = raw_env("flip", num_players, **dict(env_kwargs or {}), **options)
    deck = flip_deck(num_players, dealer, hands, first, draw, bottom, fill)
    env.reset(seed=seed, options={"deck": deck, "dealer": dealer})
    return env


def names_of(env: raw_env, seat: int) -> list[str]:
    """Physical card names in a seat's hand, sorted."""
    return sorted(env.game.card_names[c] for c in env.engine.hands[seat])


def faces(env: raw_env, seat: int) -> list[str]:
    """Active faces of a seat's hand, sorted."""
    g, fn = env.engine, env.game.face_names
    return sorted(fn[g.faces_of[c]] for c in g.hands[seat])


def hidden(env: raw_env, seat: int) -> list[str]:
    """Inactive faces of a seat's hand, sorted."""
    g, game = env.engine, env.game
    other = game.side_faces[g.side ^ 1]
    return sorted(game.face_names[other[c]] for c in g.hands[seat])


def top_face(env: raw_env) -> str:
    g = env.engine
    return env.game.face_names[g.faces_of[g.discard[-1]]]


def color(env: raw_env) -> str | None:
    g = env.engine
    return None if g.active_color >= 4 else env.game.colors[g.side][g.active_color]


FACE_INDEX = {f.name: i for i, f in enumerate(V.faces)}


def face_counts(faces_: Sequence[str]) -> np.ndarray:
    """Counts per face kind, as the observation's count pieces hold them."""
    out = np.zeros(len(V.faces), dtype=np.float32)
    for f in faces_:
        out[FACE_INDEX[f]] += 1
    return out


def decoded(env: raw_env, seat: int, piece: str) -> np.ndarray:
    return np.asarray(obs(env, seat)[piece])


def opp_hidden(env: raw_env, seat: int, k: int) -> np.ndarray:
    """The ``opp_hidden`` block of relative seat ``k`` (1 = next seat) in ``seat``'s view."""
    nf = len(V.faces)
    return decoded(env, seat, "opp_hidden")[(k - 1) * nf:k * nf]


def dark_start(num_players: int = 2, dealer: int = 0,
               hands: Mapping[int, Sequence[str]] | None = None,
               draw: Sequence[str] = (), first: str = "red-flip|purple-9",
               **kw: Any) -> raw_env:
    """F-first-discard: a light Flip turned up first, so the round starts on the dark side
    with (by default) purple-9 on top and the player left of the dealer to act. The draw
    pile was turned over too: ``draw`` (top first) is laid at the bottom of the deck so that
    it lies on top once turned."""
    env = flip_env(num_players, dealer, hands=hands, first=first, bottom=list(draw)[::-1],
                   **kw)
    assert env.engine.side == 1
    assert all(_matches(spec, name) for spec, name in zip(draw, pile(env), strict=False))
    return env


# --- F-deck ----------------------------------------------------------------------------------

def test_f_deck_counts_every_light_and_dark_kind() -> None:
    assert len(NAMES) == 112
    want_light: Counter[str] = Counter({"wild": 4, "wild-draw-two": 4})
    want_dark: Counter[str] = Counter({"wild": 4, "wild-draw-color": 4})
    for c in LIGHT:
        for k in [*map(str, range(1, 10)), "draw-one", "reverse", "skip", "flip"]:
            want_light[f"{c}-{k}"] = 2
    for c in DARK:
        for k in [*map(str, range(1, 10)), "draw-five", "reverse", "skip-everyone", "flip"]:
            want_dark[f"{c}-{k}"] = 2
    assert sum(want_light.values()) == sum(want_dark.values()) == 112
    assert Counter(light(n) for n in NAMES) == want_light
    assert Counter(dark(n) for n in NAMES) == want_dark
    # the engine's face tables say the same as the names
    for name, (lf, df) in zip(NAMES, V.cards, strict=True):
        assert V.faces[lf].name == light(name) and V.faces[df].name == dark(name)
        assert V.faces[lf].side == 0
        assert V.faces[df].side == 1 or V.faces[df].name == "wild"  # one shared Wild kind
    # and a dealt game holds each of the 112 cards exactly once
    env = raw_env("flip", 4)
    env.reset(seed=3)
    g = env.engine
    ids = [c for h in g.hands for c in h] + g.draw_pile + g.discard
    assert sorted(ids) == list(range(112))
    assert Counter(env.game.card_names[c] for c in ids) == Counter(NAMES)


def test_f_deck_action_space_names_both_sides() -> None:
    m = set(raw_env("flip", 3).action_meanings)
    for must in ("play red-7", "play red-draw-one", "play red-flip", "play red-skip",
                 "play wild", "play wild-draw-two", "play teal-draw-five",
                 "play pink-skip-everyone", "play purple-flip", "play orange-reverse",
                 "play wild-draw-color", "color red", "color blue", "color pink",
                 "color teal", "color orange", "color purple", "challenge", "accept",
                 "draw", "pass", "uno"):
        assert must in m, must
    # one "play" action per kind: 4 * 13 light + 4 * 13 dark coloured kinds, 3 wild kinds
    assert sum(x.startswith("play ") for x in m) == 4 * 13 * 2 + 3
    assert not any(x.startswith("play ") and "|" in x for x in m)


def test_f_deck_pairing_is_fixed() -> None:
    """One fixed permutation: every game, seed and table size deals the same 112 cards."""
    assert type(V)().card_names == NAMES and type(V)().cards == V.cards
    for n, seed in ((2, 0), (3, 1), (10, 2)):
        env = raw_env("flip", n)
        env.reset(seed=seed)
        assert env.game.card_names == NAMES
        assert [tuple(s) for s in zip(*env.game.side_faces, strict=True)] == list(V.cards)
    # a few pairs of the documented table (they anchor the scenarios below)
    for pair in ("red-flip|purple-9", "red-5|wild-draw-color", "green-4|wild",
                 "wild|purple-draw-five", "wild-draw-two|pink-2", "red-8|pink-skip-everyone"):
        assert pair in NAMES, pair
    # the pairing mixes the sides: it is not light colour i -> dark colour i
    assert len({(light(n).split("-")[0], dark(n).split("-")[0]) for n in NAMES}) > 16


# --- F-players -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(2, 11))
def test_f_players_accepted_hand_size_seven(n: int) -> None:
    env = raw_env("flip", n)
    env.reset(seed=n)
    g = env.engine
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    assert len(g.hand_len) == n and min(g.hand_len) == 7
    assert sum(g.hand_len) + len(g.draw_pile) + len(g.discard) == 112
    env = flip_env(n, n - 1, first="red-6|*")
    assert env.engine.hand_len == [7] * n
    assert len(env.engine.draw_pile) == 112 - 7 * n - 1


@pytest.mark.parametrize("n", [0, 1, 11])
def test_f_players_rejected(n: int) -> None:
    with pytest.raises(ValueError, match="2-10"):
        raw_env("flip", n)


# --- F-side ----------------------------------------------------------------------------------

SIDE1 = ["yellow-2|pink-9", "blue-8|pink-8", "red-8|pink-5", "yellow-6|purple-9",
         "red-flip|purple-3", "green-1|purple-4", "green-2|orange-4"]
SIDE0 = ["blue-3|teal-2", "red-6|orange-5", "green-5|pink-1", "blue-1|orange-4",
         "yellow-5|purple-8", "blue-9|teal-7", "green-3|pink-7"]


def test_f_side_starts_light_and_matches_light_faces_only() -> None:
    env = flip_env(2, 0, hands={1: SIDE1, 0: SIDE0}, first="red-6|pink-5")
    g = env.engine
    assert g.side == 0 and color(env) == "red" and top_face(env) == "red-6"
    for s in range(2):
        assert decoded(env, s, "dark_side")[0] == 0
    assert faces(env, 1) == sorted(light(n) for n in SIDE1)
    # pink-9, pink-8 (dark faces matching the top's dark pink-5) are not playable; the light
    # faces red-8 (colour), yellow-6 (number) and red-flip (colour) are
    assert legal(env) == {"play red-8", "play yellow-6", "play red-flip", "draw"}


def test_f_side_after_flip_matches_dark_faces_only() -> None:
    env = flip_env(2, 0, hands={1: SIDE1, 0: SIDE0}, first="red-6|pink-5")
    act(env, "play red-flip")
    g = env.engine
    assert g.side == 1 and top_face(env) == "pink-5" and color(env) == "pink"
    assert g.current == 0
    # red-6 (light) would have matched the old top; now orange-5 (number) and pink-1, pink-7
    # (colour) match, by their dark faces
    assert legal(env) == {"play orange-5", "play pink-1", "play pink-7", "draw"}
    assert faces(env, 0) == sorted(dark(n) for n in SIDE0)
    act(env, "play pink-1")
    assert g.current == 1 and color(env) == "pink"
    assert legal(env) == {"play pink-9", "play pink-8", "play pink-5", "draw"}


def test_f_side_each_round_starts_light() -> None:
    env = dark_win("red-7|purple-7", episode="match")  # round 1 ends on the dark side
    g = env.engine
    assert len(g.round_results) == 1 and not g.is_over and g.dealer == 1
    assert light(top(env)).split("-")[-1] != "flip"  # (this deal turned up no Flip)
    assert g.side == 0 and g.faces_of == env.game.side_faces[0]
    for s in range(2):
        assert decoded(env, s, "dark_side")[0] == 0
        assert not decoded(env, s, "own_hidden").any()  # a new deal: no back is known


# --- F-flip ----------------------------------------------------------------------------------

# (first discard, the Flip seat 1 plays on it): the dark face of the first discard comes up.
FLIP_CASES = [
    ("red-2|teal-draw-five", "red-flip|purple-3"),
    ("red-8|pink-skip-everyone", "red-flip|purple-3"),
    ("green-6|pink-reverse", "green-flip|teal-4"),
    ("yellow-8|teal-reverse", "yellow-flip|pink-6"),
    ("yellow-1|pink-flip", "yellow-flip|pink-6"),
    ("red-6|orange-5", "red-flip|purple-9"),
]


@pytest.mark.parametrize(("first", "flip"), FLIP_CASES)
def test_f_flip_turns_hands_and_piles(first: str, flip: str) -> None:
    hands = {1: [flip, "red-9|purple-2"], 2: ["green-4|wild", "red-1|pink-3"]}
    env = flip_env(3, 0, hands=hands, first=first, draw=["green-1|purple-4", "green-2|pink-3"],
                   bottom=["yellow-3|orange-draw-five", "blue-5|purple-1"])
    g = env.engine
    assert g.current == 1 and f"play {light(flip)}" in legal(env)
    before_hands = [names_of(env, s) for s in range(3)]
    before_pile = pile(env)
    before_discard = discard(env)
    act(env, f"play {light(flip)}")
    assert g.side == 1
    # every hand turned over: the same cards, now showing their dark faces
    after_hands = [names_of(env, s) for s in range(3)]
    before_hands[1].remove(flip)
    assert after_hands == before_hands
    for s in range(3):
        assert faces(env, s) == sorted(dark(n) for n in after_hands[s])
        assert hidden(env, s) == sorted(light(n) for n in after_hands[s])
    # both piles turned over: reversed, the bottom card is now on top
    assert pile(env) == before_pile[::-1]
    assert pile(env)[:2] == ["blue-5|purple-1", "yellow-3|orange-draw-five"]
    assert discard(env) == [flip, *before_discard]
    assert top(env) == first and top_face(env) == dark(first)
    # the new top's action does not take effect: nobody draws or is skipped, no second
    # flip, the direction stays; its colour is the active colour
    assert g.current == 2 and phase(env) == "play" and g.direction == 1
    assert g.hand_len == [7, 6, 7] and g.pending == 0
    assert color(env) == dark(first).split("-")[0]
    for s in range(3):
        assert decoded(env, s, "dark_side")[0] == 1
    assert "play wild" in legal(env)
    o = obs(env, 2)
    assert np.array_equal(o["top"], face_counts([dark(first)]))
    assert o["active_color"][DARK.index(color(env) or "")] == 1


def test_f_flip_back_to_light() -> None:
    """A dark Flip turns everything back: the Flip that started the dark side is on top."""
    hands = {1: ["green-9|purple-flip", "red-9|purple-2"], 0: ["wild|purple-8", "red-1|pink-3"]}
    env = dark_start(2, 0, hands=hands, draw=["blue-5|purple-1", "green-1|purple-4"])
    g = env.engine
    assert top_face(env) == "purple-9" and color(env) == "purple"
    before_pile = pile(env)
    act(env, "play purple-flip")
    assert g.side == 0
    assert discard(env) == ["green-9|purple-flip", "red-flip|purple-9"]
    assert top_face(env) == "red-flip" and color(env) == "red"
    assert pile(env) == before_pile[::-1]
    # the red-flip on top does not flip again; seat 0 plays on it
    assert g.current == 0 and phase(env) == "play"
    assert faces(env, 0) == sorted(light(n) for n in names_of(env, 0))
    assert "play wild" in legal(env) and "play red-1" in legal(env)


@pytest.mark.parametrize("first", ["green-4|wild", "green-7|wild-draw-color"])
def test_f_flip_wild_on_top_colour_from_flip_player(first: str) -> None:
    hands = {1: ["green-flip|teal-4", "red-9|purple-2"], 2: ["blue-4|teal-3", "red-1|pink-3"]}
    env = flip_env(3, 0, hands=hands, first=first, draw=["green-1|purple-4", "green-2|pink-3"])
    g = env.engine
    act(env, "play green-flip")
    assert g.side == 1 and top_face(env) == dark(first)
    # the player who played the Flip names the colour, from the dark palette
    assert g.current == 1 and phase(env) == "color"
    assert legal(env) == {"color pink", "color teal", "color orange", "color purple"}
    # while it is being chosen no colour is active: not green, the colour before the Flip
    assert color(env) is None and env.snapshot()["active_color"] is None
    for seat in range(3):
        assert not decoded(env, seat, "active_color").any()
    act(env, "color teal")
    assert color(env) == "teal"
    # a Wild Draw Colour that comes up this way does not make anyone draw
    assert g.current == 2 and phase(env) == "play" and g.hand_len == [7, 6, 7]
    assert "play teal-3" in legal(env) and "play pink-3" not in legal(env)


# --- F-first-discard (3 players, seat 1 deals, seat 2 is the first player) -----------------

FIRST_HANDS = {
    0: ["wild|orange-reverse", "red-9|purple-2", "blue-4|teal-3"],
    1: ["wild|purple-8", "red-9|purple-4", "blue-9|teal-3"],
    2: ["wild|teal-draw-five", "red-7|purple-7", "red-3|pink-2"],
}


def first_env(first: str, num_players: int = 3, seed: int = 0,
              draw: Sequence[str] = ("green-1|purple-4", "green-2|pink-3")) -> raw_env:
    hands = {s: h for s, h in FIRST_HANDS.items() if s < num_players}
    return flip_env(num_players, 1, hands=hands, first=first, draw=draw, seed=seed)


def test_f_first_discard_number() -> None:
    env = first_env("red-6|orange-5")
    g = env.engine
    assert g.side == 0 and g.current == 2 and phase(env) == "play" and g.direction == 1
    assert color(env) == "red" and g.hand_len == [7, 7, 7]


def test_f_first_discard_skip() -> None:
    env = first_env("red-skip|teal-5")
    g = env.engine
    assert g.current == 0 and g.hand_len == [7, 7, 7] and g.direction == 1  # seat 2 skipped


def test_f_first_discard_reverse() -> None:
    env = first_env("red-reverse|pink-6")
    g = env.engine
    assert g.current == 1 and g.direction == -1  # the dealer plays first, counter-clockwise
    act(env, "play red-9")
    assert g.current == 0


def test_f_first_discard_draw_one() -> None:
    env = first_env("red-draw-one|pink-1")
    g = env.engine
    assert g.hand_len == [7, 7, 8] and "green-1|purple-4" in names_of(env, 2)
    assert g.current == 0 and g.direction == 1  # the first player drew 1 and was skipped


def test_f_first_discard_draw_one_two_players() -> None:
    env = first_env("red-draw-one|pink-1", num_players=2)
    g = env.engine
    assert g.hand_len == [8, 7] and g.current == 1  # seat 0 drew and was skipped


def test_f_first_discard_wild_dealer_chooses() -> None:
    env = first_env("wild|purple-draw-five")
    g = env.engine
    assert g.current == 1 and phase(env) == "color"  # the dealer, not the first player
    assert legal(env) == {"color red", "color yellow", "color green", "color blue"}
    act(env, "color blue")
    assert color(env) == "blue" and g.current == 2 and phase(env) == "play"
    assert g.hand_len == [7, 7, 7]


@pytest.mark.parametrize("first", ["red-flip|purple-9", "yellow-flip|purple-reverse",
                                   "blue-flip|pink-flip", "blue-flip|teal-8"])
def test_f_first_discard_flip_starts_dark(first: str) -> None:
    deck = flip_deck(3, 1, FIRST_HANDS, first, ["green-1|purple-4", "green-2|pink-3"])
    env = raw_env("flip", 3)
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    g = env.engine
    assert g.side == 1 and discard(env) == [first]
    assert top_face(env) == dark(first) and color(env) == dark(first).split("-")[0]
    for s in range(3):
        assert faces(env, s) == sorted(dark(n) for n in names_of(env, s))
    assert pile(env) == deck[22:][::-1]  # the draw pile turned over too
    for s in range(3):  # the dealt cards were held through the flip: their backs are known
        assert np.array_equal(decoded(env, s, "own_hidden"),
                              face_counts([light(n) for n in names_of(env, s)]))
    # the new top's action does not take effect: no reverse, no second flip, no skip
    assert g.current == 2 and phase(env) == "play" and g.direction == 1
    assert g.hand_len == [7, 7, 7]


def test_f_first_discard_flip_then_wild_dealer_chooses() -> None:
    """A first-discard Flip whose dark face is a wild: the dealer names the colour. No light
    Flip of the shipped pairing has a wild dark face, so this is played on a re-paired deck
    (the shipped pairing with two dark faces swapped)."""
    assert not any(light(n).endswith("-flip") and dark(n).startswith("wild") for n in NAMES)
    swap = {"red-flip|purple-9": "red-flip|wild", "green-4|wild": "green-4|purple-9"}

    class RePaired(Flip):
        def build_deck(self) -> Any:
            faces_, cards = super().build_deck()
            names = [f.name for f in faces_]
            out = []
            for lf, df in cards:
                pair = f"{names[lf]}|{names[df]}"
                if pair in swap:
                    df = names.index(dark(swap[pair]))
                out.append((lf, df))
            return faces_, out

    game = Game(RePaired(), 3)
    deck = [swap.get(n, n) for n in flip_deck(3, 1, FIRST_HANDS, "red-flip|purple-9")]
    st = State(game, seed=0, deck=deck, dealer=1)
    meanings = {game.actions.meanings[a] for a in st.legal}
    assert st.side == 1 and game.face_names[st.faces_of[st.discard[-1]]] == "wild"
    assert st.current == 1 and meanings == {f"color {c}" for c in DARK}  # the dealer
    st.step(game.actions.index("color purple"))
    assert st.current == 2 and PHASES[st.phase] == "play"
    assert st.active_color == DARK.index("purple")
    assert st.hand_len == [7, 7, 7]


def test_f_first_discard_wild_draw_two_returned() -> None:
    wdt = "wild-draw-two|pink-2"
    spots = set()
    for seed in range(8):
        deck = flip_deck(3, 1, FIRST_HANDS, wdt)
        env = raw_env("flip", 3)
        env.reset(seed=seed, options={"deck": deck, "dealer": 1})
        assert light(top(env)) != "wild-draw-two" and len(discard(env)) == 1
        # the Wild Draw Two went back into the (reshuffled) pile; the new top's action
        # applied as usual (a Draw One may have added a card to seat 2's hand)
        dealt = [deck[(s - 2) % 3:21:3] for s in range(3)]
        for s in range(3):
            assert not Counter(dealt[s]) - Counter(names_of(env, s))
        assert wdt in pile(env)
        assert sorted(pile(env) + discard(env) + [c for s in range(3) for c in names_of(env, s)
                                                  if c not in dealt[s]]) == sorted(deck[21:])
        spots.add(pile(env).index(wdt))
    assert len(spots) > 1  # reshuffled from the game's RNG, not put back in place


# --- F-effects: light side (3 players, seat 0 deals, red-6 turned up) ------------------------

LIGHT1 = ["red-draw-one|pink-1", "red-skip|teal-5", "red-reverse|orange-7", "wild|purple-8",
          "wild-draw-two|pink-2", "blue-3|teal-2", "blue-1|orange-4"]
LIGHT1_NO_RED = ["wild-draw-two|pink-2", "wild|purple-8", "blue-3|teal-2", "blue-1|orange-4",
                 "yellow-2|pink-9", "green-8|orange-1", "yellow-6|purple-9"]
LIGHT_DRAWS = ["green-1|purple-4", "green-2|pink-3", "green-3|pink-7", "green-5|pink-1",
               "green-9|orange-2"]


def light_env(seat1: Sequence[str] = LIGHT1, num_players: int = 3, **options: Any) -> raw_env:
    hands = {1: seat1, 2: ["wild|orange-reverse", "blue-9|teal-7"], 0: ["wild|teal-draw-five"]}
    hands = {s: h for s, h in hands.items() if s < num_players}
    env = flip_env(num_players, 0, hands=hands, first="red-6|orange-5", draw=LIGHT_DRAWS,
                   **options)
    assert env.engine.current == 1 and env.engine.side == 0
    return env


def test_f_effects_draw_one() -> None:
    env = light_env()
    g = env.engine
    act(env, "play red-draw-one")
    assert g.hand_len == [7, 6, 8] and "green-1|purple-4" in names_of(env, 2)
    assert g.current == 0 and phase(env) == "play" and pile(env)[0] == LIGHT_DRAWS[1]


def test_f_effects_skip() -> None:
    env = light_env()
    act(env, "play red-skip")
    assert env.engine.current == 0 and env.engine.hand_len == [7, 6, 7]


def test_f_effects_reverse() -> None:
    env = light_env()
    g = env.engine
    act(env, "play red-reverse")
    assert g.direction == -1 and g.current == 0
    act(env, "play wild")
    act(env, "color blue")
    assert g.current == 2


def test_f_effects_reverse_two_players_acts_as_skip() -> None:
    env = light_env(num_players=2)
    act(env, "play red-reverse")
    assert env.engine.current == 1 and env.engine.direction == -1


def test_f_effects_wild_light_colours() -> None:
    env = light_env()
    act(env, "play wild")
    assert phase(env) == "color" and env.engine.current == 1
    assert legal(env) == {f"color {c}" for c in LIGHT}
    act(env, "color green")
    assert color(env) == "green" and env.engine.current == 2


def test_f_effects_wild_draw_two_accept() -> None:
    env = light_env()
    g = env.engine
    act(env, "play wild-draw-two")
    act(env, "color yellow")
    assert g.current == 2 and phase(env) == "challenge"
    assert legal(env) == {"challenge", "accept"}
    act(env, "accept")
    assert g.hand_len == [7, 6, 9] and g.current == 0 and color(env) == "yellow"
    assert {"green-1|purple-4", "green-2|pink-3"} <= set(names_of(env, 2))


def test_f_effects_wild_draw_two_challenge_honest() -> None:
    env = light_env(LIGHT1_NO_RED)  # seat 1 holds no red: the play is honest
    g = env.engine
    act(env, "play wild-draw-two")
    act(env, "color yellow")
    act(env, "challenge")
    assert g.hand_len == [7, 6, 11]  # 2 + 2
    assert set(LIGHT_DRAWS[:4]) <= set(names_of(env, 2))
    assert g.current == 0 and color(env) == "yellow"


def test_f_effects_wild_draw_two_challenge_bluff() -> None:
    env = light_env()  # seat 1 holds red cards: a bluff
    g = env.engine
    act(env, "play wild-draw-two")
    act(env, "color yellow")
    act(env, "challenge")
    assert g.hand_len == [7, 8, 7]  # the player of the Wild Draw Two drew 2
    assert set(LIGHT_DRAWS[:2]) <= set(names_of(env, 1))
    assert g.current == 2 and phase(env) == "play" and color(env) == "yellow"
    # the challenged hand (as it was when challenged) was shown to the challenger
    assert np.array_equal(decoded(env, 2, "revealed"), face_counts(
        [light(n) for n in LIGHT1 if n != "wild-draw-two|pink-2"]))


# --- F-effects: dark side (first discard red-flip -> purple-9 on top; seat 1 to play) -------

DARK1 = ["red-5|wild-draw-color", "green-3|purple-draw-five", "red-skip|purple-skip-everyone",
         "yellow-flip|purple-reverse", "red-7|purple-7", "blue-3|teal-2", "green-4|wild"]
DARK1_NO_PURPLE = ["red-5|wild-draw-color", "red-1|pink-3", "green-2|orange-4",
                   "blue-3|teal-2", "blue-1|orange-4", "yellow-2|pink-9", "yellow-2|teal-7"]
# what the pile holds on top once turned (the victim of a Wild Draw Colour to teal takes
# the first four: orange-1, a wild, pink-3, teal-2)
DARK_DRAWS = ["green-8|orange-1", "yellow-5|wild", "green-2|pink-3", "red-7|teal-2",
              "blue-9|teal-3", "red-4|orange-3", "green-5|pink-1"]


def dark_env(seat1: Sequence[str] = DARK1, num_players: int = 3, **options: Any) -> raw_env:
    hands = {1: seat1, 2: ["green-skip|wild", "blue-4|teal-3"], 0: ["green-reverse|wild"]}
    hands = {s: h for s, h in hands.items() if s < num_players}
    env = dark_start(num_players, 0, hands=hands, draw=DARK_DRAWS, **options)
    assert env.engine.current == 1 and color(env) == "purple"
    return env


def test_f_effects_draw_five() -> None:
    env = dark_env()
    g = env.engine
    act(env, "play purple-draw-five")
    assert g.hand_len == [7, 6, 12] and set(DARK_DRAWS[:5]) <= set(names_of(env, 2))
    assert g.current == 0 and phase(env) == "play" and g.pending == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_f_effects_skip_everyone(n: int) -> None:
    env = dark_env(num_players=n)
    g = env.engine
    act(env, "play purple-skip-everyone")
    assert g.current == 1 and phase(env) == "play"  # every other player skipped
    assert g.hand_len == [7, 6] + [7] * (n - 2)
    act(env, "play purple-7")
    assert g.current == 2 % n


def test_f_effects_dark_reverse() -> None:
    env = dark_env()
    g = env.engine
    act(env, "play purple-reverse")
    assert g.direction == -1 and g.current == 0


def test_f_effects_dark_wild_colours() -> None:
    env = dark_env()
    act(env, "play wild")
    assert phase(env) == "color" and legal(env) == {f"color {c}" for c in DARK}
    act(env, "color orange")
    assert color(env) == "orange" and env.engine.current == 2


def test_f_effects_wild_draw_color_accept_draws_until_colour() -> None:
    env = dark_env()
    g = env.engine
    act(env, "play wild-draw-color")
    assert phase(env) == "color" and legal(env) == {f"color {c}" for c in DARK}
    act(env, "color teal")
    assert g.current == 2 and legal(env) == {"challenge", "accept"}
    act(env, "accept")
    # orange-1, a wild (no colour), pink-3, then teal-2: it stops there, the teal is kept
    assert g.hand_len == [7, 6, 11]
    assert set(DARK_DRAWS[:4]) <= set(names_of(env, 2))
    assert pile(env)[0] == DARK_DRAWS[4]
    assert g.current == 0 and color(env) == "teal" and phase(env) == "play"


def test_f_effects_wild_draw_color_first_card_is_the_colour() -> None:
    env = dark_env()
    g = env.engine
    act(env, "play wild-draw-color")
    act(env, "color orange")
    act(env, "accept")
    assert g.hand_len == [7, 6, 8] and DARK_DRAWS[0] in names_of(env, 2)
    assert g.current == 0


def test_f_effects_wild_draw_color_without_challenge_option() -> None:
    env = dark_env(wd_challenge=False)
    g = env.engine
    act(env, "play wild-draw-color")
    act(env, "color pink")  # the victim is not asked: it draws orange-1, the wild, pink-3
    assert g.hand_len == [7, 6, 10] and g.current == 0


def test_f_effects_wild_draw_color_challenge_honest() -> None:
    env = dark_env(DARK1_NO_PURPLE)  # no purple in seat 1's hand: honest
    g = env.engine
    act(env, "play wild-draw-color")
    act(env, "color teal")
    act(env, "challenge")
    # until teal (4 cards), then 2 more
    assert g.hand_len == [7, 6, 13] and set(DARK_DRAWS[:6]) <= set(names_of(env, 2))
    assert g.current == 0 and color(env) == "teal"


def test_f_effects_wild_draw_color_challenge_bluff() -> None:
    env = dark_env()  # seat 1 holds purple cards: a bluff
    g = env.engine
    act(env, "play wild-draw-color")
    act(env, "color teal")
    act(env, "challenge")
    # the player of the Wild Draw Colour draws until teal instead; no 2 extra
    assert g.hand_len == [7, 10, 7] and set(DARK_DRAWS[:4]) <= set(names_of(env, 1))
    assert g.current == 2 and phase(env) == "play" and color(env) == "teal"
    revealed = decoded(env, 2, "revealed")
    assert np.array_equal(revealed, face_counts(
        [dark(n) for n in DARK1 if n != "red-5|wild-draw-color"]))


def exhaust_env(colour: str, hands: Mapping[int, Sequence[str]]) -> raw_env:
    """Ten players on the dark side; every card whose dark face is ``colour`` is in a hand.
    Seat 1 plays a Wild Draw Colour naming ``colour`` and seat 2 accepts: it draws the whole
    pile, then the reshuffled discards (the purple-9 under the Wild Draw Colour), and stops
    when nothing is left."""
    env = dark_start(10, 0, hands={1: ["red-5|wild-draw-color"], **hands},
                     fill=lambda n: dark(n).startswith(colour))
    g = env.engine
    assert not any(dark(n).startswith(colour) for n in pile(env)) and len(pile(env)) == 41
    act(env, "play wild-draw-color")
    act(env, f"color {colour}")
    act(env, "accept")
    assert g.hand_len[2] == 7 + 41 + 1 and "red-flip|purple-9" in names_of(env, 2)
    assert pile(env) == [] and discard(env) == ["red-5|wild-draw-color"]
    assert g.current == 3 and color(env) == colour and phase(env) == "play"
    return env


def test_f_effects_wild_draw_color_exhausts_every_card() -> None:
    env = exhaust_env("teal", {3: ["wild|teal-draw-five"], 5: ["blue-4|teal-flip"]})
    assert sum(env.engine.hand_len) == 112 - 1


def test_f_effects_wild_draw_color_as_last_card_still_names_colour() -> None:
    """G-win-round: the effects of the last card resolve; G-wild-color: the colour is chosen
    before any draw effect. A Wild Draw Colour played as the last card therefore still asks
    its player for the colour, and the victim draws until that colour (then the round is
    scored with those cards)."""
    env = dark_start(2, 0, hands={1: [*DARK_RUN, "red-5|wild-draw-color"], 0: LOSER},
                     draw=[*LOSER_DRAWS, "red-7|teal-2", "wild-draw-two|pink-reverse",
                           "wild-draw-two|purple-2", "green-8|orange-3"], uno_catch="off")
    g = env.engine
    for name in DARK_RUN:
        act(env, f"play {dark(name)}")
    assert g.hand_len == [17, 1] and color(env) == "purple"
    act(env, "play wild-draw-color")
    assert g.current == 1 and phase(env) == "color", (
        "no colour asked for a Wild Draw Colour played as the last card")
    act(env, "color orange")
    assert g.is_over and g.winners() == [1]
    # teal-2, pink-reverse, purple-2, then orange-3: it stops at orange, not at purple
    assert g.hand_len[0] == 21 and "green-8|orange-3" in names_of(env, 0)
    assert g.scores[1] == sum(face_value(dark(n)) for n in names_of(env, 0))


def test_f_flip_dark_to_light_wild_on_top() -> None:
    """After a reshuffle the only discard is wild|teal-draw-five; a teal Flip on it turns the
    pile over and the light Wild comes up: the Flip's player names a light colour."""
    env = exhaust_env("teal", {3: ["wild|teal-draw-five"], 5: ["blue-4|teal-flip"],
                               6: ["wild|purple-8"]})
    g = env.engine
    act(env, "play teal-draw-five")  # seat 4 draws: the reshuffle yields the one card left
    assert g.hand_len[4] == 8 and "red-5|wild-draw-color" in names_of(env, 4)
    assert discard(env) == ["wild|teal-draw-five"] and g.current == 5
    act(env, "play teal-flip")
    assert g.side == 0 and top_face(env) == "wild"
    assert discard(env) == ["blue-4|teal-flip", "wild|teal-draw-five"]
    assert g.current == 5 and legal(env) == {f"color {c}" for c in LIGHT}
    act(env, "color green")
    assert color(env) == "green" and g.current == 6 and phase(env) == "play"


def test_f_flip_dark_to_light_wild_draw_two_on_top() -> None:
    """The same with wild-draw-two|pink-2: the Wild Draw Two that comes up takes a colour
    from the Flip's player and makes nobody draw (its action does not take effect)."""
    seat4 = ["red-6|orange-5", "red-4|orange-3", "red-4|orange-8", "red-3|orange-9",
             "green-8|orange-1", "blue-6|orange-1", "green-7|orange-7"]  # no pink, no 2
    env = exhaust_env("pink", {3: ["wild-draw-two|pink-2"], 4: seat4,
                               5: ["blue-flip|pink-flip"], 6: ["wild|orange-reverse"]})
    g = env.engine
    act(env, "play pink-2")
    # seat 4 cannot play, draws the reshuffled Wild Draw Colour and may play it; it keeps it
    assert g.current == 4 and phase(env) == "drawn" and g.hand_len[4] == 8
    act(env, "pass")
    assert discard(env) == ["wild-draw-two|pink-2"] and g.current == 5
    act(env, "play pink-flip")
    assert g.side == 0 and top_face(env) == "wild-draw-two"
    assert g.current == 5 and legal(env) == {f"color {c}" for c in LIGHT}
    act(env, "color blue")
    assert color(env) == "blue" and g.current == 6 and phase(env) == "play"
    assert g.hand_len[6] == 7 and g.pending == 0


# --- F-which-card ----------------------------------------------------------------------------

TWINS = ("red-7|purple-7", "red-7|teal-2")  # one light face, two dark faces


@pytest.mark.parametrize("order", [TWINS, TWINS[::-1]])
def test_f_which_card_held_longest_is_played(order: tuple[str, str]) -> None:
    hands = {1: list(order), 0: ["wild|purple-8", "red-9|purple-2"]}
    env = flip_env(2, 0, hands=hands, first="red-6|orange-5", uno_catch="off")
    g = env.engine
    act(env, "play red-7")  # the first of the two dealt to seat 1
    assert top(env) == order[0] and order[1] in names_of(env, 1)
    act(env, "play red-9")
    act(env, "play red-7")
    assert top(env) == order[1] and g.hand_len[1] == 5


@pytest.mark.parametrize("keep", [False, True])
def test_f_which_card_drawn_card(keep: bool) -> None:
    """After a draw, ``play red-7`` plays the drawn red-7; kept, it is the newest."""
    hands = {1: [TWINS[0]], 0: ["wild|purple-8", "red-9|purple-2"]}
    env = flip_env(2, 0, hands=hands, first="red-6|orange-5", draw=[TWINS[1]],
                   uno_catch="off")
    g = env.engine
    act(env, "draw")
    assert phase(env) == "drawn" and legal(env) == {"play red-7", "pass"}
    if not keep:
        act(env, "play red-7")
        assert top(env) == TWINS[1] and TWINS[0] in names_of(env, 1)
        return
    act(env, "pass")
    act(env, "play red-9")
    act(env, "play red-7")
    assert top(env) == TWINS[0] and TWINS[1] in names_of(env, 1)
    assert g.hand_len[1] == 7


@pytest.mark.parametrize("order", [("blue-9|teal-3", "blue-4|teal-3"),
                                   ("blue-4|teal-3", "blue-9|teal-3")])
def test_f_which_card_after_flip(order: tuple[str, str]) -> None:
    hands = {1: ["red-flip|purple-3", "red-9|purple-2"], 0: list(order)}
    env = flip_env(2, 0, hands=hands, first="red-2|teal-1", uno_catch="off")
    act(env, "play red-flip")
    assert color(env) == "teal" and env.engine.current == 0
    act(env, "play teal-3")
    assert top(env) == order[0] and order[1] in names_of(env, 0)


# --- F-visibility ----------------------------------------------------------------------------

def check_visibility(env: raw_env) -> None:
    """Every observation shows exactly what F-visibility allows: the other hands' inactive
    faces (relative seat order), the pile top's inactive face, and the observer's own
    inactive faces that it has seen."""
    g = env.engine
    n, nf = g.n, len(V.faces)
    hands = g.hands
    other = env.game.side_faces[g.side ^ 1]

    def counts(ids: list[int]) -> np.ndarray:
        return np.bincount(np.asarray(ids, dtype=np.int64), minlength=nf).astype(np.float32)

    backs = [counts([other[c] for c in h]) for h in hands]
    pile_top = counts([other[g.draw_pile[-1]]] if g.draw_pile else [])
    for s in range(n):
        o = obs(env, s)
        assert o["dark_side"][0] == g.side
        assert np.array_equal(o["hand"], counts([g.faces_of[c] for c in hands[s]]))
        for k in range(1, n):
            block = o["opp_hidden"][(k - 1) * nf:k * nf]
            assert np.array_equal(block, backs[(s + k) % n]), (s, k)
        assert np.array_equal(o["pile_hidden"], pile_top)
        known = counts([other[c] for c in hands[s] if g.known[c]])
        assert np.array_equal(o["own_hidden"], known)


def test_f_visibility_pieces_at_the_deal() -> None:
    env = flip_env(3, 0, hands={1: list(TWINS)}, first="red-6|orange-5",
                   draw=["green-2|pink-3"])
    check_visibility(env)
    for s in range(3):
        o = obs(env, s)
        assert not o["own_hidden"].any()  # dealt cards: their holder has not seen the back
        assert np.array_equal(o["pile_hidden"], face_counts(["pink-3"]))
    # seat 0 sees seat 1's two red-7s as purple-7 and teal-2 (seat 1 is +1 for seat 0, +2
    # for seat 2)
    for seat, k in ((0, 1), (2, 2)):
        block = opp_hidden(env, seat, k)
        assert block[FACE_INDEX["purple-7"]] == 1 and block[FACE_INDEX["teal-2"]] == 1
        assert np.array_equal(block, face_counts([dark(n) for n in names_of(env, 1)]))


def test_f_visibility_drawn_card_back_is_known() -> None:
    env = flip_env(2, 0, hands={1: ["red-7|purple-7"], 0: ["wild|purple-8"]},
                   first="red-6|orange-5", draw=["green-2|pink-3", "blue-3|teal-2"])
    act(env, "draw")  # green-2 cannot be played on red-6: kept
    assert env.engine.current == 0
    check_visibility(env)
    # seat 1 saw pink-3 on top of the pile when it took green-2|pink-3; nothing else
    assert np.array_equal(decoded(env, 1, "own_hidden"), face_counts(["pink-3"]))
    assert np.array_equal(decoded(env, 1, "pile_hidden"), face_counts(["teal-2"]))


def test_f_visibility_after_flip_everything_held_is_known() -> None:
    hands = {1: ["red-flip|purple-3", "red-7|purple-7"], 2: ["green-4|wild"]}
    env = flip_env(3, 0, hands=hands, first="red-2|teal-1", bottom=["yellow-9|orange-9"])
    act(env, "play red-flip")
    check_visibility(env)
    for s in range(3):
        # held through the flip: each player saw the faces that are now hidden
        assert np.array_equal(decoded(env, s, "own_hidden"),
                              face_counts([light(n) for n in names_of(env, s)]))
        assert np.array_equal(decoded(env, s, "pile_hidden"), face_counts(["yellow-9"]))
        assert decoded(env, s, "dark_side")[0] == 1


def _policy_step(env: raw_env, rng: random.Random) -> int:
    """A legal action that is not a Flip (the information test stays on one side); plays
    are preferred to draws, and the red-7 is played whenever it can be."""
    meanings = {a: env.action_meanings[a] for a in env.engine.legal}
    if "play red-7" in meanings.values():
        return env.action_index("play red-7")
    choices = sorted(a for a, m in meanings.items() if not m.endswith("-flip"))
    plays = [a for a in choices if meanings[a] not in ("draw", "pass")]
    return rng.choice(plays if plays and rng.random() < 0.8 else choices)


@pytest.mark.parametrize(("n", "seat"), [(2, 1), (3, 2), (4, 0)])
def test_f_visibility_hidden_face_of_own_card_does_not_leak(n: int, seat: int) -> None:
    """Two games that differ only in the hidden face of one card dealt to ``seat`` (swapped
    with the bottom card of the deck, which has the same light face) look identical to that
    seat, step after step; the other players see the difference."""
    x, y = TWINS
    deck_a = flip_deck(n, 0, hands={seat: [x, "wild|purple-8"]}, first="red-6|orange-5",
                       bottom=[y])
    deck_b = [y if c == x else x if c == y else c for c in deck_a]
    assert sum(a != b for a, b in zip(deck_a, deck_b, strict=True)) == 2
    envs = []
    for deck in (deck_a, deck_b):
        e = raw_env("flip", n)
        e.reset(seed=1, options={"deck": deck, "dealer": 0})
        envs.append(e)
    a, b = envs
    rng = random.Random(n)
    plays_x = False
    for _step in range(40):
        oa, ob = a.observe(a.possible_agents[seat]), b.observe(b.possible_agents[seat])
        assert np.array_equal(oa["observation"], ob["observation"]), f"step {_step}"
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert a.agent_selection == b.agent_selection
        if x in names_of(a, seat):
            for s in range(n):
                if s != seat:  # everyone else sees purple-7 in one game, teal-2 in the other
                    k = (seat - s) % n
                    assert not np.array_equal(opp_hidden(a, s, k), opp_hidden(b, s, k))
        if a.engine.is_over:
            break
        act_ = _policy_step(a, rng)
        plays_x |= a.engine.current == seat and a.action_meanings[act_] == "play red-7"
        a.step(act_)
        b.step(act_)
    assert a.engine.side == 0  # the games never flipped (a flip shows the hidden faces)
    assert plays_x, "the scenario never had the observer play its red-7"


# --- F-score, F-alt-score, F-last-card -------------------------------------------------------

def test_f_score_face_values() -> None:
    for f in V.faces:
        assert f.points == face_value(f.name), f.name
    game = Game("flip", 2)
    assert game.target_score == 500


# Two players, seat 0 deals: seat 1 goes out on the light side without seat 0 ever playing
# (Skip, Skip, Reverse = Skip, Reverse, Draw One, Draw One, then its last card).
LIGHT_RUN = ["red-skip|purple-skip-everyone", "red-skip|teal-5", "red-reverse|orange-7",
             "red-reverse|pink-6", "red-draw-one|orange-skip-everyone", "red-draw-one|pink-1"]
# the same on the dark side (Skip Everyone x2, Reverse x2, Draw Five x2)
DARK_RUN = ["red-skip|purple-skip-everyone", "yellow-draw-one|purple-skip-everyone",
            "yellow-draw-one|purple-reverse", "yellow-flip|purple-reverse",
            "green-3|purple-draw-five", "wild|purple-draw-five"]
LOSER = ["wild|orange-reverse", "wild-draw-two|pink-2", "blue-draw-one|teal-9",
         "yellow-skip|pink-8", "green-flip|teal-4", "blue-3|teal-2", "blue-6|wild-draw-color"]
LOSER_DRAWS = ["green-1|purple-4", "blue-5|pink-draw-five", "red-1|teal-skip-everyone",
               "yellow-4|orange-reverse", "green-reverse|wild", "blue-9|teal-3",
               "green-8|orange-1", "red-3|pink-2", "yellow-8|teal-reverse", "blue-4|teal-3"]


def run_out(env: raw_env, run: Sequence[str], last: str) -> None:
    """Seat 1 plays ``run`` and then ``last`` (by their active faces), calling UNO if the
    rule is on."""
    g = env.engine
    for name in [*run, last]:
        if "uno" in legal(env):
            act(env, "uno")
        face = light(name) if g.side == 0 else dark(name)
        act(env, f"play {face}")


def light_win(last: str, **options: Any) -> raw_env:
    env = flip_env(2, 0, hands={1: [*LIGHT_RUN, last], 0: LOSER}, first="red-5|wild-draw-color",
                   draw=LOSER_DRAWS, **options)
    assert env.engine.current == 1
    run_out(env, LIGHT_RUN, last)
    return env


def dark_win(last: str, **options: Any) -> raw_env:
    env = dark_start(2, 0, hands={1: [*DARK_RUN, last], 0: LOSER}, draw=LOSER_DRAWS,
                     **options)
    assert env.engine.current == 1
    run_out(env, DARK_RUN, last)
    return env


def test_f_score_light_side() -> None:
    env = light_win("red-9|purple-2")
    g = env.engine
    assert g.is_over and g.side == 0 and g.winners() == [1]
    left = [*LOSER, *LOSER_DRAWS[:2]]
    assert names_of(env, 0) == sorted(left)
    value = sum(face_value(light(n)) for n in left)
    assert value == 40 + 50 + 10 + 20 + 20 + 3 + 6 + 1 + 5
    assert g.scores == [0, value] and g.round_results[-1]["hand_values"] == [value, 0]


def test_f_score_dark_side() -> None:
    env = dark_win("red-7|purple-7")
    g = env.engine
    assert g.is_over and g.side == 1 and g.winners() == [1]
    left = [*LOSER, *LOSER_DRAWS]
    assert names_of(env, 0) == sorted(left)
    value = sum(face_value(dark(n)) for n in left)
    assert value == (20 + 2 + 9 + 8 + 4 + 2 + 60) + (4 + 20 + 30 + 20 + 40 + 3 + 1 + 2 + 20 + 3)
    assert g.scores == [0, value]


@pytest.mark.parametrize("scoring", ["winner", "penalty"])
def test_f_last_card_flip_scores_new_side_dark(scoring: str) -> None:
    env = light_win("red-flip|purple-3", scoring=scoring)
    g = env.engine
    assert g.is_over and g.winners() == [1]
    assert g.side == 1  # the last card still flipped everything
    # the first discard's dark face (a Wild Draw Colour) came up: nobody names a colour,
    # nobody draws
    assert top(env) == "red-5|wild-draw-color" and top_face(env) == "wild-draw-color"
    left = [*LOSER, *LOSER_DRAWS[:2]]
    assert names_of(env, 0) == sorted(left)
    dark_value = sum(face_value(dark(n)) for n in left)
    assert dark_value != sum(face_value(light(n)) for n in left)
    assert g.round_results[-1]["hand_values"] == [dark_value, 0]
    assert g.scores == ([0, dark_value] if scoring == "winner" else [dark_value, 0])


def test_f_last_card_flip_scores_new_side_light() -> None:
    env = dark_win("green-9|purple-flip")
    g = env.engine
    assert g.is_over and g.winners() == [1] and g.side == 0
    left = [*LOSER, *LOSER_DRAWS]
    light_value = sum(face_value(light(n)) for n in left)
    assert light_value != sum(face_value(dark(n)) for n in left)
    assert g.scores == [0, light_value]


def test_f_last_card_with_uno_rule() -> None:
    env = light_win("red-flip|purple-3")  # uno_catch="auto": seat 1 calls UNO
    g = env.engine
    assert g.is_over and g.side == 1 and g.hand_len[1] == 0
    assert g.scores[1] == sum(face_value(dark(n)) for n in [*LOSER, *LOSER_DRAWS[:2]])


# Three players: seat 1 plays seven red cards; seats 2 and 0 hold (and draw) nothing that
# matches, so they draw and keep without being asked.
RUN3 = ["red-1|pink-3", "red-1|teal-skip-everyone", "red-2|teal-1", "red-2|teal-draw-five",
        "red-3|orange-9", "red-3|pink-2", "red-4|orange-3"]


def _dead(name: str) -> bool:
    """Light face neither red nor wild, and a 7-9 or an action: matches none of RUN3."""
    lf = light(name)
    action = lf.endswith(("-skip", "-reverse", "-draw-one", "-flip"))
    return not lf.startswith(("red", "wild")) and (lf[-1] in "789" or action)


def penalty_env(**options: Any) -> raw_env:
    env = flip_env(3, 0, hands={1: RUN3}, first="red-6|orange-5", fill=_dead,
                   scoring="penalty", uno_catch="off", **options)
    assert env.engine.current == 1
    for s in (0, 2):
        assert all(_dead(n) for n in names_of(env, s))
    assert all(_dead(n) for n in pile(env)[:12])
    return env


def test_f_alt_score_each_player_scores_own_hand() -> None:
    env = penalty_env()
    g = env.engine
    for name in RUN3:
        act(env, f"play {light(name)}")
    assert g.is_over and g.winners() == [1] and g.hand_len == [13, 0, 13]
    values = [sum(face_value(light(n)) for n in names_of(env, s)) for s in range(3)]
    assert g.scores == values and values[1] == 0 and values[0] > 0 and values[2] > 0
    assert g.round_results[-1]["points"] == values


def test_f_alt_score_match_lowest_total_wins() -> None:
    env = penalty_env(episode="match", target_score=50)
    g = env.engine
    for name in RUN3:
        act(env, f"play {light(name)}")
    assert g.is_over and max(g.scores) >= 50
    assert g.scores[1] == 0 and g.winners() == [1]
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -0.5, "player_1": 1.0, "player_2": -0.5}


def test_f_alt_score_match_tied_lowest_share_the_win() -> None:
    """Scores before the round [v2, v2, 0] (v2: what seat 2 will hold), target v2 + 1: seat
    1 goes out, seat 0 passes the target, and seats 1 and 2 tie for the lowest total."""
    probe = penalty_env()
    for name in RUN3[:-1]:
        act(probe, f"play {light(name)}")
    v2 = probe.engine.hand_value(2)
    env = penalty_env(episode="match", target_score=v2 + 1)
    g = env.engine
    for name in RUN3[:-1]:
        act(env, f"play {light(name)}")
    assert g.hand_value(2) == v2
    snap = json.loads(json.dumps(env.snapshot()))
    snap["scores"] = [v2, v2, 0]  # a reachable mid-match position: all below the target
    env.restore(snap)
    g = env.engine
    act(env, f"play {light(RUN3[-1])}")
    assert g.is_over and g.scores == [v2 + g.hand_value(0), v2, v2]
    assert g.winners() == [1, 2]


# --- snapshot / restore across a flip --------------------------------------------------------

def frame(env: raw_env) -> tuple[Any, ...]:
    """Everything observable now: agent, each observation and mask, state and snapshot."""
    seen = [(a, env.observe(a)["observation"].tobytes(), env.observe(a)["action_mask"].tobytes())
            for a in env.agents]
    return (env.agent_selection, seen, env.state().tobytes(), dict(env.rewards),
            json.dumps(env.snapshot(), sort_keys=True))


def play_on(env: raw_env, steps: int, rng: random.Random | None = None,
            actions: Sequence[int] | None = None) -> tuple[list[int], list[Any]]:
    """``steps`` actions (from ``actions`` or a policy seeded by ``rng``) with a frame after
    each."""
    done: list[int] = []
    frames = [frame(env)]
    for i in range(steps):
        if env.engine.is_over or any(env.truncations.values()):
            break
        if actions is not None:
            a = actions[i]
        else:
            assert rng is not None
            a = _random_action(env, rng)
        env.step(a)
        done.append(a)
        frames.append(frame(env))
    return done, frames


def _random_action(env: raw_env, rng: random.Random) -> int:
    """A random legal action, preferring plays (so that Flips come up)."""
    legal_ = sorted(env.engine.legal)
    plays = [a for a in legal_ if env.action_meanings[a].startswith("play")]
    return rng.choice(plays if plays and rng.random() < 0.7 else legal_)


def restored(env: raw_env, snap: dict[str, Any]) -> raw_env:
    fresh = raw_env("flip", env.num_players, **env.options)
    fresh.restore(json.loads(json.dumps(snap)))
    return fresh


def test_snapshot_restore_across_flip_scenario() -> None:
    first, flip = FLIP_CASES[0]
    hands = {1: [flip, "red-9|purple-2", "red-7|purple-7"], 2: ["green-4|wild", "red-1|pink-3"],
             0: ["blue-9|teal-3", "blue-4|teal-3", "red-3|pink-2"]}
    env = flip_env(3, 0, hands=hands, first=first, draw=["green-1|purple-4", "green-2|pink-3"])
    before = env.snapshot()
    rng = random.Random(5)
    actions, frames = play_on(env, 1, actions=[env.action_index(f"play {light(flip)}")])
    assert env.engine.side == 1
    after = env.snapshot()
    names = env.game.card_names
    held = [[[names[c] for c in cards] for cards in h] for h in env.engine.held]
    more, frames2 = play_on(env, 30, rng=rng)
    # restored before the flip: the flip and what follows replay identically
    again = restored(env, before)
    assert frame(again) == frames[0]
    _, replay = play_on(again, 1 + len(more), actions=[*actions, *more])
    assert replay == frames + frames2[1:]
    # restored on the dark side: hands (with which card is oldest), known backs, piles
    again = restored(env, after)
    assert again.engine.side == 1 and frame(again) == frames2[0]
    # which of two like cards is the oldest (F-which-card) survives the round trip
    assert [[[names[c] for c in cards] for cards in h] for h in again.engine.held] == held
    assert held[0][FACE_INDEX["teal-3"]] == ["blue-9|teal-3", "blue-4|teal-3"]
    for s in range(3):
        assert np.array_equal(decoded(again, s, "own_hidden"),
                              face_counts([light(n) for n in names_of(again, s)]))
    _, replay = play_on(again, len(more), actions=more)
    assert replay == frames2


@pytest.mark.parametrize("answer", ["accept", "challenge"])
def test_snapshot_restore_pending_wild_draw_color(answer: str) -> None:
    """A snapshot taken while the victim of a Wild Draw Colour decides keeps the pending
    draw-until-colour (and the honesty of the play)."""
    env = dark_env()
    act(env, "play wild-draw-color")
    act(env, "color teal")
    snap = env.snapshot()
    _, frames = play_on(env, 1, actions=[env.action_index(answer)])
    again = restored(env, snap)
    _, replay = play_on(again, 1, actions=[env.action_index(answer)])
    assert replay == frames
    assert again.engine.hand_len == ([7, 6, 11] if answer == "accept" else [7, 10, 7])


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_snapshot_restore_across_flip_random_play(n: int) -> None:
    crossed = 0
    for seed in range(20):
        env = raw_env("flip", n, max_steps=2000)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not env.engine.is_over and not any(env.truncations.values()):
            nxt = _random_action(env, rng)
            if env.action_meanings[nxt].endswith("-flip") and env.num_steps > 3:
                break
            env.step(nxt)
        else:
            continue
        snap = env.snapshot()
        side = env.engine.side
        actions, frames = play_on(env, 1, actions=[nxt])
        assert env.engine.side != side  # the Flip turned everything over
        more, frames2 = play_on(env, 40, rng=rng)
        again = restored(env, snap)
        _, replay = play_on(again, 1 + len(more), actions=[*actions, *more])
        assert replay == frames + frames2[1:], f"seed {seed}"
        crossed += 1
        if crossed == 2:
            return
    pytest.fail(f"random play with {n} players never played a Flip")


# --- properties over random play (2, 3, 4 and 10 players) ------------------------------------

def check_engine(env: raw_env, dealt_unknown: set[int]) -> None:
    """Flip invariants: cards conserved; every hand, pile and count shows the active side;
    "play" offers only active faces that match, "color" only the active palette; which card
    is oldest is kept; a hidden face is unknown to its holder only for cards dealt this
    round and held since, with no flip in between."""
    g, game = env.engine, env.game
    hands = g.hands
    nf = len(V.faces)
    every = sorted([c for h in hands for c in h] + g.draw_pile + g.discard)
    assert every == list(range(112))
    assert g.faces_of == game.side_faces[g.side]
    for s in range(g.n):
        want = np.bincount([g.faces_of[c] for c in hands[s]], minlength=nf)
        assert np.array_equal(np.frombuffer(bytes(g.counts[s]), dtype=np.uint8), want)
        assert g.hand_len[s] == len(hands[s])
        for cards in g.held[s]:
            assert [g.acq[c] for c in cards] == sorted(g.acq[c] for c in cards)
        assert all(g.known[c] or c in dealt_unknown for c in hands[s])
    assert np.array_equal(decoded(env, 0, "discard"),
                          np.bincount([g.faces_of[c] for c in g.discard], minlength=nf))
    if g.is_over:
        return
    palette = set(game.colors[g.side])
    for a in g.legal:
        m = env.action_meanings[a]
        if m.startswith("play "):
            f = game.actions.args[a]
            assert game.face_side[f] == g.side or game.face_names[f] == "wild", m
            assert g.counts[g.current][f] > 0, m
        elif m.startswith("color "):
            assert m.split()[1] in palette, m
    assert len(g.legal) >= 2


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_flip_properties_random_play(n: int) -> None:
    flips = 0
    for seed in range(3 if n < 10 else 2):
        env = raw_env("flip", n, max_steps=200)
        env.reset(seed=seed)
        rng = random.Random(seed)
        g = env.engine
        dealt_unknown = {c for h in g.hands for c in h} if g.side == 0 else set()
        check_engine(env, dealt_unknown)
        check_visibility(env)
        while not g.is_over and not any(env.truncations.values()):
            side = g.side
            env.step(_random_action(env, rng))
            if g.side != side:
                flips += 1
                dealt_unknown = set()
                for h in g.hands:  # everything held through the flip is known
                    assert all(g.known[c] for c in h)
            check_engine(env, dealt_unknown)
            check_visibility(env)
    assert flips >= 2, f"only {flips} flips in the random games with {n} players"

