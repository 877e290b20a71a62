"""Expert iteration (``uno-env expert CONFIG``; docs/expert-loop.md): generate search labels
with the current network -> train the network on them -> the new network becomes the search's
prior and playout policy -> generate again.

Everything an iteration makes lives in ``output_dir/iter_NNN/`` and each phase leaves a file
that says it is done, so a stopped run resumes where it stopped (``resume: auto``):

* ``labels/``: the label store (``uno_env.training.expert.labels``), written a chunk of
  games at a time; the generator skips the chunks already listed.
* ``train/``: the self-play trainer's run (mode ``ppo``; its ``checkpoint_last.pt`` resumes
  it exactly), then ``policy.pt``, the iteration's network (its presence: training done).
* ``report.json``: the iteration's row (evaluations and phase times; its presence: done).

Every seed derives from ``seed`` and the iteration, so a resumed run ends with the labels,
weights and report of an uninterrupted one.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.agents.policy import load_policy
from uno_env.seeding import derive_seed
from uno_env.training.expert import labels as label_store
from uno_env.training.expert.config import ExpertConfig
from uno_env.training.expert.loss import targets
from uno_env.training.expert.report import write_atomic, write_reports
from uno_env.training.expert.train import DistillTrainer, distill

DISTILL_STREAM = 5  # derive_seed(seed, DISTILL_STREAM, iteration): mode distill's order
# keys that may change when a run resumes (they do not change what it computes)
RESUMABLE = ("iterations", "resume", "progress", "tensorboard")


def prior_file(cfg: ExpertConfig) -> Path:
    """The policy file of ``prior`` (``ppo:SPEC`` as ``agents.load`` reads it, or a path)."""
    from uno_env.agents.ppo import checkpoint_path

    spec = cfg.prior[4:] if cfg.prior.startswith("ppo:") else cfg.prior
    return checkpoint_path(spec, cfg.num_players, options=cfg.options)


# generate()'s arguments the loop sets itself (the others may be given in ``generate:``)
GENERATE_OWNED = ("net", "out", "games", "variant", "players", "options", "seed",
                  "iteration", "searcher", "progress")


def check_generate_keys(keys: dict[str, Any]) -> None:
    """``generate:`` may hold generate()'s other keywords (its signature is the list)."""
    import inspect

    from uno_env.training.expert.generate import generate

    allowed = [k for k in inspect.signature(generate).parameters if k not in GENERATE_OWNED]
    bad = sorted(set(keys) - set(allowed))
    if bad:
        raise ValueError(f"generate: keys {', '.join(bad)} are not generate()'s or are set by "
                         f"the expert loop; allowed: {', '.join(allowed)}")


class ExpertLoop:
    """One run of the loop; ``run()`` does the iterations not done yet."""

    def __init__(self, config: dict[str, Any] | ExpertConfig) -> None:
        cfg = config if isinstance(config, ExpertConfig) else ExpertConfig.from_dict(config)
        self.cfg = cfg
        self.out = Path(cfg.output_dir)
        self.prior = prior_file(cfg)
        check_generate_keys(cfg.generate)
        self.writer: Any = None
        self.used = 0  # label rows the last train phase trained on
        self.title = f"Expert iteration: {cfg.variant}, {cfg.num_players} players, from {cfg.prior}"

    # --- where things are ----------------------------------------------------------------
    def dir(self, it: int) -> Path:
        return self.out / f"iter_{it:03d}"

    def policy(self, it: int) -> Path:
        """The network of iteration ``it`` (-1: the prior)."""
        return self.prior if it < 0 else self.dir(it) / "policy.pt"

    def meta(self, it: int) -> dict[str, Any]:
        from uno_env import Game

        cfg = self.cfg
        game = Game(cfg.variant, cfg.num_players, **cfg.options)
        return {"variant": cfg.variant, "players": cfg.num_players,
                "options": dict(game.options), "env_version": game.variant.version,
                "seed": cfg.seed, "iteration": it}

    # --- phases --------------------------------------------------------------------------
    def generate(self, it: int) -> dict[str, Any]:
        """Label games with iteration ``it - 1``'s network (resumes by chunk)."""
        from tqdm import tqdm

        from uno_env.training.expert.generate import generate

        cfg = self.cfg
        bar = tqdm(total=cfg.games, unit="game", disable=not cfg.progress, leave=False,
                   dynamic_ncols=True, file=sys.stderr, desc=f"iteration {it} labels")

        def moved(games: int, labels: int) -> None:  # after each chunk of games
            bar.update(games - bar.n)
            bar.set_postfix(labels=labels, refresh=False)

        try:
            r = generate(load_policy(self.policy(it - 1))[0], self.dir(it) / "labels",
                         cfg.games, variant=cfg.variant, players=cfg.num_players,
                         options=cfg.options, seed=cfg.seed, iteration=it, progress=moved,
                         **cfg.generate)
        finally:
            bar.close()
        return dataclasses.asdict(r)

    def search_eval(self, it: int) -> dict[str, Any] | None:
        """The search with iteration ``it``'s network against ``rule`` (no labels kept)."""
        cfg = self.cfg
        if not cfg.search_eval_games:
            return None
        from uno_env.training.expert.generate import generate

        r = generate(load_policy(self.policy(it))[0], None, cfg.search_eval_games,
                     variant=cfg.variant, players=cfg.num_players, options=cfg.options,
                     seed=cfg.eval_seed, **{**cfg.generate, "play": "search"})
        return {"win_rate": r.win_rate, "ci_low": r.low, "ci_high": r.high, "games": r.games}

    def network_eval(self, it: int) -> dict[str, Any] | None:
        """Iteration ``it``'s network, greedy, against ``rule`` on the compiled evaluator."""
        cfg = self.cfg
        if not cfg.eval_games:
            return None
        from uno_env.training.evaluate import evaluate

        r = evaluate(f"ppo:{self.policy(it)}", "rule", cfg.eval_games, variant=cfg.variant,
                     num_players=cfg.num_players, seed=cfg.eval_seed, options=cfg.options,
                     engine="batch")
        a = r.agents[0]
        return {"win_rate": a.win_rate, "ci_low": a.ci_low, "ci_high": a.ci_high,
                "games": r.games}

    def training_labels(self, it: int) -> tuple[dict[str, Any], int]:
        """The targets of the last ``label_window`` iterations' labels, and their count."""
        cfg = self.cfg
        parts = [label_store.load(self.dir(j) / "labels")
                 for j in range(max(0, it - cfg.label_window + 1), it + 1)]
        merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        return targets(merged, cfg.tau, cfg.num_players), len(merged["move"])

    def train(self, it: int) -> dict[str, float]:
        """Train iteration ``it``'s network from the previous one on ``data`` (targets);
        writes ``policy.pt``; returns the last update's statistics."""
        cfg = self.cfg
        data, used = self.training_labels(it)
        self.used = used
        prior = self.policy(it - 1)
        final = self.policy(it)
        if cfg.mode == "distill":
            return distill(prior, final, data, cfg.distill_epochs, cfg.distill_batch,
                           cfg.distill_lr, cfg.distill_value_coef,
                           seed=derive_seed(cfg.seed, DISTILL_STREAM, it))
        run_dir = self.dir(it) / "train"
        resume = "auto" if (run_dir / "checkpoint_last.pt").exists() else None
        trainer = DistillTrainer(cfg.selfplay_config(it, str(prior), str(run_dir), resume),
                                 data, cfg.distill_coef, cfg.distill_value_coef,
                                 cfg.distill_batch)
        summary = trainer.run()
        shutil.copyfile(summary["final"], final.with_name(final.name + ".tmp"))
        final.with_name(final.name + ".tmp").replace(final)
        # the update's statistics: not the times, nor the trainer's win-rate window (which a
        # resumed run restarts)
        return {k: v for k, v in trainer.last_stats.items()
                if not k.endswith("_s") and not k.startswith("win_rate")}

    # --- the run -------------------------------------------------------------------------
    def _check_resume(self) -> None:
        cfg = self.cfg
        saved = self.out / "config.json"
        if saved.exists() and cfg.resume != "auto":
            raise FileExistsError(f"{self.out} already holds an expert run ({saved}); set "
                                  "resume=auto to continue it, or choose another output_dir")
        mine = {k: v for k, v in dataclasses.asdict(cfg).items() if k not in RESUMABLE}
        if saved.exists():
            old = {k: v for k, v in json.loads(saved.read_text()).items()
                   if k not in RESUMABLE}
            diff = sorted(k for k in set(old) | set(mine) if old.get(k) != mine.get(k))
            if diff:
                raise ValueError(f"{self.out} holds a run with other settings ({', '.join(diff)}"
                                 "); resume it with the same ones or use another output_dir")
        self.out.mkdir(parents=True, exist_ok=True)
        write_atomic(saved, json.dumps(dataclasses.asdict(cfg), indent=1) + "\n")

    def iteration(self, it: int) -> dict[str, Any]:
        """Generate, train and evaluate iteration ``it`` (the phases not done yet)."""
        d = self.dir(it)
        done = d / "report.json"
        if done.exists():
            row: dict[str, Any] = json.loads(done.read_text())
            return row
        d.mkdir(parents=True, exist_ok=True)
        times = json.loads((d / "times.json").read_text()) if (d / "times.json").exists() \
            else {}
        if not self.policy(it).exists():
            t0 = time.perf_counter()
            gen = self.generate(it)
            t1 = time.perf_counter()
            times.setdefault("generate_s", 0.0)
            times["generate_s"] += t1 - t0
            write_atomic(d / "times.json", json.dumps(times) + "\n")
            stats = self.train(it)
            times.setdefault("train_s", 0.0)
            times["train_s"] += time.perf_counter() - t1
            times["train_stats"] = stats
            times["labels_used"] = self.used
            times["generate"] = {k: v for k, v in gen.items() if isinstance(v, int | float)}
            write_atomic(d / "times.json", json.dumps(times) + "\n")
        t2 = time.perf_counter()
        row = {"iteration": it, "network": self.network_eval(it),
               "search": self.search_eval(it)}
        manifest = label_store.read_manifest(d / "labels")
        row["labels"] = sum(int(c["labels"]) for c in manifest["chunks"])
        row.update(generate_s=times.get("generate_s"), train_s=times.get("train_s"),
                   evaluate_s=time.perf_counter() - t2, train_stats=times.get("train_stats"),
                   generate=times.get("generate"), labels_used=times.get("labels_used"),
                   policy=str(self.policy(it)))
        write_atomic(done, json.dumps(row, indent=1) + "\n")
        return row

    def baseline(self) -> dict[str, Any]:
        """The prior's row (iteration ``prior``), measured once."""
        path = self.out / "prior.json"
        if path.exists():
            row: dict[str, Any] = json.loads(path.read_text())
            return row
        t0 = time.perf_counter()
        row = {"iteration": "prior", "network": self.network_eval(-1),
               "search": self.search_eval(-1), "evaluate_s": time.perf_counter() - t0,
               "policy": str(self.prior)}
        write_atomic(path, json.dumps(row, indent=1) + "\n")
        return row

    def run(self) -> dict[str, Any]:
        cfg = self.cfg
        self._check_resume()
        if cfg.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.out / "tb"))
        import torch
        from tqdm import tqdm

        prev_threads = torch.get_num_threads()
        torch.set_num_threads(cfg.threads)
        bar = tqdm(total=cfg.iterations, unit="iter", disable=not cfg.progress,
                   dynamic_ncols=True, file=sys.stderr, desc="expert")
        try:
            rows = [self.baseline()]
            write_reports(self.out, rows, self.title)
            for it in range(cfg.iterations):
                fresh = not (self.dir(it) / "report.json").exists()
                row = self.iteration(it)
                rows.append(row)
                write_reports(self.out, rows, self.title)
                if fresh:  # a resumed run's TensorBoard has the earlier ones already
                    self._scalars(row)
                bar.update(1)
                bar.set_postfix({k: f"{row[k]['win_rate']:.3f}" for k in ("network", "search")
                                 if row.get(k)}, refresh=False)
        finally:
            torch.set_num_threads(prev_threads)
            bar.close()
            if self.writer is not None:
                self.writer.close()
                self.writer = None
        return {"iterations": cfg.iterations, "policy": str(self.policy(cfg.iterations - 1)),
                "report": str(self.out / "report.md"), "rows": rows}

    def _scalars(self, row: dict[str, Any]) -> None:
        if self.writer is None:
            return
        step = int(row["iteration"]) + 1
        for k in ("network", "search"):
            if row.get(k):
                self.writer.add_scalar(f"expert/{k}_win_rate_vs_rule", row[k]["win_rate"], step)
        for k in ("labels", "labels_used", "generate_s", "train_s", "evaluate_s"):
            if row.get(k) is not None:
                self.writer.add_scalar(f"expert/{k}", row[k], step)
        for k, v in (row.get("train_stats") or {}).items():
            self.writer.add_scalar(f"expert_train/{k}", v, step)


def train(config: dict[str, Any]) -> None:
    """Entry point for ``uno-env train`` with ``trainer: expert`` configs."""
    ExpertLoop(config).run()
