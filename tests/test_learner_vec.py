"""The learner vector env (``uno_env.batch.learner``) against ``gymnasium.make("uno_env/UNO-v1")``.

Game ``i`` of a vector env reset with seed ``s`` must play, decision for decision, the
episodes UNO-v1 plays after ``reset(seed=s + i)`` and then ``reset()``: the same learner
seat, deal, opponents and opponent choices, hence the same observations, masks and rewards
(docs/vector-interfaces.md).
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import uno_env
from uno_env.batch.learner import LearnerVectorEnv
from uno_env.rules import IllegalActionError

CONFIGS = [
    dict(variant="classic", num_players=2, opponents=["random"]),
    dict(variant="classic", num_players=3, opponents=["rule", "random"]),
    dict(variant="flip", num_players=2, opponents=["rule"], learner_seat=1),
    dict(variant="express", num_players=4, opponents=["random", "rule"], max_steps=40),
    dict(variant="flex", num_players=2, opponents=["rule"], reward="points"),
]


def _choose(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c['variant']}-{c['num_players']}")
def test_each_game_plays_the_episodes_uno_v1_plays(cfg: dict) -> None:
    _same_as_uno_v1(LearnerVectorEnv(3, **cfg), cfg)


@pytest.mark.parametrize("cfg", [
    dict(variant="classic", num_players=2, opponents=["ppo:classic", "rule"],
         voluntary_draw=True, catch_window="turn"),  # the shipped checkpoint's rules
    dict(variant="classic", num_players=4, opponents=["ppo:classic", "random"], max_steps=60,
         voluntary_draw=True, catch_window="turn"),
], ids=["classic-2", "classic-4"])
def test_policy_opponents_play_in_the_tick_loop(cfg: dict) -> None:
    """``ppo:`` opponents: the kernel stops at their seats, one forward answers them all."""
    venv = gymnasium.make_vec(uno_env.GYM_ID, num_envs=3,
                              vectorization_mode="vector_entry_point", **cfg)
    _same_as_uno_v1(venv, cfg)


def _same_as_uno_v1(venv: LearnerVectorEnv, cfg: dict) -> None:
    b, seed, episodes = venv.num_envs, 11, 2
    obs, info = venv.reset(seed=seed)
    singles = [gymnasium.make(uno_env.GYM_ID, **cfg) for _ in range(b)]
    firsts = [e.reset(seed=seed + i) for i, e in enumerate(singles)]
    for i, (o, inf) in enumerate(firsts):
        assert inf["seat"] == info["seat"][i]
        np.testing.assert_array_equal(o, obs[i])
        np.testing.assert_array_equal(inf["action_mask"], info["action_mask"][i])
    rngs = [np.random.default_rng(i) for i in range(b)]
    done_eps = [0] * b
    compared = 0
    while min(done_eps) < episodes:
        actions = np.array([_choose(rngs[i], info["action_mask"][i]) for i in range(b)])
        obs, rew, term, trunc, info = venv.step(actions)
        for i, env in enumerate(singles):
            if done_eps[i] >= episodes:
                continue
            o, r, te, tr, inf = env.step(int(actions[i]))
            assert (r, te, tr) == (rew[i], term[i], trunc[i]), (i, compared)
            compared += 1
            if te or tr:
                np.testing.assert_array_equal(o, info["final_obs"][i])
                assert info["_final_obs"][i] and info["final_info"]["seat"][i] == inf["seat"]
                done_eps[i] += 1
                o, inf = env.reset()  # the next episode continues the same generator
            np.testing.assert_array_equal(o, obs[i])
            np.testing.assert_array_equal(inf["action_mask"], info["action_mask"][i])
            assert inf["seat"] == info["seat"][i]
    assert compared > 20


def test_reset_seeds_lists_masks_and_metadata() -> None:
    venv = LearnerVectorEnv(4, "classic", 2, opponents=["rule"])
    assert venv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    a, _ = venv.reset(seed=[5, 6, 7, 8])
    b, _ = venv.reset(seed=5)
    np.testing.assert_array_equal(a, b)
    mask = np.array([False, True, False, False])
    c, info = venv.reset(seed=5, options={"reset_mask": mask})  # game 1 reseeded with 6
    np.testing.assert_array_equal(c, b)
    assert info["_seat"].tolist() == mask.tolist()
    d, _ = venv.reset()  # continues every game's generator: new deals
    assert not np.array_equal(d, b)
    assert LearnerVectorEnv(2, autoreset=False).metadata["autoreset_mode"] is \
        AutoresetMode.DISABLED


def test_disabled_autoreset_waits_for_a_masked_reset() -> None:
    venv = LearnerVectorEnv(2, "classic", 2, autoreset=False, illegal_action="lose")
    _, info = venv.reset(seed=0)
    bad = np.array([int(np.flatnonzero(info["action_mask"][0] == 0)[0]), 0])
    bad[1] = int(np.flatnonzero(info["action_mask"][1])[0])
    _, rew, term, _, info = venv.step(bad)  # an illegal action loses game 0 (UNO-v1's "lose")
    assert term[0] and rew[0] == -1.0 and not info["action_mask"][0].any()
    with pytest.raises(RuntimeError, match="game 0: its episode is over"):
        venv.step(np.array([0, int(np.flatnonzero(info["action_mask"][1])[0])]))
    _, info = venv.reset(options={"reset_mask": np.array([True, False])})
    assert info["action_mask"][0].any()


def test_bad_input_says_what_is_allowed() -> None:
    with pytest.raises(ValueError, match="allowed: 'random', 'rule', or a batched policy"):
        LearnerVectorEnv(2, opponents=["ppo:some.pt"])  # specs are turned into policies above
    with pytest.raises(ValueError, match="has no compiled kernel"):
        LearnerVectorEnv(2, opponents=[object()])
    with pytest.raises(ValueError, match="non-empty list"):
        LearnerVectorEnv(2, opponents="random")
    with pytest.raises(ValueError, match="learner_seat must be None or a seat 0-1"):
        LearnerVectorEnv(2, learner_seat=2)
    for n in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="num_envs=.* allowed: an integer >= 1"):
            LearnerVectorEnv(n)
    with pytest.raises(ValueError, match="illegal_action"):
        LearnerVectorEnv(2, illegal_action="ignore")
    venv = LearnerVectorEnv(2, illegal_action="raise")
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(2, np.int64))
    _, info = venv.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    legal = int(np.flatnonzero(info["action_mask"][0])[0])
    before = venv.game_state(0).current
    with pytest.raises(IllegalActionError, match=r"game 1: action .* \(no game was changed\)"):
        venv.step(np.array([legal, illegal]))
    assert venv.game_state(0).current == before
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        venv.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="reset_mask"):
        venv.reset(options={"reset_mask": [True, False]})


def test_pcg64_draws_are_numpys() -> None:
    """The kernel's ``integers(n)`` / ``integers(2**63)`` against NumPy's own Generator,
    interleaved (the 32-bit draws share a buffered half word)."""
    from gymnasium.utils import seeding

    from uno_env.batch import pcg64

    for seed in (0, 12345, 2**40 + 7):
        gen, _ = seeding.np_random(seed)
        mirror, _ = seeding.np_random(seed)
        state = np.zeros((1, pcg64.PCG_WORDS), np.uint64)
        pcg64.load_state(state, 0, mirror)
        plan = np.random.default_rng(seed)
        for _ in range(500):
            if plan.integers(3) == 0:
                assert pcg64.integers_2_63(state, 0) == gen.integers(2**63)
            else:
                n = int(plan.integers(1, 11)) if plan.integers(2) else int(plan.integers(1, 2**31))
                assert pcg64.integers(state, 0, n) == gen.integers(n)
