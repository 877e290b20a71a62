"""Inference from forced draws and challenges (uno_env.inference): every fact the tracker keeps is
true of the real opponent hand, determinizations obey the facts, and draws are read only where
they are forced."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from uno_env import agents, raw_env
from uno_env.determinize import determinize, observation_layout
from uno_env.inference import Avoid, DrawTracker, respect, tracks
from uno_env.rules.game import Game


def _view(env: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    """The engine state, and the observation and mask of the seat to act."""
    s = env.engine
    mask = np.zeros(env.game.num_actions, np.int8)
    mask[s.legal] = 1
    return s, env.layout.build(s, s.current), mask


def _bad(counts: list[int] | bytearray, av: Avoid) -> int:
    return sum(int(counts[f]) for f in np.flatnonzero(av.faces))


@pytest.mark.parametrize("opponent", ["rule", "random"])
def test_every_inference_holds_for_the_real_hand(opponent: str) -> None:
    env = raw_env("classic", 2, uno_catch="decision")
    g = env.game
    seat0 = agents.load("rule", variant="classic", num_players=2, uno_catch="decision")
    other = agents.load(opponent, variant="classic", num_players=2, seed=1,
                        uno_catch="decision")
    facts = sampled = 0
    for game in range(60):
        env.reset(seed=game)
        tracker = DrawTracker(g, observation_layout(g))
        rng = random.Random(game)
        while not env.engine.is_over:
            s, obs, mask = _view(env)
            p = s.current
            if p == 0:
                tracker.observe(obs)
                for av in tracker.avoid:
                    assert _bad(s.counts[1], av) <= av.allowed
                    facts += 1
                assert all(s.counts[1][f] >= k for f, k in enumerate(tracker.must))
                if tracker.avoid and facts % 5 == 0:
                    d = determinize(g, obs, mask, rng, avoid=tracker.avoid, must=tracker.must)
                    assert d.legal == s.legal and d.hand_len == s.hand_len
                    for av in tracker.avoid:
                        assert _bad(d.counts[1], av) <= av.allowed
                    assert all(d.counts[1][f] >= k for f, k in enumerate(tracker.must))
                    sampled += 1
                a = seat0.act(obs, mask) if game % 2 else rng.choice(s.legal)
                tracker.acted(a)
            else:
                a = other.act(obs, mask)
            env.step(a)
    assert facts > 50 and sampled > 5  # the check is not vacuous


def test_assumed_forced_draws_hold_against_rule_at_a_voluntary_table() -> None:
    """``assume_forced`` is a model of the opponent: ``rule`` draws only when it cannot play,
    so at a voluntary-draw table every fact read that way is true of its real hand."""
    env = raw_env("classic", 2, voluntary_draw=True)
    g = env.game
    other = agents.load("rule", variant="classic", num_players=2, voluntary_draw=True)
    facts = 0
    for game in range(60):
        env.reset(seed=game)
        tracker = DrawTracker(g, observation_layout(g), assume_forced=True)
        assert tracker.forced
        rng = random.Random(game)
        while not env.engine.is_over:
            s, obs, mask = _view(env)
            if s.current == 0:
                tracker.observe(obs)
                for av in tracker.avoid:
                    assert _bad(s.counts[1], av) <= av.allowed
                    facts += 1
                a = rng.choice(s.legal)
                tracker.acted(a)
            else:
                a = other.act(obs, mask)
            env.step(a)
    assert facts > 50


def test_a_forced_draw_is_read() -> None:
    """Seat 1 draws facing a red 5 and keeps the card: it held nothing red, no 5, no wild."""
    g = Game("classic", 2)
    lay = observation_layout(g)
    env = raw_env("classic", 2)
    tracker = DrawTracker(g, lay)
    for seed in range(200):
        env.reset(seed=seed)
        tracker.reset()
        while not env.engine.is_over:
            s = env.engine
            if s.current == 0:
                before = len(tracker.avoid)
                tracker.observe(lay.build(s, 0))
                if len(tracker.avoid) > before:
                    av = tracker.avoid[-1]
                    top = s.faces_of[s.discard[-1]]
                    assert av.allowed == 1 and av.faces[top]
                    assert all(av.faces[f] for f in range(g.num_faces) if g.face_color[f] == 4)
                    assert not any(av.faces[f] for f in range(g.num_faces)
                                   if g.face_color[f] not in (s.active_color, 4)
                                   and g.face_symbol[f] != g.face_symbol[top])
                    return
                a = s.legal[0]
                tracker.acted(a)
            else:
                a = s.legal[0]
            env.step(a)
    pytest.fail("no forced draw met in 200 games")


def test_respect_swaps_with_the_pile_only() -> None:
    g = Game("classic", 2)
    faces = np.zeros(g.num_faces, dtype=bool)
    faces[[0, 1, 2]] = True
    card_of = {f: [c for c in range(g.num_cards) if g.side_faces[0][c] == f] for f in range(3)}
    hand = [card_of[0][0], card_of[1][0], card_of[2][0], 50, 60]
    pile = list(range(70, 100))
    before = sorted(hand + pile)
    respect(g, hand, pile, [Avoid(faces, 1)], random.Random(0))
    assert sorted(hand + pile) == before
    assert sum(faces[g.side_faces[0][c]] for c in hand) == 1


def test_where_the_tracker_reads_what() -> None:
    g = Game("classic", 2)
    assert tracks(g) and DrawTracker(g, observation_layout(g)).forced
    voluntary = Game("classic", 2, voluntary_draw=True)
    assert tracks(voluntary) and not DrawTracker(voluntary, observation_layout(voluntary)).forced
    assert not tracks(Game("classic", 3))
    assert not tracks(Game("flip", 2))
    assert not tracks(Game("classic", 2, jump_in=True))


def test_a_challenge_shows_cards_the_opponent_still_holds() -> None:
    """Seat 0 challenges every wild draw (the shown hand is kept less what seat 1 plays since):
    the real hand always holds what the tracker says it must, and samples hold it too."""
    env = raw_env("classic", 2, voluntary_draw=True)
    g = env.game
    other = agents.load("rule", variant="classic", num_players=2, voluntary_draw=True)
    shown = checked = 0
    for game in range(150):
        env.reset(seed=game)
        tracker = DrawTracker(g, observation_layout(g))
        assert not tracker.forced  # voluntary draws: no Avoid facts, only what is shown
        rng = random.Random(game)
        while not env.engine.is_over:
            s, obs, mask = _view(env)
            if s.current == 0:
                tracker.observe(obs)
                assert not tracker.avoid
                if tracker.must.any():
                    checked += 1
                    assert all(s.counts[1][f] >= k for f, k in enumerate(tracker.must))
                    d = determinize(g, obs, mask, rng, must=tracker.must)
                    assert d.legal == s.legal
                    assert all(d.counts[1][f] >= k for f, k in enumerate(tracker.must))
                a = g.actions.challenge if g.actions.challenge in s.legal else rng.choice(
                    [x for x in s.legal if x != g.actions.draw] or s.legal)
                shown += a == g.actions.challenge
                tracker.acted(a)
            else:
                a = other.act(obs, mask)
            env.step(a)
    assert shown > 5 and checked > 20  # the check is not vacuous
