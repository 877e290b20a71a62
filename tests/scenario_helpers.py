"""Fixed-deck scenario building for the rule tests (rule ids of docs/games/ in test names).

``make_deck`` turns "who holds what, what is turned up, what lies on the draw pile" into a
full deck order for ``env.reset(options={"deck": ..., "dealer": ...})``; every card not named
is filled in from the variant's deck in its fixed order, so a scenario is a permutation of the
whole deck and fully deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from uno_env import raw_env
from uno_env.rules.codes import PHASES
from uno_env.variants import find_variant


def make_deck(
    variant: str = "classic",
    num_players: int = 2,
    dealer: int = 0,
    hands: Mapping[int, Sequence[str]] | None = None,
    first: str | None = None,
    draw: Sequence[str] = (),
    hand_size: int | None = None,
    bottom: Sequence[str] = (),
) -> list[str]:
    """A full deck order (top of the draw pile first) that deals ``hands`` (seat -> card
    names; short hands are topped up), turns up ``first`` as the first discard (default: the
    first unused number card), puts ``draw`` on top of the draw pile (top first) and
    ``bottom`` at the very bottom of the deck; the rest keeps the variant's deck order."""
    v = find_variant(variant)
    size = v.hand_size if hand_size is None else hand_size
    hands = dict(hands or {})
    pool = list(v.card_names)

    def take(name: str) -> str:
        try:
            pool.remove(name)
        except ValueError:
            raise ValueError(f"no {name!r} left in the {variant} deck for this scenario") from None
        return name

    for seat, cards in hands.items():
        if not 0 <= seat < num_players:
            raise ValueError(f"seat {seat} is not a seat 0-{num_players - 1}")
        if len(cards) > size:
            raise ValueError(f"seat {seat} is given {len(cards)} cards; hands hold {size}")
        for name in cards:
            take(name)
    chosen_first = take(first) if first is not None else None
    top = [take(name) for name in draw]
    low = [take(name) for name in bottom]
    if chosen_first is None:
        numbers = {f.name for f in v.faces if f.is_number}
        chosen_first = next(name for name in pool if name in numbers)
        pool.remove(chosen_first)
    full_hands = {s: list(hands.get(s, ())) for s in range(num_players)}
    for s in range(num_players):
        while len(full_hands[s]) < size:
            full_hands[s].append(pool.pop(0))
    deal: list[str] = []
    for k in range(size):
        for i in range(1, num_players + 1):
            deal.append(full_hands[(dealer + i) % num_players][k])
    return deal + [chosen_first] + top + pool + low


# The publisher's rules (Flip, Flex and Express defaults); classic defaults to the seeds'.
SCENARIO_RULES: dict[str, Any] = {"voluntary_draw": True, "catch_window": "turn"}


def new_env(
    num_players: int = 2,
    dealer: int = 0,
    hands: Mapping[int, Sequence[str]] | None = None,
    first: str | None = None,
    draw: Sequence[str] = (),
    bottom: Sequence[str] = (),
    seed: int = 0,
    variant: str = "classic",
    env_kwargs: Mapping[str, Any] | None = None,
    **options: Any,
) -> raw_env:
    """A reset ``raw_env`` dealt from :func:`make_deck` (``options`` are rule options,
    ``env_kwargs`` the environment's own: reward, max_steps, ...).

    Scenarios play with voluntary draws and the one-turn catch window unless they say
    otherwise (:data:`SCENARIO_RULES`): most were written as move-by-move sequences that draw
    while holding a playable card. The tests of G-draw and G-uno pass both settings."""
    options = {**SCENARIO_RULES, **options}
    env = raw_env(variant, num_players, **dict(env_kwargs or {}), **options)
    deck = make_deck(variant, num_players, dealer, hands, first, draw, bottom=bottom)
    env.reset(seed=seed, options={"deck": deck, "dealer": dealer})
    return env


def act(env: raw_env, meaning: str) -> None:
    """Step the selected agent with the action named ``meaning`` ("play red-5", "draw")."""
    assert env.agent_selection == env.possible_agents[env.engine.current]
    env.step(env.action_index(meaning))


def legal(env: raw_env) -> set[str]:
    """Meanings of the actions legal now."""
    return {env.action_meanings[a] for a in env.engine.legal}


def hand(env: raw_env, seat: int) -> list[str]:
    """Card names in a seat's hand, sorted."""
    names = env.game.card_names
    return sorted(names[c] for c in env.engine.hands[seat])


def top(env: raw_env) -> str:
    return env.game.card_names[env.engine.discard[-1]]


def discard(env: raw_env) -> list[str]:
    names = env.game.card_names
    return [names[c] for c in env.engine.discard]


def pile(env: raw_env) -> list[str]:
    """The draw pile, top first."""
    names = env.game.card_names
    return [names[c] for c in reversed(env.engine.draw_pile)]


def phase(env: raw_env) -> str:
    return PHASES[env.engine.phase]


def color(env: raw_env) -> str | None:
    ac = env.engine.active_color
    return None if ac >= 4 else env.game.colors[0][ac]


def points(name: str) -> int:
    """C-score value of one classic card."""
    v = find_variant("classic")
    return next(f.points for f in v.faces if f.name == name)


def obs(env: raw_env, seat: int) -> dict[str, Any]:
    """The decoded observation of a seat (named pieces)."""
    return env.layout.decode(env.observe(env.possible_agents[seat])["observation"])


# --- shared scenarios ----------------------------------------------------------------------------

# Seat 1 (first to act when seat 0 deals to two players) can run through these five cards
# without seat 0 ever getting a turn: Skip, Skip, Reverse (= Skip with two players), Reverse,
# Draw Two (seat 0 draws the top two cards of the pile and is skipped).
PREFIX = ["red-skip", "red-skip", "red-reverse", "red-reverse", "red-draw-two"]
# Seat 0's hand (value 31): it matches none of PREFIX, and its red-1 lets seat 0 answer a red
# card (so it is asked to play rather than made to draw).
SEAT0 = ["red-1", "blue-2", "green-3", "green-4", "yellow-6", "yellow-7", "blue-8"]
PREFIX_DRAWS = ["green-1", "green-2"]  # what seat 0 takes for the prefix's Draw Two


def card_value(name: str) -> int:
    """C-score, written independently of the engine's tables."""
    if name.startswith("wild"):
        return 50
    last = name.rsplit("-", 1)[-1]
    return int(last) if last.isdigit() else 20


def hand_total(env: raw_env, seat: int) -> int:
    return sum(card_value(c) for c in hand(env, seat))


def two_card_env(last_two: list[str], draw: list[str] | None = None,
                 seat0: list[str] | None = None, **options: Any) -> raw_env:
    """Two players, seat 0 deals, red-5 turned up; seat 1 plays PREFIX and then holds
    ``last_two`` with the turn (top: red-draw-two, active colour red). Seat 0 holds ``seat0``
    (default SEAT0) and has not played."""
    hands = {1: PREFIX + last_two, 0: SEAT0 if seat0 is None else seat0}
    env = new_env(2, 0, hands=hands, first="red-5",
                  draw=PREFIX_DRAWS + list(draw or []), **options)
    for card in PREFIX:
        act(env, f"play {card}")
    assert env.engine.current == 1 and hand(env, 1) == sorted(last_two)
    return env


def quick_win_env(last: str = "red-9", draw: list[str] | None = None,
                  seat0: list[str] | None = None, **options: Any) -> raw_env:
    """Seat 1 goes out in eight steps: PREFIX, UNO, red-draw-two, ``last``. With the
    defaults seat 0 ends holding SEAT0 + green-1, green-2, yellow-1, yellow-2 (37 points)."""
    env = two_card_env(["red-draw-two", last],
                       draw=list(draw) if draw is not None else ["yellow-1", "yellow-2"],
                       seat0=seat0, **options)
    act(env, "uno")
    act(env, "play red-draw-two")
    act(env, f"play {last}")
    return env


def drain(env: raw_env) -> None:
    """Everyone draws (and keeps what they draw) until the draw pile is empty."""
    while env.engine.draw_pile or phase(env) == "drawn":
        assert phase(env) in ("play", "drawn")
        act(env, "pass" if phase(env) == "drawn" else "draw")


# Three players: seats 2 and 0 hold (and draw) only cards that match nothing seat 1 plays, so
# the engine draws for them and only seat 1 is ever asked to play.
RUN3 = ["red-1", "red-1", "red-2", "red-2", "red-3", "red-3", "red-4"]
DEAD3 = [f"{c}-{x}" for x in ("6", "7", "8", "9", "skip", "reverse", "draw-two")
         for c in ("yellow", "green", "blue") for _ in range(2)]


def three_player_env(**options: Any) -> raw_env:
    """Three players, seat 0 deals, red-5 turned up; seat 1 holds RUN3 and is the only one
    ever asked to play (unless a rule option asks the others something)."""
    return new_env(3, 0, hands={1: RUN3, 2: DEAD3[0:7], 0: DEAD3[7:14]}, first="red-5",
                   draw=DEAD3[14:40], **options)
