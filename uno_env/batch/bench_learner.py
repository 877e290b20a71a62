"""Speed of the learner vector env, printed side by side in one run (the machine is noisy).

``python -m uno_env.batch.bench_learner``: (1) learner decisions/s of
``LearnerVectorEnv`` (compiled ``rule`` opponents, full observations, one core) for every
variant at 2 players, beside the multi-agent ``vector_env`` (every seat a decision) and
``gymnasium.make("uno_env/UNO-v1")`` one game in Python, and against ``ppo:classic`` (the tick
loop: one forward per tick for all waiting games); (2) sb3-contrib ``MaskablePPO``
decisions/s training on ``uno_env.sb3_vec_env`` and on ``DummyVecEnv`` of UNO-v1, same
``n_envs`` and hyper-parameters. Learner actions are random legal ones drawn by a kernel.
Times are CPU time of this process for (1), wall time for (2) (torch on one thread).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np


def learner_rate(variant: str, num_players: int, num_envs: int, seconds: float,
                 opponents: tuple[str, ...] = ("rule",), **options: Any) -> float:
    """Learner decisions/s of the vector env, CPU time (one core)."""
    import gymnasium

    import uno_env

    v: Any = gymnasium.make_vec(uno_env.GYM_ID, num_envs=num_envs,
                           vectorization_mode="vector_entry_point", variant=variant,
                           num_players=num_players, opponents=list(opponents), copy=False,
                           illegal_action="raise", **options)
    v.reset(seed=0)
    v.step(v.sample_actions(0))  # compiled (or loaded from the cache) before timing
    steps = 0
    t0 = time.process_time()
    while time.process_time() < t0 + seconds:
        for _ in range(8):
            v.step(v.sample_actions())
        steps += 8 * num_envs
    return steps / (time.process_time() - t0)


def single_rate(variant: str, num_players: int, seconds: float) -> float:
    """Learner decisions/s of one UNO-v1 game in Python (rule opponents)."""
    import gymnasium

    import uno_env

    env = gymnasium.make(uno_env.GYM_ID, variant=variant, num_players=num_players,
                         opponents=["rule"])
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    steps = 0
    t0 = time.process_time()
    while time.process_time() < t0 + seconds:
        _, _, te, tr, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
        if te or tr:
            _, info = env.reset()
    return steps / (time.process_time() - t0)


def ppo_rate(make_env: Any, steps: int, **ppo: Any) -> tuple[float, float]:
    """MaskablePPO training decisions/s (wall) on ``make_env()`` after a warm-up learn, and
    the share of that time spent in the VecEnv's ``step_wait``."""
    from sb3_contrib import MaskablePPO

    env = make_env()
    model = MaskablePPO("MlpPolicy", env, seed=0, verbose=0, **ppo)
    model.learn(ppo["n_steps"] * model.n_envs)  # compile, allocate, first rollout
    in_env = [0.0]
    step_wait = env.step_wait

    def timed_step_wait() -> Any:
        t = time.perf_counter()
        out = step_wait()
        in_env[0] += time.perf_counter() - t
        return out

    env.step_wait = timed_step_wait
    t0 = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    wall = time.perf_counter() - t0
    return steps / wall, in_env[0] / wall


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=1024, help="games of the vector env")
    p.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    p.add_argument("--ppo-envs", type=int, default=256, help="n_envs of both PPO runs")
    p.add_argument("--ppo-steps", type=int, default=32768, help="timed PPO decisions")
    args = p.parse_args(argv)

    import torch

    from uno_env.batch.vector import vector_env
    from uno_env.variants import list_variants

    torch.set_num_threads(1)  # a script: one core for everything, as measured
    print(f"learner decisions/s, 2 players, {args.envs} games, rule opponents, full "
          "observations, one core")
    print(f"{'variant':8} {'vector env':>12} {'UNO-v1':>8} {'ratio':>6} "
          f"{'multi-agent vector_env':>24}")
    for var in list_variants():
        rate = learner_rate(var, 2, args.envs, args.seconds)
        one = single_rate(var, 2, args.seconds / 2)
        ma = vector_env(var, 2, args.envs)
        ma.reset(seed=0)
        ma.step(ma.sample_actions(0))
        n = 0
        t0 = time.process_time()
        while time.process_time() < t0 + args.seconds:
            ma.step(ma.sample_actions())
            n += args.envs
        ma_rate = n / (time.process_time() - t0)
        print(f"{var:8} {rate:12,.0f} {one:8,.0f} {rate / one:5.0f}x {ma_rate:24,.0f}")

    ppo_opp = learner_rate("classic", 2, args.envs, args.seconds, ("ppo:classic",),
                           voluntary_draw=True, catch_window="turn")
    print(f"classic against ppo:classic (tick loop, one forward a tick): {ppo_opp:,.0f}")

    import gymnasium
    from stable_baselines3.common.vec_env import DummyVecEnv

    import uno_env

    ppo = dict(n_steps=32, batch_size=2048, n_epochs=2, learning_rate=3e-4,
               policy_kwargs={"net_arch": [64, 64]})
    kw: dict[str, Any] = {"variant": "classic", "num_players": 2, "opponents": ["random"]}
    ours, ours_env = ppo_rate(lambda: uno_env.sb3_vec_env(num_envs=args.ppo_envs, **kw),
                    args.ppo_steps, **ppo)
    dummy, dummy_env = ppo_rate(lambda: DummyVecEnv([lambda: gymnasium.make(uno_env.GYM_ID, **kw)]
                                         * args.ppo_envs), args.ppo_steps, **ppo)
    print(f"\nMaskablePPO training decisions/s, classic 2 players against random, n_envs="
          f"{args.ppo_envs}, {ppo}, torch on one thread")
    print(f"sb3_vec_env {ours:,.0f} ({ours_env:.0%} of the time in the env)   "
          f"DummyVecEnv(UNO-v1) {dummy:,.0f} ({dummy_env:.0%} in the env)   "
          f"ratio {ours / dummy:.1f}x")
    print(f"MaskablePPO's own cost: {(1 - ours_env) / ours * 1e6:.0f} us a decision; "
          f"the env's: {ours_env / ours * 1e6:.1f} us (sb3_vec_env), "
          f"{dummy_env / dummy * 1e6:.0f} us (DummyVecEnv)")


if __name__ == "__main__":
    main()
