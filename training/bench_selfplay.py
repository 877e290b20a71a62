"""End-to-end training throughput, side by side in one run: the self-play trainer on the batch
engine on one core and on every core (``workers``, ``policy_lag`` and ``threads`` at ``auto``:
the update sharded over the workers; and with ``policy_lag: 1``), the same trainer
on the Python engine (``engine: python``, the trainer before the batch engine) and SB3
MaskablePPO on the single-agent env, all 2-player classic with the shipped network (MLP
256x256).

``python -m uno_env.training.bench_selfplay [--seconds 20] [--rounds 2] [--workers auto]``

Each contender runs whole iterations (a rollout, then its PPO update) for ``seconds`` per
round; rounds alternate so that machine load affects every contender alike. Printed per
contender: game decisions per second of wall time (collection plus updates) and per second
of CPU time (this process and its rollout workers': what a core gives it when other
programs share the machine), the ratios to the Python-engine trainer, and the all-core
trainer's ratio to the one-core one. The machine's load average is printed beside them: on
a shared machine wall-clock figures fall with it, and the all-core ratio needs idle cores.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from uno_env.training.config import usable_cpus

if TYPE_CHECKING:
    from uno_env.training.selfplay import SelfPlayTrainer

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "train"
Iteration = Callable[[], int]  # one rollout + update; returns game decisions played
ONE_CORE = {"workers": 1, "policy_lag": 0, "threads": 1}  # the trainer in one process
# The trainer as it was before the batch engine (configs/train/classic_selfplay.yaml of
# commit 901fc37): raw_env games, 80% rule opponents, the rule teacher, 4 epochs.
PREVIOUS = {"engine": "python", "num_envs": 64, "rollout_ticks": 128, "epochs": 4,
            "minibatch_size": 1024, "opponents": {"rule": 0.8, "self": 0.1, "frozen": 0.1},
            "teacher": "rule", "teacher_steps": 500_000}


def proc_cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of live processes ``pids`` (Linux ``/proc``; 0 elsewhere)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / os.sysconf("SC_CLK_TCK")


class Contender:
    """One iteration function, its torch threads (this program sets them: it owns the
    process) and the processes whose CPU time it uses."""

    def __init__(self, run: Iteration, threads: int = 1, pids: list[int] | None = None,
                 close: Callable[[], None] = lambda: None) -> None:
        self.run, self.threads, self.pids, self.close = run, threads, pids or [], close

    def cpu(self) -> float:
        return time.process_time() + proc_cpu_seconds(self.pids)


def started_trainer(over: dict[str, Any], out: str) -> SelfPlayTrainer:
    """The benchmarked trainer: configs/train/classic_selfplay.yaml without evaluation,
    teacher or output beyond ``out``, with ``over`` on top, begun."""
    from uno_env.training.selfplay import SelfPlayTrainer

    cfg = yaml.safe_load((CONFIGS / "classic_selfplay.yaml").read_text())
    cfg.update(eval_interval=0, eval_games=0, progress=False, tensorboard=False,
               output_dir=out, teacher=None, total_steps=10**12, pool_interval=5)
    cfg.update(over)
    t = SelfPlayTrainer(cfg)
    t.begin()
    return t


def selfplay(over: dict[str, Any], out: str) -> Contender:
    t = started_trainer(over, out)
    per = t.cfg.num_envs * t.cfg.rollout_ticks  # every seat's decisions, all workers'
    procs = getattr(t.workers.workers, "procs", []) if t.workers is not None else []

    def run() -> int:
        t.iteration()
        return per
    return Contender(run, int(t.cfg.threads), [int(p.pid) for p in procs],
                     t.workers.close if t.workers is not None else lambda: None)


def sb3(out: str) -> Contender:
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
    return Contender(run, int(cfg["torch_threads"]))


def measure(c: Contender, seconds: float) -> tuple[int, float, float]:
    import torch

    torch.set_num_threads(c.threads)
    decisions = 0
    w0, c0 = time.perf_counter(), c.cpu()
    while True:  # at least one iteration
        decisions += c.run()
        if time.perf_counter() - w0 >= seconds:
            break
    return decisions, time.perf_counter() - w0, c.cpu() - c0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=20.0, help="per contender per round")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--workers", default="auto",
                   help="rollout workers of the all-core contender (auto: one per CPU)")
    p.add_argument("--skip", default="", help="comma-separated contenders to leave out")
    a = p.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="bench_selfplay_")
    shipped = {"engine": "batch", **ONE_CORE}
    every = {"engine": "batch", "workers": a.workers, "policy_lag": "auto", "threads": "auto"}
    makers: dict[str, Callable[[], Contender]] = {
        "batch": lambda: selfplay({**shipped, "opponents": {"self": 1}}, f"{tmp}/b"),
        "batch-config-mix": lambda: selfplay(shipped, f"{tmp}/m"),
        "all-cores-mix": lambda: selfplay(every, f"{tmp}/a"),
        "all-cores-lag": lambda: selfplay({**every, "policy_lag": 1}, f"{tmp}/n"),
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
    for contender in runs.values():  # warm-up: compiled kernels loaded, first allocations
        measure(contender, 0.0)
    totals: dict[str, list[float]] = {name: [0.0, 0.0, 0.0] for name in runs}
    for _ in range(a.rounds):
        for name, contender in runs.items():
            d, w, c = measure(contender, a.seconds)
            totals[name][0] += d
            totals[name][1] += w
            totals[name][2] += c
    load = os.getloadavg()
    for contender in runs.values():
        contender.close()
    print(f"2-player classic, MLP 256x256, {a.rounds} rounds x {a.seconds:.0f} s per "
          f"contender; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} CPUs ({usable_cpus()} usable by this process)")
    base = totals.get("python")
    for name, (dec, wall, cpu) in totals.items():
        ratio = (f"  x{(dec / wall) / (base[0] / base[1]):.1f} vs python" if base and base[0]
                 else "")
        print(f"{name:>18}: {dec / wall:9.0f} decisions/s wall  {dec / cpu:9.0f} per "
              f"CPU-second{ratio}")
    one = totals.get("batch-config-mix")
    for name, lag in (("all-cores-mix", "auto"), ("all-cores-lag", "1")):
        every_t = totals.get(name)
        if one and every_t and one[0]:
            print(f"all cores (workers: {a.workers}, policy_lag: {lag}, threads: auto) vs one "
                  f"core: x{(every_t[0] / every_t[1]) / (one[0] / one[1]):.2f} decisions/s "
                  f"wall")
    print("batch, python: configs/train/classic_selfplay.yaml with opponents: self, no "
          "teacher (python: 64 games x 128 ticks); batch-config-mix: its opponents (rule, "
          "self, frozen), no teacher, rule seats compiled, one core (workers: 1, policy_lag: "
          "0; batch and mix-python-opp too); all-cores-mix: the same on every core "
          "(workers, policy_lag, threads: auto: the update sharded over the workers); "
          "all-cores-lag: with policy_lag: 1 (rollouts beside the learner's threads); "
          "mix-python-opp: the same with "
          "Python rule agents (opponent_engine: python, the trainer before); "
          "python-previous: the trainer's config before the batch engine (rule teacher, 80% "
          "rule); sb3: MaskablePPO of configs/train/classic_sb3.yaml against random/rule, "
          "counting the learner's decisions only")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
