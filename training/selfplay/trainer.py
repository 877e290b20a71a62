"""The self-play PPO learner: network, optimiser, PPO update, checkpoints and the training
loop; games are played by :mod:`uno_env.training.selfplay.rollout`, seats filled by
:mod:`uno_env.training.selfplay.opponents`, progress measured by
:mod:`uno_env.training.selfplay.evaluation`."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env import ObservationLayout
from uno_env.agents.policy import (
    PolicyNet,
    config_key,
    observation_scale,
    policy_payload,
    save_policy,
)
from uno_env.seeding import streams
from uno_env.training.config import SelfPlayConfig
from uno_env.training.selfplay.evaluation import evaluate_policy
from uno_env.training.selfplay.opponents import AgentCache, OpponentPool
from uno_env.training.selfplay.rollout import Rollout, make_env


def linear(start: float, end: float, frac: float) -> float:
    """``start`` at ``frac=0`` to ``end`` at ``frac=1`` (clamped)."""
    frac = min(max(frac, 0.0), 1.0)
    return start + (end - start) * frac


class SelfPlayTrainer:
    """The learner; ``run()`` trains to ``total_steps`` and returns a summary dict."""

    def __init__(self, config: dict[str, Any] | SelfPlayConfig) -> None:
        cfg = config if isinstance(config, SelfPlayConfig) else SelfPlayConfig.from_dict(config)
        self.cfg = cfg
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
        self.net = PolicyNet(self.obs_dim, self.num_actions, cfg.hidden,
                             observation_scale(self.layout, cfg.obs_cap),
                             critic_extra=self.critic_extra, extra_scale=self.extra_scale)
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
        self.rollout = Rollout(cfg, self.pool, self.agents,
                               {"env": self.rng_env, "seat": self.rng_seat,
                                "act": self.rng_act}, self.critic_extra)

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
        pol = ck["policy"]
        for k in ("variant", "num_players", "obs_dim", "num_actions", "action_meanings"):
            if pol[k] != self.key[k]:
                raise ValueError(f"checkpoint {str(path)!r} is for another game ({k}: "
                                 f"{pol[k]!r} vs {self.key[k]!r})")
        if list(pol["hidden"]) != list(self.cfg.hidden):
            raise ValueError(f"checkpoint {str(path)!r} has hidden={pol['hidden']}, the "
                             f"config asks for {self.cfg.hidden}")
        if int(pol.get("critic_extra", 0)) != self.critic_extra:
            raise ValueError(f"checkpoint {str(path)!r} was trained with another critic than "
                             f"critic={self.cfg.critic!r}")
        self.net.load_state_dict(pol["model"])
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

    # --- update ---------------------------------------------------------------------------
    def _update(self, train: np.ndarray, adv: np.ndarray, ret: np.ndarray,
                ent_coef: float, teacher_coef: float) -> dict[str, float]:
        cfg = self.cfg
        obs = torch.from_numpy(self.rollout.b_obs[train])
        mask = torch.from_numpy(self.rollout.b_mask[train])
        act = torch.from_numpy(self.rollout.b_act[train])
        old_logp = torch.from_numpy(self.rollout.b_logp[train])
        t_adv = torch.from_numpy(adv)
        t_ret = torch.from_numpy(ret)
        teacher = torch.from_numpy(self.rollout.b_teacher[train])
        extra = torch.from_numpy(self.rollout.b_extra[train]) if self.critic_extra else None
        count = len(train)
        n_mb = max(1, round(count / cfg.minibatch_size))
        stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0,
                 "clip_frac": 0.0, "teacher_loss": 0.0, "teacher_agree": 0.0}
        batches = 0
        self.net.train()
        for _ in range(cfg.epochs):
            perm = self.rng_shuffle.permutation(count)
            for mb_np in np.array_split(perm, n_mb):
                mb = torch.from_numpy(mb_np)
                logits, value = self.net(obs[mb], mask[mb],
                                         None if extra is None else extra[mb])
                logp_all = torch.log_softmax(logits, dim=-1)
                logp = logp_all.gather(1, act[mb][:, None])[:, 0]
                entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
                a = t_adv[mb]
                if len(mb) > 1:
                    a = (a - a.mean()) / (a.std() + 1e-8)
                log_ratio = logp - old_logp[mb]
                ratio = log_ratio.exp()
                pg = -torch.min(ratio * a,
                                ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
                v_loss = 0.5 * (value - t_ret[mb]).pow(2).mean()
                loss = pg + cfg.vf_coef * v_loss - ent_coef * entropy
                t_mb = teacher[mb]
                taught = t_mb >= 0
                if teacher_coef > 0 and bool(taught.any()):
                    t_logp = logp_all[taught].gather(1, t_mb[taught][:, None])[:, 0]
                    t_loss = -t_logp.mean()
                    loss = loss + teacher_coef * t_loss
                    with torch.no_grad():
                        stats["teacher_loss"] += float(t_loss)
                        stats["teacher_agree"] += float(
                            (logits[taught].argmax(-1) == t_mb[taught]).float().mean())
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.opt.step()
                with torch.no_grad():
                    stats["policy_loss"] += float(pg)
                    stats["value_loss"] += float(v_loss)
                    stats["entropy"] += float(entropy)
                    stats["approx_kl"] += float(((ratio - 1) - log_ratio).mean())
                    stats["clip_frac"] += float(((ratio - 1).abs() > cfg.clip).float().mean())
                batches += 1
        self.net.eval()
        return {k: v / batches for k, v in stats.items()}

    # --- evaluation -----------------------------------------------------------------------
    def evaluate(self, opponent: str, games: int, seed: int = 12345) -> dict[str, Any]:
        """Greedy policy vs ``opponent`` (an ``agents.load`` spec) over ``games`` games."""
        cfg = self.cfg
        return evaluate_policy(self.net, opponent, games, variant=cfg.variant,
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

    # --- main loop ------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        cfg = self.cfg
        prev_threads = torch.get_num_threads()
        prev_det = torch.are_deterministic_algorithms_enabled()
        torch.set_num_threads(cfg.threads)
        if cfg.deterministic:
            torch.use_deterministic_algorithms(True)
        try:
            return self._run()
        finally:
            torch.set_num_threads(prev_threads)
            torch.use_deterministic_algorithms(prev_det)
            if self.writer is not None:
                self.writer.close()
                self.writer = None

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
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "config.json").write_text(
            json.dumps(dataclasses.asdict(cfg), indent=1) + "\n")
        if cfg.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.out / "tb"), purge_step=self.steps or None)
        self.rollout.teacher_coef = self.teacher_coef
        self.rollout.start()
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
            frac = self.steps / cfg.total_steps
            lr = linear(cfg.lr, cfg.lr_final, frac) if cfg.lr_schedule == "linear" else cfg.lr
            ent = (linear(cfg.ent_coef, cfg.ent_coef_final, frac)
                   if cfg.ent_schedule == "linear" else cfg.ent_coef)
            for group in self.opt.param_groups:
                group["lr"] = lr
            self.teacher_coef = (
                linear(cfg.teacher_coef, cfg.teacher_coef_final,
                       self.steps / cfg.teacher_steps) if cfg.teacher else 0.0)
            before = self.rollout.size
            t0 = time.perf_counter()
            self.rollout.teacher_coef = self.teacher_coef
            info = self.rollout.collect(self.net)
            t1 = time.perf_counter()
            new_steps = self.rollout.size - before
            train, adv, ret = self.rollout.advantages(cfg.gamma, cfg.gae_lambda)
            stats = self._update(train, adv, ret, ent, self.teacher_coef)
            self.rollout.carry_over()
            t2 = time.perf_counter()
            self.steps += new_steps
            self.updates += 1
            self.games += info["games"]
            self.elapsed = base_elapsed + time.perf_counter() - start
            bar.update(min(new_steps, cfg.total_steps - bar.n))
            for label, won in info["results"].items():
                win_window.setdefault(label, []).extend(won)
                win_window[label] = win_window[label][-500:]
            stats.update(lr=lr, ent_coef=ent, teacher_coef=self.teacher_coef,
                         batch=float(len(train)),
                         collect_s=t1 - t0, update_s=t2 - t1,
                         steps_per_s=new_steps / max(t2 - t0, 1e-9))
            if info["lengths"]:
                stats["game_length"] = float(np.mean(info["lengths"]))
                stats["truncated"] = info["truncated"] / len(info["lengths"])
            for label, won in win_window.items():
                stats[f"win_rate_vs_{label or 'none'}"] = float(np.mean(won))
            self.last_stats = stats
            for name, value in stats.items():
                self._scalar(f"train/{name}", value)
            postfix = {k.replace("win_rate_vs_", "vs_"): f"{v:.2f}" for k, v in stats.items()
                       if k.startswith("win_rate_vs_")}
            bar.set_postfix(postfix, refresh=False)
            if self.updates % cfg.pool_interval == 0:
                self.pool.snapshot(self.net, self.updates, self.rollout.in_use())
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
