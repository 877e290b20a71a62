"""The parallel step kernel (``vector_env(..., parallel=True)``) plays bit for bit the games
of the serial one: same outputs every step, same engine state after."""

from __future__ import annotations

import numpy as np
import pytest

from uno_env import vector_env


@pytest.mark.parametrize("variant", ["classic", "express", "flex", "flip"])
def test_parallel_kernel_plays_the_serial_games(variant: str) -> None:
    # 150 games: two full chunks of 64 and a partial one; 400 decisions finish many games,
    # so autoreset and final observations are compared too.
    envs = [vector_env(variant, 3, 150, parallel=p) for p in (False, True)]
    for v in envs:
        v.reset(seed=7)
    finished = 0
    for _ in range(400):
        a = envs[0].sample_actions(3)
        # the threaded sampler draws the same actions: one generator per game
        assert np.array_equal(envs[1].sample_actions(3), a)
        out = [v.step(a.copy()) for v in envs]
        (o0, r0, t0, u0, i0), (o1, r1, t1, u1, i1) = out
        assert np.array_equal(o0, o1) and np.array_equal(r0, r1)
        assert np.array_equal(t0, t1) and np.array_equal(u0, u1)
        assert np.array_equal(i0["action_mask"], i1["action_mask"])
        assert np.array_equal(i0["current_player"], i1["current_player"])
        assert np.array_equal(i0["final_obs"], i1["final_obs"])
        finished += int(t0.sum() + u0.sum())
    assert finished > 0
    for x, y in zip(envs[0]._s, envs[1]._s, strict=True):
        assert np.array_equal(x, y)


def test_parallel_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="parallel must be True or False"):
        vector_env("classic", 2, 4, parallel=1)  # type: ignore[arg-type]
