"""Trainer configs: one dataclass per trainer, read from a YAML mapping by one set of rules.

Both trainers (``trainer: selfplay``, ``trainer: sb3``) declare their keys and defaults as a
:class:`Config` dataclass; :meth:`Config.from_dict` refuses unknown keys (naming the allowed
ones), reads each value as the type of its default (YAML values and ``--set`` strings:
``"3e-4"`` is a float, ``"false"`` a bool, ``"64,64"`` a list), reads a section (a field whose
default is itself a :class:`Config`, such as sb3's ``ppo:``) by the same rules, and checks the
result with :meth:`Config.validate`. Nothing here imports torch or sb3.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

_TRUE = ("true", "on", "yes", "1")
_FALSE = ("false", "off", "no", "0")


def coerce(name: str, value: Any, default: Any) -> Any:
    """``value`` as the type of the key's default (``"3e-4"`` -> 0.0003, ``"true"`` -> True)."""
    if value is None:
        return {} if isinstance(default, dict) else None
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                low = value.strip().lower()
                if low not in _TRUE + _FALSE:
                    raise ValueError(value)
                return low in _TRUE
            return bool(value)
        if isinstance(default, int):
            f = float(value)
            if f != int(f):
                raise ValueError(value)
            return int(f)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise ValueError(value)
            return dict(value)
        if isinstance(default, list):
            if isinstance(value, str):
                value = [v for v in value.replace("[", "").replace("]", "").split(",") if v]
            if not isinstance(value, list | tuple):
                raise ValueError(value)
            kind = type(default[0]) if default else str
            return [kind(v.strip()) if isinstance(v, str) else kind(v) for v in value]
        return value if default is None or isinstance(value, type(default)) else str(value)
    except (TypeError, ValueError):
        raise ValueError(f"config key {name} must be like {default!r}, got {value!r}") from None


@dataclass
class Config:
    """The base of every trainer config and config section."""

    LABEL: ClassVar[str] = "config"  # how error messages name it ("selfplay config", "ppo")

    @classmethod
    def from_dict(cls, config: Mapping[str, Any] | None) -> Self:
        """Check and coerce a config mapping; unknown keys are an error, not ignored."""
        config = dict(config or {})
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(config) - set(names))
        if unknown:
            plural = "s" if len(unknown) > 1 else ""
            raise ValueError(f"unknown {cls.LABEL} key{plural} "
                             f"{', '.join(repr(k) for k in unknown)}; allowed: "
                             f"{', '.join(names)}")
        defaults = cls()
        values: dict[str, Any] = {}
        for name, value in config.items():
            default = getattr(defaults, name)
            if isinstance(default, Config):
                if value is not None and not isinstance(value, Mapping):
                    raise ValueError(f"config key {name} must be a mapping of "
                                     f"{type(default).LABEL} keys, got {value!r}")
                values[name] = type(default).from_dict(value)
            else:
                values[name] = coerce(name, value, default)
        cfg = cls(**values)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        """Raise ``ValueError`` naming a bad value and what is allowed."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def positive(cfg: Config, *names: str) -> None:
    """Each named key must be >= 1."""
    for name in names:
        if getattr(cfg, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(cfg, name)}")


def one_of(cfg: Config, name: str, allowed: tuple[str, ...]) -> None:
    if getattr(cfg, name) not in allowed:
        raise ValueError(f"{name}={getattr(cfg, name)!r}; allowed: {', '.join(allowed)}")


@dataclass
class TrainerConfig(Config):
    """The keys every trainer has: which trainer (its ``TRAINER``), the game, the run seed."""

    TRAINER: ClassVar[str] = ""

    trainer: str = ""
    variant: str = "classic"
    num_players: int = 2
    options: dict[str, Any] = field(default_factory=dict)  # rule options of the variant
    seed: int = 0

    def validate(self) -> None:
        if self.trainer != self.TRAINER:
            raise ValueError(f"this config is for trainer: {self.TRAINER}, got "
                             f"trainer: {self.trainer!r}")
        positive(self, "num_players")


# --- native self-play PPO ---------------------------------------------------------------------
OPPONENT_KINDS = ("self", "rule", "random", "frozen")
SCHEDULES = ("linear", "constant")


@dataclass
class SelfPlayConfig(TrainerConfig):
    """Every key a ``trainer: selfplay`` YAML config may have (see
    :mod:`uno_env.training.selfplay`)."""

    LABEL: ClassVar[str] = "selfplay config"
    TRAINER: ClassVar[str] = "selfplay"

    trainer: str = "selfplay"
    # "batch": games on the compiled batch engine (uno_env.vector_env); "python": raw_env
    # games, one Python call per decision (the trainer before the batch engine; slower)
    engine: str = "batch"
    # engine batch: "compiled" moves rule / random seats by numba kernels that choose what the
    # Python agents choose (uno_env.batch.opponents; the same games); "python": agent calls
    opponent_engine: str = "compiled"
    num_envs: int = 64  # games played side by side (split between the workers)
    # rollout workers (batch engine), each playing its share of the num_envs games: "auto" is
    # one per CPU this process may use (docs/training.md, "Every core")
    workers: int | str = "auto"
    # updates by which the weights a rollout is played with trail the learner's: 0 plays each
    # rollout with the current weights (with workers > 1 they then share the update); 1 lets
    # the workers play the next rollout while the learner updates. "auto": 1 for Ray, else 0
    policy_lag: int | str = "auto"
    # workers > 1 run in their own processes; false: one after another in the learner's
    # process (the same numbers, one core: for debugging)
    worker_processes: bool = True
    ray: bool = False  # run the workers as Ray actors (see uno_env.training.selfplay.workers)
    ray_address: str | None = None  # ray.init address: null starts a local cluster
    device: str = "cpu"  # cpu | cuda | cuda:N | auto (cuda when available); the learner's
    rollout_ticks: int = 128  # decisions per game between two updates
    total_steps: int = 2_000_000  # recorded learner decisions
    max_steps: int = 2000  # decisions per game before truncation
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    # "obs": the value head shares the policy's trunk; "state": a separate value MLP that also
    # reads the other players' hands (training only; the policy never sees them)
    critic: str = "obs"
    obs_cap: float = 10.0  # see uno_env.agents.policy.observation_scale
    lr: float = 3e-4
    lr_final: float = 3e-5
    lr_schedule: str = "linear"
    ent_coef: float = 0.01
    ent_coef_final: float = 0.001
    ent_schedule: str = "linear"
    clip: float = 0.2
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    gamma: float = 0.995
    gae_lambda: float = 0.95
    epochs: int = 3
    minibatch_size: int = 1024
    opponents: dict[str, float] = field(
        default_factory=lambda: {"self": 0.3, "rule": 0.5, "frozen": 0.2})
    frozen_greedy: bool = False  # frozen opponents take their argmax instead of sampling
    # Kickstarting: a cross-entropy term towards a teacher's action (an agents.load spec) on
    # the learner's own decisions, its weight decaying linearly to teacher_coef_final at
    # teacher_steps; no teacher when null.
    teacher: str | None = None
    teacher_coef: float = 1.0
    teacher_coef_final: float = 0.0
    teacher_steps: int = 500_000
    pool_size: int = 8
    pool_interval: int = 20  # updates between two snapshots into the pool
    checkpoint_interval: int = 25  # updates between checkpoints
    eval_interval: int = 25  # updates between evaluations (0: only at the end)
    eval_games: int = 200  # per opponent, seats alternating
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "rule"])
    output_dir: str = "runs/classic_selfplay"
    resume: str | None = None  # checkpoint path, or "auto": output_dir/checkpoint_last.pt
    # A policy file (or training checkpoint) whose weights start a new run: fine-tuning a
    # trained agent against another pool. Only the weights: optimiser, counters, pool and
    # schedules start afresh. Ignored when the run resumes.
    init: str | None = None
    export: str | None = None  # also write the final policy file here
    progress: bool = True
    tensorboard: bool = True
    # the learner's torch intra-op threads (the PPO update, three quarters of the work on one
    # core); "auto": 1 when the workers share the update (sharded_update), else as many as
    # the workers, one per core (each worker plays on one thread)
    threads: int | str = "auto"
    deterministic: bool = True  # torch.use_deterministic_algorithms during the run

    def validate(self) -> None:
        from uno_env.agents.policy import config_key

        super().validate()
        positive(self, "num_envs", "rollout_ticks", "total_steps", "max_steps",
                 "epochs", "minibatch_size", "pool_size", "pool_interval",
                 "checkpoint_interval")
        if self.eval_interval < 0 or self.eval_games < 0:
            raise ValueError("eval_interval and eval_games must be >= 0")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden must list positive layer widths, got {self.hidden}")
        one_of(self, "critic", ("obs", "state"))
        one_of(self, "engine", ("batch", "python"))
        one_of(self, "opponent_engine", ("compiled", "python"))
        self.workers = auto_or_int(self, "workers", 1)
        self.policy_lag = auto_or_int(self, "policy_lag", 0)
        self.threads = auto_or_int(self, "threads", 1)
        if self.policy_lag not in ("auto", 0, 1):
            raise ValueError(f"policy_lag must be auto, 0 or 1, got {self.policy_lag!r}")
        if self.engine == "python" and (self.workers not in ("auto", 1) or self.ray
                                        or self.policy_lag == 1):
            raise ValueError("workers > 1, policy_lag: 1 and ray need engine: batch")
        if isinstance(self.workers, int) and self.workers > self.num_envs:
            raise ValueError(f"workers={self.workers} but there are only num_envs="
                             f"{self.num_envs} games to share between them")
        if not (self.device in ("cpu", "cuda", "auto") or self.device.startswith("cuda:")):
            raise ValueError(f"device={self.device!r}; allowed: cpu, cuda, cuda:N, auto")
        one_of(self, "lr_schedule", SCHEDULES)
        one_of(self, "ent_schedule", SCHEDULES)
        bad = sorted(set(self.opponents) - set(OPPONENT_KINDS))
        if bad:
            raise ValueError(f"unknown opponent kind(s) {', '.join(bad)}; allowed: "
                             f"{', '.join(OPPONENT_KINDS)}")
        if any(p < 0 for p in self.opponents.values()) or sum(self.opponents.values()) <= 0:
            raise ValueError(f"opponents must be non-negative weights with a positive sum, got "
                             f"{self.opponents}")
        if self.teacher is not None and self.teacher not in ("rule", "random") and not \
                self.teacher.startswith(("ppo:", "sb3:")):
            raise ValueError(f"teacher must be an agents.load spec, got {self.teacher!r}")
        if not 0.0 < self.gamma <= 1.0 or not 0.0 <= self.gae_lambda <= 1.0:
            raise ValueError("gamma must be in (0, 1] and gae_lambda in [0, 1]")
        config_key(self.variant, self.num_players, self.options)  # the game must exist

    def resolved(self, share_update: bool = True) -> SelfPlayConfig:
        """A copy with ``workers``, ``policy_lag`` and ``threads`` as numbers: ``auto`` workers
        is one per CPU this process may use (at most ``num_envs``; one on ``engine:
        python``). For a trainer whose workers can share the update (``share_update``, the
        self-play trainer's), ``auto`` lag is 1 for Ray actors, else 0, and ``auto`` threads
        1 when the update is then sharded (:attr:`sharded_update`); otherwise (the expert
        loop's distillation) ``auto`` lag is 1 when the workers run beside the learner (in
        processes or Ray actors), and ``auto`` threads as many as the workers."""
        workers = self.workers
        if workers == "auto":
            workers = 1 if self.engine == "python" else min(usable_cpus(), self.num_envs)
        beside = self.ray or (int(workers) > 1 and self.worker_processes)
        lag = self.policy_lag
        if lag == "auto":
            lag = (1 if self.ray else 0) if share_update else (1 if beside else 0)
        out = dataclasses.replace(self, workers=int(workers), policy_lag=int(lag))
        threads = self.threads
        if threads == "auto":
            threads = 1 if share_update and out.sharded_update else int(workers)
        return dataclasses.replace(out, threads=int(threads))

    @property
    def sharded_update(self) -> bool:
        """Whether the PPO update is spread over the rollout workers (resolved configs:
        two workers or more, no lag, no Ray, the learner on the CPU; see
        ``uno_env.training.selfplay.sharded``)."""
        return (isinstance(self.workers, int) and self.workers > 1 and self.policy_lag == 0
                and not self.ray and self.device == "cpu")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def auto_or_int(cfg: Config, name: str, low: int) -> int | str:
    """Key ``name`` as ``"auto"`` or an int >= ``low`` (YAML and ``--set`` give either)."""
    value = getattr(cfg, name)
    if value == "auto":
        return "auto"
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = low - 1
    if str(number) != str(value).strip() or number < low:
        raise ValueError(f"{name} must be auto or an integer >= {low}, got {value}")
    return number


# --- SB3 MaskablePPO ----------------------------------------------------------------------------
@dataclass
class SB3PPOConfig(Config):
    """The ``ppo:`` section of an sb3 config: MaskablePPO's own arguments."""

    LABEL: ClassVar[str] = "ppo"

    learning_rate: float = 3.0e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    net_arch: list[int] = field(default_factory=lambda: [256, 256])


@dataclass
class SB3Config(TrainerConfig):
    """Every key a ``trainer: sb3`` YAML config may have (see :mod:`uno_env.training.sb3_train`)."""

    LABEL: ClassVar[str] = "sb3 config"
    TRAINER: ClassVar[str] = "sb3"

    trainer: str = "sb3"
    opponents: list[str] = field(default_factory=lambda: ["random", "rule"])
    reward: str = "win_loss"
    max_steps: int | None = None  # decisions per episode (all seats) before truncation
    total_timesteps: int = 1_000_000
    n_envs: int = 4
    vec_env: str = "dummy"  # dummy | subproc
    output_dir: str = "runs/sb3"
    checkpoint_every: int = 100_000  # learner decisions, all envs together
    progress: bool = True
    device: str = "cpu"
    torch_threads: int = 1  # small MLPs: more threads only add contention
    lr_schedule: str = "constant"  # constant | linear (to 0 at the end)
    resume: str | None = None  # a model.zip to continue from (total_timesteps more steps)
    verbose: int = 0
    ppo: SB3PPOConfig = field(default_factory=SB3PPOConfig)

    def validate(self) -> None:
        super().validate()
        one_of(self, "vec_env", ("dummy", "subproc"))
        one_of(self, "lr_schedule", ("constant", "linear"))
        positive(self, "n_envs", "total_timesteps", "checkpoint_every")
