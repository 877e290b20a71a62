"""The Gymnasium side of the vector envs: registration by ``import uno_env`` alone, the same
results as Gymnasium's own ``SyncVectorEnv`` over UNO-v1 in same-step autoreset mode, and
Gymnasium's vector wrappers reading ``metadata["autoreset_mode"]``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import uno_env

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-W", "error::UserWarning", "-c", code],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize("register", ["", "gymnasium.register_envs(uno_env); "])
def test_import_uno_env_registers_both_entry_points(register: str) -> None:
    code = ("import sys, uno_env; assert 'uno_env.aec' not in sys.modules; import gymnasium; "
            f"{register}e = gymnasium.make('uno_env/UNO-v1'); o, _ = e.reset(seed=0); "
            "v = gymnasium.make_vec('uno_env/UNO-v1', num_envs=2, "
            "vectorization_mode='vector_entry_point', opponents=['rule']); "
            "ov, _ = v.reset(seed=0); print(type(v).__name__, "
            "v.metadata['autoreset_mode'].name, bool((o == ov[0]).all()))")
    assert _run(code).split() == ["LearnerVectorEnv", "SAME_STEP", "True"]


def test_gymnasium_imported_first_registers_too() -> None:
    code = ("import gymnasium, uno_env; spec = gymnasium.spec('uno_env/UNO-v1'); "
            "print(spec.vector_entry_point)")
    assert _run(code) == "uno_env.training.vector_learner:make_learner_vec"


def test_same_results_as_gymnasiums_sync_vector_env_in_same_step_mode() -> None:
    kw = dict(variant="classic", num_players=3, opponents=["rule", "random"], max_steps=60)
    ours = gymnasium.make_vec(uno_env.GYM_ID, num_envs=3,
                              vectorization_mode="vector_entry_point", **kw)
    sync = gymnasium.make_vec(uno_env.GYM_ID, num_envs=3, vectorization_mode="sync",
                              vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}, **kw)
    assert ours.observation_space == sync.observation_space
    assert ours.action_space == sync.action_space
    (o1, i1), (o2, i2) = ours.reset(seed=3), sync.reset(seed=3)
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(150):
        np.testing.assert_array_equal(o1, o2)
        assert ours.observation_space.contains(o1)
        for key in ("seat", "_seat", "action_mask", "_action_mask"):
            np.testing.assert_array_equal(i1[key], i2[key])
        assert ("final_obs" in i1) == ("final_obs" in i2)
        if "final_obs" in i1:
            finals += 1
            np.testing.assert_array_equal(i1["_final_obs"], i2["_final_obs"])
            for a, b in zip(i1["final_obs"], i2["final_obs"], strict=True):
                assert (a is None and b is None) or np.array_equal(a, b)
            for key in ("seat", "_seat"):
                np.testing.assert_array_equal(i1["final_info"][key], i2["final_info"][key])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in i1["action_mask"]])
        o1, r1, te1, tr1, i1 = ours.step(actions)
        o2, r2, te2, tr2, i2 = sync.step(actions)
        for x, y in ((r1, r2), (te1, te2), (tr1, tr2)):
            np.testing.assert_array_equal(x, y)
    assert finals >= 3


def test_gymnasium_vector_wrappers_read_the_autoreset_mode() -> None:
    venv = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        gymnasium.make_vec(uno_env.GYM_ID, num_envs=4, opponents=["random"]))
    _, info = venv.reset(seed=0)
    returns = np.zeros(4)
    seen = 0
    rng = np.random.default_rng(1)
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        _, rew, term, trunc, info = venv.step(actions)
        returns += rew
        if "episode" in info:
            done = info["_episode"]
            np.testing.assert_allclose(info["episode"]["r"][done], returns[done])
            returns[done] = 0.0
            seen += int(done.sum())
    assert seen >= 5


def test_the_multi_agent_vector_env_declares_its_autoreset_mode() -> None:
    assert uno_env.vector_env("classic", 2, 2).metadata["autoreset_mode"] is \
        AutoresetMode.SAME_STEP
    assert uno_env.vector_env("classic", 2, 2, autoreset=False).metadata[
        "autoreset_mode"] is AutoresetMode.DISABLED
