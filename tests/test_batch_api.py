"""vector_env's interface: seeds, autoreset, snapshots, errors, and kernel invariants."""

from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env import IllegalActionError, raw_env, vector_env
from uno_env.batch import layout as L


def _play(v: uno_env.VectorEnv, steps: int, seed: int = 0) -> None:
    for _ in range(steps):
        v.step(v.sample_actions(seed))


def test_seed_s_gives_game_i_the_seed_s_plus_i() -> None:
    v = vector_env("classic", 3, 4)
    obs, info = v.reset(seed=40)
    listed = vector_env("classic", 3, 4)
    obs2, info2 = listed.reset(seed=[40, 41, 42, 43])
    assert np.array_equal(obs, obs2) and np.array_equal(info["action_mask"],
                                                        info2["action_mask"])
    for i in range(4):
        r = raw_env("classic", 3)
        r.reset(seed=40 + i)
        assert v.game_state(i).to_dict() == r.engine.to_dict()


def test_reset_without_seed_continues_like_raw_env() -> None:
    v = vector_env("express", 2, 2)
    v.reset(seed=7)
    v.reset()
    r = raw_env("express", 2)
    r.reset(seed=8)
    r.reset()
    assert v.game_state(1).to_dict() == r.engine.to_dict()
    fresh = vector_env("express", 2, 2)
    fresh.reset()  # random seeds: two games almost surely differ
    assert fresh.game_state(0).to_dict() != fresh.game_state(1).to_dict()


def test_same_step_autoreset_keeps_final_obs_and_rewards() -> None:
    v = vector_env("classic", 2, 64, max_steps=30)
    v.reset(seed=1)
    seen = 0
    for _ in range(40):
        obs, rew, term, trunc, info = v.step(v.sample_actions())
        done = term | trunc
        assert np.array_equal(info["_final_obs"], done)
        if done.any():
            seen += int(done.sum())
            assert (v._s.S[done, L.NSTEPS] == 0).all()  # already the next game
            assert info["final_obs"][done].any(axis=1).all()
        assert np.allclose(rew.sum(axis=1), 0.0)  # win_loss is zero-sum
        assert not rew[~term].any()
    assert seen >= 64  # every game was cut at 30 decisions at least once


def test_snapshot_equals_raw_env_and_restore_continues_identically() -> None:
    v = vector_env("flip", 3, 8)
    v.reset(seed=100)
    _play(v, 57)
    for i in range(8):
        snap = v.snapshot(i)
        r = raw_env("flip", 3)
        r.restore(snap)
        assert r.snapshot() == snap
    # a raw_env position loaded into another game plays on exactly as raw_env does
    r = raw_env("flip", 3)
    r.restore(v.snapshot(2))
    v.restore(5, v.snapshot(2))
    assert v.snapshot(5) == v.snapshot(2)
    rng = np.random.default_rng(0)
    for _ in range(40):
        mask = v._s.legal[5]
        a = int(rng.choice(np.flatnonzero(mask)))
        acts = v.sample_actions().copy()
        acts[5] = a
        obs, rew, term, trunc, _ = v.step(acts)
        r.step(a)
        if term[5] or trunc[5]:
            break
        o = r.observe(r.agent_selection)
        assert np.array_equal(o["observation"], obs[5])
        assert v.snapshot(5) == r.snapshot()


def test_illegal_action_names_the_game_and_changes_nothing() -> None:
    v = vector_env("classic", 2, 3)
    v.reset(seed=5)
    before = [v.snapshot(i) for i in range(3)]
    acts = v.sample_actions().copy()
    bad = int(np.flatnonzero(v._s.legal[1] == 0)[0])
    acts[1] = bad
    with pytest.raises(IllegalActionError, match=r"game 1: action .* is not legal .*legal: "):
        v.step(acts)
    assert [v.snapshot(i) for i in range(3)] == before
    acts[1] = 10_000
    with pytest.raises(IllegalActionError, match="not an index"):
        v.step(acts)
    with pytest.raises(ValueError, match="shape"):
        v.step(acts[:2])
    with pytest.raises(TypeError, match="integer"):
        v.step(acts.astype(float))


def test_bad_configuration_errors_are_raw_envs() -> None:
    for kwargs in ({"num_players": 11}, {"stacking": 1}, {"bogus": True},
                   {"reward": "money"}, {"max_steps": 0}):
        with pytest.raises(ValueError) as want:
            raw_env("classic", **kwargs)  # type: ignore[arg-type]
        with pytest.raises(ValueError) as got:
            vector_env("classic", num_envs=2, **kwargs)  # type: ignore[arg-type]
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="num_envs"):
        vector_env("classic", 2, 0)
    with pytest.raises(ValueError, match="unknown variant"):
        vector_env("uno-attack", 2, 1)
    with pytest.raises(RuntimeError, match="reset"):
        vector_env("classic", 2, 1).step(np.zeros(1, np.int64))


@pytest.mark.parametrize("variant", uno_env.list_variants())
def test_kernel_invariants(variant: str) -> None:
    """Cards conserved, the player to act has a real choice, counts match the cards (Flip:
    also the hidden faces' counts the observation reads, all held and the seen ones)."""
    v = vector_env(variant, 4, 32, max_steps=400)
    v.reset(seed=9)
    s, t = v._s, v._t
    for step in range(300):
        if step % 10 == 0:
            for i in range(32):
                pile = s.pile[i, :s.S[i, L.PILE_LEN]]
                disc = s.disc[i, :s.S[i, L.DISC_LEN]]
                held = np.flatnonzero(s.loc[i] >= 0)
                cards = np.concatenate([pile, disc, held])
                assert sorted(cards.tolist()) == list(range(t.nc))
                faces = t.side_faces[s.S[i, L.SIDE]]
                for q in range(4):
                    mine = faces[np.flatnonzero(s.loc[i] == q)]
                    assert np.array_equal(np.bincount(mine, minlength=t.nf), s.counts[i, q])
                    assert s.hand_len[i, q] == len(mine)
                    if t.sides:
                        held_q = np.flatnonzero(s.loc[i] == q)
                        hidden = t.side_faces[s.S[i, L.SIDE] ^ 1]
                        assert np.array_equal(np.bincount(hidden[held_q], minlength=t.nf),
                                              s.hid_counts[i, q])
                        unseen = held_q[s.known[i, held_q] == 0]
                        assert np.array_equal(np.bincount(hidden[unseen], minlength=t.nf),
                                              s.hid_unseen[i, q])
                    else:
                        assert not s.hid_counts[i, q].any() and not s.hid_unseen[i, q].any()
                assert s.legal[i].sum() >= 2  # single-action decisions are taken for the player
        v.step(v.sample_actions())


def test_verify_command_reports_zero_differences(capsys: pytest.CaptureFixture[str]) -> None:
    from uno_env.cli import main

    assert main(["verify", "--decisions", "300", "--variant", "express"]) == 0
    out = capsys.readouterr().out
    assert "express:" in out and "0 differences" in out


def test_observe_any_seat_matches_raw_env() -> None:
    v = vector_env("flip", 3, 2)
    v.reset(seed=21)
    _play(v, 15)
    r = raw_env("flip", 3)
    r.restore(v.snapshot(1))
    for seat in range(3):
        assert np.array_equal(v.observe(1, seat), r.observe(f"player_{seat}")["observation"])
    with pytest.raises(ValueError, match="seat"):
        v.observe(1, 3)


def test_sample_actions_are_legal_and_uniform() -> None:
    # random_actions finds the k-th legal action word by word: every draw legal, each legal
    # action about equally often (the state does not move between draws)
    v = vector_env("flip", 4, 64, observations=False)
    v.reset(seed=11)
    na = v.num_actions
    hits = np.zeros((64, na), np.int64)
    for _ in range(3000):
        hits[np.arange(64), v.sample_actions()] += 1
    legal = v._s.legal[:, :na].astype(bool)
    assert not (hits[~legal]).any()
    n = legal.sum(axis=1)
    expect = 3000 / n
    assert (np.abs(hits - expect[:, None])[legal] < 0.25 * np.repeat(expect, n)).all()


def test_actions_of_any_integer_layout_play_the_same_games() -> None:
    # the C int64 fast path of step() and the converting path give the same games: int32,
    # a strided view and a list are converted, an int64 array is used as it is
    envs = [vector_env("classic", 2, 6, observations=False) for _ in range(4)]
    for v in envs:
        v.reset(seed=9)
    for _ in range(60):
        a = envs[0].sample_actions().copy()
        strided = np.repeat(a, 2)[::2]
        assert not strided.flags.c_contiguous
        outs = [v.step(x) for v, x in zip(envs, (a, a.astype(np.int32), strided, list(a)),
                                           strict=True)]
        for o in outs[1:]:
            assert np.array_equal(o[1], outs[0][1]) and np.array_equal(o[2], outs[0][2])
            assert np.array_equal(o[4]["action_mask"], outs[0][4]["action_mask"])
    assert all(v.snapshot(i) == envs[0].snapshot(i) for v in envs[1:] for i in range(6))
