"""The checklists of docs/architecture.md, followed for a toy variant with a new card effect.

``Mini`` is defined here, not in ``uno_env/variants/``: a tiny deck (0-3 in four colours,
Skip, a new "Skip Two" card, Wilds), hands of 4, 2-4 players. It is registered for the test
only (the fixture takes it out again, so other tests' loops over the registry never see it)
and then goes through the environment API checks every shipped variant goes through.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import uno_env
from uno_env.cards import NUMBER, SKIP, WILD_PLAIN, ActionRow, Face, one_sided_deck, wild_face
from uno_env.rules.codes import EFFECT_CODES
from uno_env.variants import base
from uno_env.variants.base import COMMON_OPTIONS, EffectTable, Variant, register

pytestmark = [  # the dict observation, as in tests/test_api.py
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
]

SKIP_TWO = "skip-two"  # the new effect: the next two players lose their turn


def skip_two(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """The toy effect: the turn passes to the third player from ``p`` (no decision asked)."""
    s.next_seat = (p + 3 * s.direction) % s.n
    return False


class Mini(Variant):
    """Checklist "adding a variant": deck data, players, options, and one new effect."""

    name = "mini"
    aliases = ("toy",)
    min_players, max_players, hand_size = 2, 4, 4
    options = {k: COMMON_OPTIONS[k] for k in ("uno_catch", "scoring", "target_score",
                                               "episode", "voluntary_draw")}
    effects = {SKIP_TWO: skip_two}  # checklist "adding a card effect": name -> handler

    def build_deck(self) -> tuple[Sequence[Face], Sequence[tuple[int, ...]]]:
        numbers = {0: 1, 1: 2, 2: 2, 3: 2}
        actions = [ActionRow("skip", SKIP, 20), ActionRow("skip-two", SKIP_TWO, 30, copies=1)]
        return one_sided_deck(numbers, actions, [(wild_face("wild", WILD_PLAIN, 50), 2)])


@pytest.fixture
def mini() -> Iterator[type[Variant]]:
    """Register Mini for one test, then restore the registry (and the effect codes)."""
    codes = dict(EFFECT_CODES)
    register(Mini)
    try:
        yield Mini
    finally:
        base._REGISTRY.pop("mini", None)
        for alias in ("mini", "toy"):
            base._ALIASES.pop(alias, None)
        base._INSTANCES.pop("mini", None)
        EFFECT_CODES.clear()
        EFFECT_CODES.update(codes)


def test_the_registry_finds_the_toy_variant(mini: type[Variant]) -> None:
    assert "mini" in uno_env.list_variants()
    v = uno_env.find_variant("toy")
    assert v.name == "mini" and v.env_name == "uno_mini_v0"
    assert len(v.card_names) == 4 * (7 + 2 + 1) + 2
    assert any(f.effect == SKIP_TWO for f in v.faces)
    assert sum(f.effect == NUMBER for f in v.faces) == 16


def test_pettingzoo_api_and_seed_checks_pass(mini: type[Variant]) -> None:
    for n in (2, 3, 4):
        api_test(uno_env.env("mini", n, max_steps=300), num_cycles=10)
        seed_test(lambda n=n: uno_env.env("mini", n, max_steps=300), num_cycles=10)


def test_options_players_and_spaces_follow_the_variant(mini: type[Variant]) -> None:
    env = uno_env.raw_env("mini", 3)
    assert env.metadata["name"] == "uno_mini_v0"
    meanings = env.action_meanings
    assert "play red-skip-two" in meanings and "play wild" in meanings
    assert env.observation_space("player_0")["observation"].shape == (env.layout.size,)
    with pytest.raises(ValueError, match="num_players must be 2-4 for mini"):
        uno_env.raw_env("mini", 5)
    with pytest.raises(ValueError, match="unknown option 'stacking' for mini"):
        uno_env.raw_env("mini", 2, stacking=True)


def _deal(first_hand: list[str], top: str, n: int) -> list[str]:
    """A full deck order (top first) that deals ``first_hand`` to seat 1 (the dealer is 0)
    and turns up ``top``; the other cards follow in deck order."""
    rest = list(uno_env.find_variant("mini").card_names)
    for c in (*first_hand, top):
        rest.remove(c)
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[1] = list(first_hand)
    for seat in (0, *range(2, n)):
        hands[seat] = [rest.pop() for _ in range(4)]
    order = [seat % n for seat in range(1, 1 + n * 4)]  # dealt from the dealer's left
    deck = [hands[s].pop(0) for s in order]
    return [*deck, top, *rest]


def test_the_new_effect_skips_two_players(mini: type[Variant]) -> None:
    env = uno_env.raw_env("mini", 4)
    deck = _deal(["red-skip-two", "blue-1", "blue-2", "green-3"], "red-0", 4)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    assert env.agent_selection == "player_1"
    env.step(env.action_index("play red-skip-two"))
    assert env.agent_selection == "player_0"  # seats 2 and 3 lose their turn


def test_random_games_end_and_snapshots_restore(mini: type[Variant]) -> None:
    rng = np.random.default_rng(0)
    for seed in range(20):
        env = uno_env.raw_env("mini", 3, max_steps=5000)
        env.reset(seed=seed)
        steps = 0
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            if steps == 5:
                snap: dict[str, Any] = env.snapshot()
                again = uno_env.raw_env("mini", 3, max_steps=5000)
                again.reset(seed=seed)
                again.restore(snap)
                assert again.snapshot() == snap
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
        assert all(env.terminations.values())  # a finished round, not a truncation


def test_the_batch_engine_refuses_the_toy_variant_clearly(mini: type[Variant]) -> None:
    """Checklist "adding a card effect", last step: the kernels lack skip-two, so every batch
    entry refuses the variant at construction, naming the effect and the known ones."""
    with pytest.raises(ValueError, match="vector_env does not support variant 'mini'") as e:
        uno_env.vector_env("mini", 2, 4)
    msg = str(e.value)
    assert "effect 'skip-two'" in msg and "skip_two" in msg and "has no kernel" in msg
    assert "knows the effects number, skip, reverse" in msg and "target-draw" in msg
    assert "phases play, drawn" in msg and "jump-in, reverse-back, target" in msg
    assert msg.count("has no kernel") == 1  # its other effects and hooks are known
