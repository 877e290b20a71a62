"""The keys of an expert-iteration run (``uno-env expert CONFIG``; docs/expert-loop.md), read
by the same rules as the trainers' configs (:mod:`uno_env.training.config`): unknown keys and
bad values are errors that name what is allowed."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from uno_env.seeding import derive_seed
from uno_env.training.config import SelfPlayConfig, TrainerConfig, one_of, positive

MODES = ("ppo", "distill")
TRAIN_STREAM = 1  # derive_seed(seed, TRAIN_STREAM, iteration): the train phase's seed
# SelfPlayConfig keys the loop sets itself in the train phase (from its own keys)
OWNED = ("trainer", "variant", "num_players", "options", "seed", "total_steps", "output_dir",
         "resume", "init", "export", "progress", "tensorboard")


@dataclass
class ExpertConfig(TrainerConfig):
    """Every key a ``trainer: expert`` YAML config may have."""

    LABEL: ClassVar[str] = "expert config"
    TRAINER: ClassVar[str] = "expert"

    trainer: str = "expert"
    # the first iteration's network (search prior and playout policy): an agents.load
    # "ppo:..." spec (ppo:classic-vd) or a policy file; later iterations use the last one's
    prior: str = "ppo:classic-vd"
    iterations: int = 10
    output_dir: str = "runs/expert"
    resume: str | None = None  # "auto": continue the run in output_dir; null: a new run
    # --- generate: label games, learner seat against compiled rule (expert.generate)
    games: int = 2000  # label games per iteration
    generate: dict[str, Any] = field(default_factory=dict)  # more generate() keywords
    # --- train
    # "ppo": the self-play PPO trainer with the distillation term added to its loss
    # (ppo_steps learner decisions per iteration, keys of the selfplay: section);
    # "distill": distill_epochs passes over the labels alone, no games
    mode: str = "ppo"
    tau: float = 0.05  # temperature of pi' ~ pi exp(q / tau); q is a win share in [0, 1]
    distill_coef: float = 1.0  # weight of the distillation term (0: plain PPO)
    distill_value_coef: float = 0.5  # weight of its value error inside it
    distill_batch: int = 1024  # label rows per minibatch
    label_window: int = 2  # train on the labels of the last this-many iterations
    ppo_steps: int = 2_000_000  # mode ppo: learner decisions per iteration
    selfplay: dict[str, Any] = field(default_factory=dict)  # SelfPlayConfig keys (mode ppo)
    distill_epochs: int = 4  # mode distill: passes over the labels
    distill_lr: float = 1e-4  # mode distill: Adam's learning rate
    # --- evaluate, each iteration
    eval_games: int = 20_000  # the network against rule, duplicate deals (compiled)
    search_eval_games: int = 2000  # the search against rule (generate(play="search"))
    eval_seed: int = 12345
    progress: bool = True
    tensorboard: bool = True
    # torch threads while the loop searches and evaluates (set for the run, then restored, as
    # the trainer does): the search's forward passes are small batches, which more threads
    # only slow down (7x slower with 2 than with 1 on a busy 2-core machine); the PPO phase
    # runs with selfplay: threads
    threads: int = 1

    def validate(self) -> None:
        super().validate()
        positive(self, "iterations", "games", "threads", "distill_batch", "label_window",
                 "ppo_steps", "distill_epochs")
        one_of(self, "mode", MODES)
        if not (math.isfinite(self.tau) and self.tau > 0):
            raise ValueError(f"tau must be a finite number > 0, got {self.tau}")
        for name in ("distill_coef", "distill_value_coef", "eval_games", "search_eval_games"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not self.distill_lr > 0:
            raise ValueError(f"distill_lr must be > 0, got {self.distill_lr}")
        if self.mode == "distill" and self.distill_coef == 0:
            raise ValueError("mode: distill with distill_coef: 0 would train nothing; use "
                             "mode: ppo for plain PPO")
        if self.resume not in (None, "", "auto"):
            raise ValueError(f"resume must be auto or null, got {self.resume!r}")
        if not self.prior:
            raise ValueError("prior must name the first network: ppo:SPEC or a policy file")
        owned = sorted(set(self.selfplay) & set(OWNED))
        if owned:
            raise ValueError(f"selfplay: keys {', '.join(owned)} are set by the expert loop "
                             f"(from its own keys); remove them from the selfplay: section")
        self.selfplay_config(0)  # its keys and values checked now, not an hour in

    def selfplay_config(self, iteration: int, init: str | None = None,
                        output_dir: str = "unused", resume: str | None = None
                        ) -> SelfPlayConfig:
        """The train phase's self-play config of ``iteration`` (mode ppo)."""
        return SelfPlayConfig.from_dict({
            **self.selfplay, "trainer": "selfplay", "variant": self.variant,
            "num_players": self.num_players, "options": self.options,
            "seed": derive_seed(self.seed, TRAIN_STREAM, iteration), "total_steps": self.ppo_steps,
            "output_dir": output_dir, "resume": resume, "init": init, "export": None,
            "progress": self.progress, "tensorboard": self.tensorboard})
