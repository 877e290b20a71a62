"""End-to-end training throughput, side by side in one run: the self-play trainer on the batch
engine, the same trainer on the Python engine (``engine: python``, the trainer before the
batch engine) and SB3 MaskablePPO on the single-agent env, all 2-player classic with the
shipped network (MLP 256x256).

``python -m uno_env.training.bench_selfplay [--seconds 20] [--rounds 2] [--workers 1]``

Each contender runs whole iterations (a rollout, then its PPO update) for ``seconds`` per
round; rounds alternate so that machine load affects every contender alike. Printed per
contender: game decisions per second of wall time (collection plus updates) and per second
of this process's CPU time (what a core gives it when other programs share the machine),
decisions trained per update, and the ratios to the Python-engine trainer. The machine's
load average is printed beside them: on a shared machine wall-clock figures fall with it.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "train"
Iteration = Callable[[], int]  # one rollout + update; returns game decisions played
# The trainer as it was before the batch engine (configs/train/classic_selfplay.yaml of
# commit 901fc37): raw_env games, 80% rule opponents, the rule teacher, 4 epochs.
PREVIOUS = {"engine": "python", "num_envs": 64, "rollout_ticks": 128, "epochs": 4,
            "minibatch_size": 1024, "opponents": {"rule": 0.8, "self": 0.1, "frozen": 0.1},
            "teacher": "rule", "teacher_steps": 500_000}


def selfplay(over: dict[str, Any], out: str) -> Iteration:
    from uno_env.training.selfplay import SelfPlayTrainer

    cfg = yaml.safe_load((CONFIGS / "classic_selfplay.yaml").read_text())
    cfg.update(eval_interval=0, eval_games=0, progress=False, tensorboard=False,
               output_dir=out, teacher=None, total_steps=10**12, pool_interval=5)
    cfg.update(over)
    t = SelfPlayTrainer(cfg)
    t.begin()
    per = t.cfg.num_envs * t.cfg.rollout_ticks * t.cfg.workers  # every seat's decisions

    def run() -> int:
        t.iteration()
        return per
    return run


def sb3(out: str) -> Iteration:
    import torch

    from uno_env.training.sb3_train import build_model, make_vec_env, resolve_config

    cfg = yaml.safe_load((CONFIGS / "classic_sb3.yaml").read_text())
    cfg.update(output_dir=out, progress=False)
    cfg = resolve_config(cfg)
    torch.set_num_threads(int(cfg["torch_threads"]))
    model = build_model(cfg, make_vec_env(cfg))
    per = int(model.n_steps) * int(cfg["n_envs"])

    def run() -> int:
        model.learn(total_timesteps=per, reset_num_timesteps=False)
        return per  # the learner's decisions (the opponents' are not counted)
    return run


def measure(run: Iteration, seconds: float) -> tuple[int, float, float]:
    decisions = 0
    w0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - w0 < seconds:
        decisions += run()
    return decisions, time.perf_counter() - w0, time.process_time() - c0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=20.0, help="per contender per round")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--workers", type=int, default=1, help="batch-engine rollout workers")
    p.add_argument("--skip", default="", help="comma-separated contenders to leave out")
    a = p.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="bench_selfplay_")
    shipped = {"engine": "batch", "workers": a.workers}
    makers: dict[str, Callable[[], Iteration]] = {
        "batch": lambda: selfplay({**shipped, "opponents": {"self": 1}}, f"{tmp}/b"),
        "batch-config-mix": lambda: selfplay(shipped, f"{tmp}/m"),
        "mix-python-opp": lambda: selfplay({**shipped, "opponent_engine": "python"},
                                           f"{tmp}/q"),
        "python": lambda: selfplay({"engine": "python", "num_envs": 64,
                                    "rollout_ticks": 128, "opponents": {"self": 1}},
                                   f"{tmp}/p"),
        "python-previous": lambda: selfplay(PREVIOUS, f"{tmp}/o"),
        "sb3": lambda: sb3(f"{tmp}/s"),
    }
    skip = {s for s in a.skip.split(",") if s}
    runs = {name: make() for name, make in makers.items() if name not in skip}
    for run in runs.values():  # warm-up: compiled kernels loaded, first allocations made
        run()
    totals: dict[str, list[float]] = {name: [0.0, 0.0, 0.0] for name in runs}
    for _ in range(a.rounds):
        for name, run in runs.items():
            d, w, c = measure(run, a.seconds)
            totals[name][0] += d
            totals[name][1] += w
            totals[name][2] += c
    load = os.getloadavg()
    print(f"2-player classic, MLP 256x256, {a.rounds} rounds x {a.seconds:.0f} s per "
          f"contender; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} CPUs")
    base = totals.get("python")
    for name, (dec, wall, cpu) in totals.items():
        ratio = (f"  x{(dec / wall) / (base[0] / base[1]):.1f} vs python" if base and base[0]
                 else "")
        print(f"{name:>18}: {dec / wall:9.0f} decisions/s wall  {dec / cpu:9.0f} per "
              f"CPU-second{ratio}")
    print("batch, python: configs/train/classic_selfplay.yaml with opponents: self, no "
          "teacher (python: 64 games x 128 ticks); batch-config-mix: its opponents (rule, "
          "self, frozen), no teacher, rule seats compiled; mix-python-opp: the same with "
          "Python rule agents (opponent_engine: python, the trainer before); "
          "python-previous: the trainer's config before the batch engine (rule teacher, 80% "
          "rule); sb3: MaskablePPO of configs/train/classic_sb3.yaml against random/rule, "
          "counting the learner's decisions only")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
