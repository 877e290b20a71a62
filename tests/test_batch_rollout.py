"""Batch-engine rollouts for search (uno_env.batch.rollout): the kernel's default policy is the
Python one (``uno_env.agents.default_policy.rollout_action``), copies keep everything but the
hidden pile order, and playouts end their round with results that add up."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from uno_env import raw_env
from uno_env.agents.default_policy import playout, rollout_action
from uno_env.batch import layout as L
from uno_env.batch.convert import from_state, to_state
from uno_env.batch.rollout import Rollouts, policy_action, policy_tables, replicate
from uno_env.batch.vector import VectorEnv
from uno_env.determinize import determinize

CONFIGS = [("classic", 2), ("classic", 4), ("flip", 2), ("flip", 3), ("flex", 2),
           ("flex", 4), ("express", 2), ("express", 3)]
OPTS = {"uno_catch": "decision", "voluntary_draw": True}


def _positions(variant: str, n: int, count: int, seed: int) -> list:
    """Engine states met in random games (copies), at every kind of decision."""
    env = raw_env(variant, n, **OPTS)
    rng = random.Random(seed)
    out = []
    env.reset(seed=seed)
    while len(out) < count:
        if env.engine.is_over:
            env.reset()
        s = env.engine
        out.append(s.clone())
        env.step(rng.choice(s.legal))
    return out


@pytest.mark.parametrize(("variant", "n"), CONFIGS)
def test_kernel_policy_makes_a_choice_of_the_python_policy(variant: str, n: int) -> None:
    v = VectorEnv(variant, n, 1, observations=False, **OPTS)
    v.reset(seed=0)
    act, face = policy_tables(v._game)
    held = np.zeros(5, np.int64)
    gen = np.array([7], np.uint64)
    kinds = Counter()
    for st in _positions(variant, n, 150, seed=3):
        from_state(v._s, v._t, st, 0)
        got = policy_action(v._s, v._t, 0, act, face, gen, held)
        # the Python policy's choices over many tie-breaks: the kernel's must be one of them
        choices = {rollout_action(st, random.Random(k)) for k in range(40)}
        assert got in choices, (st.legal, got, choices)
        kinds[v._game.actions.types[got]] += 1
    assert len(kinds) >= 2  # more than plays alone (colour choices, draws, calls) were checked


@pytest.mark.parametrize(("variant", "n"), [("classic", 2), ("flip", 2)])
def test_replicate_reshuffles_only_the_hidden_pile_order(variant: str, n: int) -> None:
    st = _positions(variant, n, 30, seed=5)[-1]
    v = VectorEnv(variant, n, 6, observations=False, **OPTS)
    v.reset(seed=0)
    from_state(v._s, v._t, st, 0)
    gen = np.arange(6, dtype=np.uint64)
    replicate(v._s, 0, 1, 6, gen)
    s = v._s
    k = int(s.S[0, L.PILE_LEN])
    orders = set()
    for j in range(1, 6):
        for name, a in s._asdict().items():
            if name not in ("pile", "rng"):
                assert np.array_equal(a[j], a[0]), name
        assert s.pile[j, k - 1] == s.pile[0, k - 1]  # the top stays (Flip shows its back)
        assert sorted(s.pile[j, :k]) == sorted(s.pile[0, :k])
        orders.add(tuple(s.pile[j, :k]))
        copy = to_state(s, v._t, v._game, j)
        assert copy.legal == st.legal and copy.hand_len == st.hand_len
    assert len(orders) == 5  # every copy has its own order


@pytest.mark.parametrize(("variant", "n"), CONFIGS)
def test_rollouts_end_the_round_and_share_it(variant: str, n: int) -> None:
    states = _positions(variant, n, 12, seed=9)
    r = Rollouts(variant, n, leaves=len(states), per_leaf=4, **OPTS)
    for st in states:
        r.add(st)
    assert r.full
    shares = r.run(seed=1)
    assert shares.shape == (len(states), n)
    assert np.allclose(shares.sum(axis=1), 1.0)
    assert r.count == 0 and r.decisions > 0
    # a finished round gives each copy's whole point to one seat: means are multiples of 1/4
    s = r._s
    ended = s.S[:len(states) * 4, L.NROUNDS] > 0
    assert ended.mean() > 0.9
    with pytest.raises(RuntimeError, match="queued"):
        for st in states + states:
            r.add(st)


def test_batch_playouts_agree_with_python_playouts() -> None:
    """One position's win share over the same 2,000 determinizations, played out by the
    kernel and by the Python engine: equal within sampling error (the difference's standard
    error is about 0.015)."""
    env = raw_env("classic", 2)
    env.reset(seed=3)
    s, g = env.engine, env.game
    obs = env.layout.build(s, s.current)
    mask = np.zeros(g.num_actions, np.int8)
    mask[s.legal] = 1
    rng = random.Random(0)
    dets = [determinize(g, obs, mask, rng, seat=0) for _ in range(2000)]
    r = Rollouts("classic", 2, leaves=100, per_leaf=4)
    batch = []
    for k in range(20):
        for d in dets[100 * k:100 * (k + 1)]:
            r.add(d)
        batch.append(r.run(seed=k)[:, s.current])
    python = [playout(d.clone(), rng)[s.current] for d in dets]
    b, p = float(np.mean(batch)), float(np.mean(python))
    assert abs(b - p) < 0.05, (b, p)


def test_bad_rollout_count_is_refused() -> None:
    with pytest.raises(ValueError, match="positive integer"):
        Rollouts("classic", 2, per_leaf=0)
