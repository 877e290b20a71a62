"""snapshot()/restore() round trips: a restored game (in the same env, in a fresh env, or in
one playing another episode) continues exactly as the original did, mid-game, in every
decision phase the variant's options open, and across rounds of a match.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from conftest import (
    VARIANTS,
    episode_over,
    maximal_options,
    option_combos,
    play_policy,
    player_counts,
)

import uno_env

REQUIRED_KEYS = {"hands", "draw_pile", "discard", "active_color", "direction", "current",
                 "phase", "scores", "dealer", "rng"}
CONTINUE = 40


def _frame(e: Any) -> tuple[Any, ...]:
    """Everything observable about the env now: agent, every observation and mask, state,
    rewards, flags and the snapshot itself."""
    obs = []
    for a in e.agents:
        o = e.observe(a)
        obs.append((a, o["observation"].tobytes(), o["action_mask"].tobytes()))
    return (e.agent_selection, obs, e.state().tobytes(), dict(e.rewards),
            dict(e._cumulative_rewards), dict(e.terminations), dict(e.truncations),
            e.num_steps, e.snapshot())


def _continue(e: Any, rng: random.Random | None = None,
              actions: list[int] | None = None) -> tuple[list[int], list[Any]]:
    """Play CONTINUE steps (policy from ``rng``, or the given ``actions``), recording every
    frame; then reset() once more, which continues the env's own seed sequence."""
    frames = [_frame(e)]
    done: list[int] = []
    for i in range(CONTINUE):
        if episode_over(e):
            break
        if actions is not None:
            a = actions[i]
        else:
            assert rng is not None
            a = play_policy(rng, e)
        e.step(a)
        done.append(a)
        frames.append(_frame(e))
    if actions is not None:
        assert done == actions, "the restored game ended at another step"
    e.reset()
    frames.append(_frame(e))
    return done, frames


def _same(want: list[Any], got: list[Any], where: str) -> None:
    assert len(want) == len(got), f"{where}: {len(got)} frames instead of {len(want)}"
    for i, (x, y) in enumerate(zip(want, got, strict=True)):
        assert x == y, f"{where}: diverged {i} steps after the snapshot"


def _round_trip(make: Callable[[], Any], e: Any, rng: random.Random) -> list[Any]:
    """Snapshot ``e`` now and check that every way of restoring it replays identically."""
    snap = e.snapshot()
    assert set(snap) >= REQUIRED_KEYS, REQUIRED_KEYS - set(snap)
    text = json.dumps(snap)
    assert json.loads(text) == snap, "snapshot does not survive a JSON round trip"
    actions, frames = _continue(e, rng)

    e.restore(json.loads(text))  # the same env, after the continuation and a reset
    assert e.snapshot() == snap
    _same(frames, _continue(e, actions=actions)[1], "restored into the same env")

    other = make()  # a fresh env in the middle of another episode
    other.reset(seed=12345)
    for _ in range(5):
        if not episode_over(other):
            other.step(play_policy(random.Random(1), other))
    other.restore(json.loads(text))
    _same(frames, _continue(other, actions=actions)[1], "restored into another env")

    never_reset = make()  # a fresh env that was never reset
    never_reset.restore(json.loads(text))
    _same(frames, _continue(never_reset, actions=actions)[1], "restored into a new env")
    return frames


def _mid_game_cases() -> list[tuple[str, int, dict[str, Any], int]]:
    cases = []
    for v in VARIANTS:
        combos = option_combos(v)
        rng = random.Random(3)
        for k, opts in enumerate(rng.sample(combos, min(6, len(combos)))):
            counts = player_counts(v, opts)
            cases.append((v, counts[k % len(counts)], opts, k))
    return cases


@pytest.mark.parametrize(("variant", "n", "opts", "k"), _mid_game_cases())
def test_round_trip_mid_game(variant: str, n: int, opts: dict[str, Any], k: int) -> None:
    for seed in (k, k + 100):
        def make() -> Any:
            return uno_env.raw_env(variant, n, **opts)

        e = make()
        e.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 80)):
            if episode_over(e):
                break
            e.step(play_policy(rng, e))
        _round_trip(make, e, rng)


def _enabled(variant: str, phase: str) -> bool:
    """Whether the maximal options of ``variant`` open ``phase`` (from option and action
    names, so other variants are judged by what they offer)."""
    opts = maximal_options(variant)
    meanings = uno_env.raw_env(variant, 2, **opts).action_meanings
    return {
        "drawn": True, "color": True,
        "challenge": "challenge" in meanings, "catch": "catch" in meanings,
        "stack": bool(opts.get("stacking")), "jump-in": bool(opts.get("jump_in")),
        "reverse-back": bool(opts.get("reverse_back")),
        "target": any(m.startswith("target") for m in meanings),
    }.get(phase, False)


PHASES = [p for p in uno_env.PHASES if p not in ("play", "over")]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("phase", PHASES)
def test_round_trip_in_every_decision_phase(variant: str, phase: str) -> None:
    """Snapshot while a decision of ``phase`` is pending (mid-catch, mid-challenge, after a
    draw, ...) and continue from there."""
    if not _enabled(variant, phase):
        pytest.skip(f"{variant} has no {phase!r} decision")
    opts = maximal_options(variant)
    if phase == "catch":  # the catch phase exists with the one-turn window only (G-uno)
        opts["catch_window"] = "turn"
    found = 0
    for seed in range(40):
        n = player_counts(variant, opts)[seed % 2]

        def make(n: int = n) -> Any:
            return uno_env.raw_env(variant, n, **opts)

        e = make()
        e.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(2000):
            if episode_over(e) or e.phase == phase:
                break
            e.step(play_policy(rng, e))
        if e.phase != phase or episode_over(e):
            continue
        assert e.snapshot()["phase"] == phase
        _round_trip(make, e, rng)
        found += 1
        if found == 2:
            return
    pytest.fail(f"random play never reached a {phase!r} decision in {variant}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_round_trip_right_after_playing_a_drawn_card(variant: str) -> None:
    """G-draw-then-play: the state just after a drawn card was played (colour choice,
    challenge, catch, next turn...) restores; the drawn card is no longer in any hand."""
    opts = maximal_options(variant)
    checked = 0
    for seed in range(30):
        def make() -> Any:
            return uno_env.raw_env(variant, 2, **opts)

        e = make()
        e.reset(seed=seed)
        rng = random.Random(seed)
        while not episode_over(e) and checked < 25:
            was_drawn = e.phase == "drawn"
            a = play_policy(rng, e)
            e.step(a)
            if was_drawn and e.action_meanings[a].startswith("play") and not episode_over(e):
                snap = json.loads(json.dumps(e.snapshot()))
                fresh = make()
                fresh.restore(snap)
                assert fresh.snapshot() == snap, f"seed {seed}, step {e.num_steps}"
                checked += 1
    assert checked, "random play never played a drawn card"


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("reward", ["win_loss", "points"])
def test_round_trip_across_rounds_of_a_match(variant: str, reward: str) -> None:
    """episode="match": snapshots just before a round ends and early in the next round
    replay the new deal (drawn from the game's RNG), the scores and the round rewards."""
    crossed = 0
    for seed in range(2):
        def make() -> Any:
            return uno_env.raw_env(variant, 3, reward=reward, episode="match")

        probe = make()
        probe.reset(seed=seed)
        rng = random.Random(seed)
        while not episode_over(probe) and not probe.engine.round_results:
            probe.step(play_policy(rng, probe))
        end = probe.num_steps  # the step that ended the first round
        assert probe.engine.round_results, "the first round did not end"
        for at in (max(0, end - 3), end + 4):
            e = make()
            e.reset(seed=seed)
            rng = random.Random(seed)
            for _ in range(at):
                if episode_over(e):
                    break
                e.step(play_policy(rng, e))
            rounds = len(e.engine.round_results)
            frames = _round_trip(make, e, rng)
            after = frames[-2][-1]  # the snapshot in the last frame before the reset
            crossed += len(after["round_results"]) > rounds
            if at > end:
                assert rounds >= 1 and any(after["scores"])
    assert crossed, "no continuation crossed the end of a round"
