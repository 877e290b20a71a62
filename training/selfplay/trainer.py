"""The self-play PPO learner: network, optimiser, PPO update, checkpoints and the training
loop; games are played by :mod:`uno_env.training.selfplay.rollout`, seats filled by
:mod:`uno_env.training.selfplay.opponents`, progress measured by
:mod:`uno_env.training.selfplay.evaluation`."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from uno_env import ObservationLayout
from uno_env.agents.policy import (
    PolicyNet,
    config_key,
    load_policy,
    observation_scale,
    policy_payload,
    save_policy,
)
from uno_env.seeding import streams
from uno_env.training.config import SelfPlayConfig
from uno_env.training.selfplay.evaluation import evaluate_policy, evaluate_policy_batch
from uno_env.training.selfplay.opponents import AgentCache, OpponentPool
from uno_env.training.selfplay.pipeline import Pipeline
from uno_env.training.selfplay.ppo import ppo_update
from uno_env.training.selfplay.rollout import Rollout, make_env
from uno_env.training.selfplay.sharded import sharded_update
from uno_env.training.selfplay.weights import fitted_weights


def resolve_device(name: str) -> torch.device:
    """The learner's device: ``cpu``, ``cuda``/``cuda:N`` (an error naming what is there when
    CUDA is not), or ``auto`` (the first GPU when there is one, else the CPU)."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"device={name!r} but torch {torch.__version__} sees no CUDA GPU "
                             f"(torch.cuda.is_available() is False); use device=cpu or auto")
        dev = torch.device(name)
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(f"device={name!r} but there are {torch.cuda.device_count()} "
                             f"CUDA device(s)")
        return dev
    return torch.device(name)


def linear(start: float, end: float, frac: float) -> float:
    """``start`` at ``frac=0`` to ``end`` at ``frac=1`` (clamped)."""
    frac = min(max(frac, 0.0), 1.0)
    return start + (end - start) * frac


class SelfPlayTrainer:
    """The learner; ``run()`` trains to ``total_steps`` and returns a summary dict."""

    SHARES_UPDATE = True  # the workers may share the update (a subclass with its own: False)

    def __init__(self, config: dict[str, Any] | SelfPlayConfig) -> None:
        cfg = config if isinstance(config, SelfPlayConfig) else SelfPlayConfig.from_dict(config)
        # workers, policy_lag and threads as numbers
        self.cfg = cfg = cfg.resolved(self.SHARES_UPDATE)
        self.sharded = self.SHARES_UPDATE and cfg.sharded_update
        self.out = Path(cfg.output_dir)
        self.key = config_key(cfg.variant, cfg.num_players, cfg.options)
        self.n = cfg.num_players
        probe = make_env(cfg)
        self.layout: ObservationLayout = probe.layout
        self.names = list(probe.possible_agents)
        self.obs_dim = self.layout.size
        self.num_actions = probe.game.num_actions
        self.num_faces = probe.game.num_faces
        self.critic_extra = (self.n - 1) * self.num_faces if cfg.critic == "state" else 0
        self.extra_scale = 1.0 / float(self.layout.by_name["hand"].high)
        # Random streams, one per purpose, all from the seed.
        s_env, s_act, s_seat, s_shuffle, s_agents = streams(cfg.seed, 5)
        self.rng_env = np.random.default_rng(s_env)
        self.rng_act = np.random.default_rng(s_act)
        self.rng_seat = np.random.default_rng(s_seat)
        self.rng_shuffle = np.random.default_rng(s_shuffle)
        self.agent_seed = int(s_agents.generate_state(1)[0])
        torch.manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.net = PolicyNet(self.obs_dim, self.num_actions, cfg.hidden,
                             observation_scale(self.layout, cfg.obs_cap),
                             critic_extra=self.critic_extra, extra_scale=self.extra_scale
                             ).to(self.device)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        self.pool = OpponentPool(cfg, (self.obs_dim, self.num_actions, cfg.hidden),
                                 self.critic_extra)
        self.steps = 0
        self.updates = 0
        self.games = 0
        self.curve: list[dict[str, Any]] = []
        self.elapsed = 0.0
        self.agents = AgentCache(cfg, self.agent_seed)
        self.writer: Any = None
        self.last_stats: dict[str, float] = {}
        self.teacher_coef = cfg.teacher_coef if cfg.teacher else 0.0
        # engine: python -> one Rollout of raw_env games, with the trainer's pool and agents;
        # engine: batch -> workers, each with its own games, pool copy and streams
        self.workers: Pipeline | None = None
        self.rollout: Any = None
        if cfg.engine == "python":
            if self.device.type != "cpu":
                raise ValueError("engine: python runs on the CPU only; use engine: batch")
            self.rollout = Rollout(cfg, self.pool, self.agents,
                                   {"env": self.rng_env, "seat": self.rng_seat,
                                    "act": self.rng_act}, self.critic_extra)
        else:
            self.workers = Pipeline(cfg, str(self.device),
                                    sum(p.numel() for p in self.net.parameters()), self.sharded)

    # --- checkpoints ----------------------------------------------------------------------
    def checkpoint_dict(self) -> dict[str, Any]:
        """Everything needed to continue: weights, optimiser, pool, counters, random states."""
        return {
            "policy": policy_payload(self.net, self.key, self._info()),
            "optimizer": self.opt.state_dict(),
            "pool": self.pool.state(),
            "counters": {"steps": self.steps, "updates": self.updates, "games": self.games,
                         "elapsed": self.elapsed},
            "rng": {"env": self.rng_env.bit_generator.state,
                    "act": self.rng_act.bit_generator.state,
                    "seat": self.rng_seat.bit_generator.state,
                    "shuffle": self.rng_shuffle.bit_generator.state,
                    "torch": torch.get_rng_state()},
            "curve": self.curve,
            "config": dataclasses.asdict(self.cfg),
            **({"workers": []} if self.workers is None else self.workers.state()),
        }

    def _info(self) -> dict[str, Any]:
        return {"steps": self.steps, "updates": self.updates, "games": self.games,
                "seed": self.cfg.seed, "trainer": "selfplay"}

    def save_checkpoint(self, path: Path | None = None) -> Path:
        p = path or self.out / "checkpoint_last.pt"
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        torch.save(self.checkpoint_dict(), tmp)
        tmp.replace(p)
        return p

    def load_checkpoint(self, path: str | Path) -> None:
        ck = torch.load(Path(path), map_location="cpu", weights_only=True)
        self._load_weights(ck["policy"], path)
        self.opt.load_state_dict(ck["optimizer"])
        self.pool.load(ck["pool"])
        c = ck["counters"]
        self.steps, self.updates, self.games = int(c["steps"]), int(c["updates"]), int(c["games"])
        self.elapsed = float(c["elapsed"])
        r = ck["rng"]
        self.rng_env.bit_generator.state = r["env"]
        self.rng_act.bit_generator.state = r["act"]
        self.rng_seat.bit_generator.state = r["seat"]
        self.rng_shuffle.bit_generator.state = r["shuffle"]
        torch.set_rng_state(r["torch"])
        self.curve = list(ck["curve"])
        if self.workers is not None:
            self.workers.load(ck, str(path))

    def _load_weights(self, pol: dict[str, Any], path: str | Path, widen: bool = False
                      ) -> None:
        """Load a policy dict's weights, checked and fitted by ``fitted_weights``."""
        self.net.load_state_dict(fitted_weights(pol, path, self.key, self.layout, self.net,
                                                self.cfg.critic, widen))

    def load_init(self, path: str | Path) -> None:
        """Start from a policy file's weights (``init``, fitted by ``fitted_weights``);
        everything else starts afresh."""
        if not Path(path).is_file():
            raise FileNotFoundError(f"init policy {str(path)!r} does not exist")
        self._load_weights(load_policy(path)[1], path, widen=True)

    # --- update ---------------------------------------------------------------------------
    def _update(self, batch: dict[str, np.ndarray], ent_coef: float, teacher_coef: float
                ) -> dict[str, float]:
        if self.workers is not None and self.sharded:
            run = self.workers.shard_runner(self.net, batch, self.critic_extra > 0)
            return sharded_update(self.net, self.opt, self.cfg, batch, self.rng_shuffle,
                                  ent_coef, teacher_coef, int(self.cfg.workers), run)
        return ppo_update(self.net, self.opt, self.cfg, batch, self.rng_shuffle, ent_coef,
                          teacher_coef, self.device, self.critic_extra > 0)

    # --- evaluation -----------------------------------------------------------------------
    def evaluate(self, opponent: str, games: int, seed: int = 12345) -> dict[str, Any]:
        """Greedy policy vs ``opponent`` (an ``agents.load`` spec) over ``games`` games."""
        cfg = self.cfg
        run = evaluate_policy if cfg.engine == "python" else evaluate_policy_batch
        return run(self.net, opponent, games, variant=cfg.variant,
                   num_players=cfg.num_players, options=cfg.options,
                   max_steps=cfg.max_steps, seed=seed,
                   num_envs=min(cfg.num_envs, max(games, 1)))

    def _evaluate_all(self) -> None:
        cfg = self.cfg
        if not cfg.eval_games or not cfg.eval_opponents:
            return
        point: dict[str, Any] = {"steps": self.steps, "updates": self.updates,
                                 "games": self.games, "elapsed_s": round(self.elapsed, 1)}
        for opp in cfg.eval_opponents:
            r = self.evaluate(opp, cfg.eval_games)
            point[opp] = {k: r[k] for k in ("win_rate", "ci_low", "ci_high", "games")}
            self._scalar(f"eval/win_rate_vs_{opp}", r["win_rate"])
        self.curve.append(point)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "curve.json").write_text(json.dumps(self.curve, indent=1) + "\n")

    def _scalar(self, tag: str, value: float) -> None:
        if self.writer is not None:
            self.writer.add_scalar(tag, value, self.steps)

    def iteration(self) -> tuple[dict[str, Any], dict[str, float]]:
        """One rollout and one PPO update, with the schedules, counters and pool snapshots;
        returns the rollout's info and the update's statistics."""
        cfg = self.cfg
        frac = self.steps / cfg.total_steps
        lr = linear(cfg.lr, cfg.lr_final, frac) if cfg.lr_schedule == "linear" else cfg.lr
        ent = (linear(cfg.ent_coef, cfg.ent_coef_final, frac)
               if cfg.ent_schedule == "linear" else cfg.ent_coef)
        for group in self.opt.param_groups:
            group["lr"] = lr
        self.teacher_coef = (
            linear(cfg.teacher_coef, cfg.teacher_coef_final,
                   self.steps / cfg.teacher_steps) if cfg.teacher else 0.0)
        t0 = time.perf_counter()
        batch, info = self._collect()
        new_steps = info["new_steps"]
        t1 = time.perf_counter()
        stats = self._update(batch, ent, self.teacher_coef)
        t2 = time.perf_counter()
        self.steps += new_steps
        self.updates += 1
        self.games += info["games"]
        stats.update(lr=lr, ent_coef=ent, teacher_coef=self.teacher_coef,
                     batch=float(len(batch["act"])),
                     collect_s=t1 - t0, update_s=t2 - t1,
                     steps_per_s=new_steps / max(t2 - t0, 1e-9))
        if info["lengths"]:
            stats["game_length"] = float(np.mean(info["lengths"]))
            stats["truncated"] = info["truncated"] / len(info["lengths"])
        if self.updates % cfg.pool_interval == 0:
            if self.workers is not None:  # the trainer's pool: the versions, for the record
                self.workers.snapshot(self.updates, self.net)
                self.pool.snapshot(self.net, self.updates, set())
            else:
                self.pool.snapshot(self.net, self.updates, self.rollout.in_use())
        return info, stats

    def begin(self) -> None:
        """Deal the first games, or restore those in flight at the resumed checkpoint."""
        if self.workers is not None:
            self.workers.begin(self.net, self.teacher_coef)
        else:
            self.rollout.teacher_coef = self.teacher_coef
            self.rollout.start()

    # --- main loop ------------------------------------------------------------------------
    def _collect(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """One rollout: the trainable decisions (with advantages) and the games' results."""
        cfg = self.cfg
        if self.workers is not None:
            return self.workers.collect(self.net, self.teacher_coef, self.steps, self.updates)
        ro = self.rollout
        before = ro.size
        ro.teacher_coef = self.teacher_coef
        info = ro.collect(self.net)
        info["new_steps"] = ro.size - before
        batch = ro.batch(cfg.gamma, cfg.gae_lambda)
        ro.carry_over()
        return batch, info

    def run(self) -> dict[str, Any]:
        cfg = self.cfg
        prev_threads = torch.get_num_threads()
        prev_det = torch.are_deterministic_algorithms_enabled()
        torch.set_num_threads(int(cfg.threads))
        if cfg.deterministic:
            # exact on the CPU; on a GPU, ops without a deterministic kernel only warn
            gpu = self.device.type == "cuda"
            if gpu:  # read when cuBLAS starts: before the first matrix product
                os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
            torch.use_deterministic_algorithms(True, warn_only=gpu)
        try:
            return self._run()
        finally:
            torch.set_num_threads(prev_threads)
            torch.use_deterministic_algorithms(prev_det)
            if self.writer is not None:
                self.writer.close()
                self.writer = None
            if self.workers is not None:
                self.workers.close()

    def _resume_path(self) -> Path | None:
        r = self.cfg.resume
        if r is None or r == "":
            last = self.out / "checkpoint_last.pt"
            if last.exists():
                raise FileExistsError(
                    f"{self.out} already holds a run ({last}); set resume=auto to continue "
                    "it, or choose another output_dir")
            return None
        if r == "auto":
            last = self.out / "checkpoint_last.pt"
            return last if last.exists() else None
        p = Path(r)
        if not p.is_file():
            raise FileNotFoundError(f"resume checkpoint {r!r} does not exist")
        return p

    def _run(self) -> dict[str, Any]:
        cfg = self.cfg
        resume = self._resume_path()
        if resume is not None:
            self.load_checkpoint(resume)
        elif cfg.init:
            self.load_init(cfg.init)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "config.json").write_text(
            json.dumps(dataclasses.asdict(cfg), indent=1) + "\n")
        if cfg.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.out / "tb"), purge_step=self.steps or None)
        self.begin()
        from tqdm import tqdm

        bar = tqdm(total=cfg.total_steps, initial=min(self.steps, cfg.total_steps),
                   disable=not cfg.progress, unit="step", dynamic_ncols=True,
                   file=sys.stderr)
        win_window: dict[str, list[int]] = {}
        start = time.perf_counter()
        base_elapsed = self.elapsed
        if resume is None and cfg.eval_interval:
            self._evaluate_all()
        while self.steps < cfg.total_steps:
            info, stats = self.iteration()
            self.elapsed = base_elapsed + time.perf_counter() - start
            bar.update(min(info["new_steps"], cfg.total_steps - bar.n))
            for label, won in info["results"].items():
                win_window.setdefault(label, []).extend(won)
                win_window[label] = win_window[label][-500:]
            for label, won in win_window.items():
                stats[f"win_rate_vs_{label or 'none'}"] = float(np.mean(won))
            self.last_stats = stats
            for name, value in stats.items():
                self._scalar(f"train/{name}", value)
            postfix = {k.replace("win_rate_vs_", "vs_"): f"{v:.2f}" for k, v in stats.items()
                       if k.startswith("win_rate_vs_")}
            bar.set_postfix(postfix, refresh=False)
            done = self.steps >= cfg.total_steps
            if cfg.eval_interval and self.updates % cfg.eval_interval == 0 or done:
                self._evaluate_all()
            if self.updates % cfg.checkpoint_interval == 0 or done:
                self.save_checkpoint()
        bar.close()
        final = save_policy(self.out / "final.pt", self.net, self.key, self._info())
        if cfg.export:
            save_policy(cfg.export, self.net, self.key, self._info())
        self.elapsed = base_elapsed + time.perf_counter() - start
        return {"steps": self.steps, "updates": self.updates, "games": self.games,
                "elapsed_s": self.elapsed, "final": str(final), "curve": self.curve}


def train(config: dict[str, Any]) -> None:
    """Entry point for ``uno-env train`` with ``trainer: selfplay`` configs."""
    SelfPlayTrainer(config).run()
