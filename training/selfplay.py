"""Native PyTorch self-play: masked PPO with one policy playing many games at once.

How a run goes (``train(config)``; keys and defaults in :class:`SelfPlayConfig`):

* ``num_envs`` games (``uno_env.raw_env``) run side by side. Each game, at its start, gets
  one *learner* seat at random; every other seat is drawn from the opponent pool
  (``opponents``: ``self`` is the learning policy again, ``rule`` / ``random`` the agents of
  :mod:`agents`, ``frozen`` a past version of the policy, kept every ``pool_interval``
  updates, the last ``pool_size`` of them). Every learner and ``self`` seat is recorded.
* Each *tick*, every game makes one decision. All games whose acting seat is a learner seat
  are evaluated by the policy in one batch; frozen seats are batched per version.
* Each recorded seat has its own trajectory: its decisions in order, with every reward the
  game pays that seat (the terminal +1/-1 included, even when another seat ended the game)
  added to the seat's latest decision. GAE(lambda) runs along these per-seat chains. A seat's
  last decision in a rollout, whose successor is not known yet, serves as the bootstrap value
  of its predecessor and is trained in the next rollout (with the log-probability it was
  sampled with, so the importance ratio stays exact). Truncation at ``max_steps`` counts as
  the end of the game with no reward.
* After ``rollout_ticks`` ticks: PPO (clipped objective, ``epochs`` passes over shuffled
  minibatches, advantage normalisation per minibatch), learning rate and entropy coefficient
  decaying linearly with the steps done.
* Optional *kickstarting* (``teacher: rule``): on the learner's own decisions the teacher
  agent is asked what it would do, and a cross-entropy term pulls the policy towards it with
  a weight that decays to ``teacher_coef_final`` over ``teacher_steps``: the policy starts
  from the heuristic's play and PPO then improves on it.
* Optional asymmetric critic (``critic: state``): the value MLP also reads the other
  players' hands (training only; the policy and the shipped agent read the observation).

Steps are counted in recorded learner decisions. Runs are exactly reproducible on CPU from
``seed``. ``resume`` (a checkpoint path, or ``auto`` for ``output_dir/checkpoint_last.pt``)
restores weights, optimiser, opponent pool, counters and random states; games in flight at
the checkpoint are not stored, so a resumed run deals fresh games (reproducibly).

Files in ``output_dir``: ``checkpoint_last.pt`` (everything), ``final.pt`` (policy only,
small: what ``agents.load("ppo:PATH")`` reads), ``curve.json`` (evaluation win rates over
training), ``tb/`` (TensorBoard).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from training.ppo_model import (
    PolicyNet,
    config_key,
    observation_scale,
    policy_payload,
    save_policy,
)
from uno_env import ObservationLayout, raw_env
from uno_env.stats import wilson_counts

OPPONENT_KINDS = ("self", "rule", "random", "frozen")
SCHEDULES = ("linear", "constant")

# Seat kinds inside the runner.
LEARNER, RULE, RANDOM, FROZEN = range(4)
_KIND_NAMES = {LEARNER: "self", RULE: "rule", RANDOM: "random", FROZEN: "frozen"}


@dataclass
class SelfPlayConfig:
    """Every key a ``trainer: selfplay`` YAML config may have (unknown keys are refused)."""

    trainer: str = "selfplay"
    variant: str = "classic"
    num_players: int = 2
    options: dict[str, Any] = field(default_factory=dict)  # rule options of the variant
    seed: int = 0
    num_envs: int = 64  # games played side by side
    rollout_ticks: int = 128  # decisions per game between two updates
    total_steps: int = 2_000_000  # recorded learner decisions
    max_steps: int = 2000  # decisions per game before truncation
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    # "obs": the value head shares the policy's trunk; "state": a separate value MLP that also
    # reads the other players' hands (training only; the policy never sees them)
    critic: str = "obs"
    obs_cap: float = 10.0  # see training.ppo_model.observation_scale
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
    export: str | None = None  # also write the final policy file here
    progress: bool = True
    tensorboard: bool = True
    threads: int = 1  # torch intra-op threads
    deterministic: bool = True  # torch.use_deterministic_algorithms during the run

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> SelfPlayConfig:
        """Check and coerce a config dict (YAML values, ``--set`` strings)."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(config) - set(fields))
        if unknown:
            raise ValueError(f"unknown selfplay config key(s) {', '.join(unknown)}; allowed: "
                             f"{', '.join(fields)}")
        defaults = cls()
        values: dict[str, Any] = {}
        for name, value in config.items():
            values[name] = _coerce(name, value, getattr(defaults, name))
        cfg = cls(**values)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        if self.trainer != "selfplay":
            raise ValueError(f"trainer must be 'selfplay' for this trainer, got {self.trainer!r}")
        for name in ("num_players", "num_envs", "rollout_ticks", "total_steps", "max_steps",
                     "epochs", "minibatch_size", "pool_size", "pool_interval",
                     "checkpoint_interval", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.eval_interval < 0 or self.eval_games < 0:
            raise ValueError("eval_interval and eval_games must be >= 0")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden must list positive layer widths, got {self.hidden}")
        if self.critic not in ("obs", "state"):
            raise ValueError(f"critic must be 'obs' or 'state', got {self.critic!r}")
        for name in ("lr_schedule", "ent_schedule"):
            if getattr(self, name) not in SCHEDULES:
                raise ValueError(f"{name} must be one of {', '.join(SCHEDULES)}, got "
                                 f"{getattr(self, name)!r}")
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


def _coerce(name: str, value: Any, default: Any) -> Any:
    """``value`` as the type of the key's default (``"3e-4"`` -> 0.0003, ``"true"`` -> True)."""
    if value is None:
        return None
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                low = value.strip().lower()
                if low not in ("true", "false", "on", "off", "yes", "no", "1", "0"):
                    raise ValueError(value)
                return low in ("true", "on", "yes", "1")
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


def linear(start: float, end: float, frac: float) -> float:
    """``start`` at ``frac=0`` to ``end`` at ``frac=1`` (clamped)."""
    frac = min(max(frac, 0.0), 1.0)
    return start + (end - start) * frac


def _sample(logits: np.ndarray, rng: np.random.Generator, greedy: bool
            ) -> tuple[np.ndarray, np.ndarray]:
    """Actions (sampled from the softmax, or its argmax) of masked logits ``(B, A)`` and
    their log-probabilities. Masked logits have probability exactly 0 and are never chosen."""
    z = logits.astype(np.float64)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    c = np.cumsum(p, axis=1)
    total = c[:, -1]
    if greedy:
        acts = z.argmax(axis=1)
    else:
        # the first action whose cumulative mass reaches u * total, u in (0, 1]
        u = (1.0 - rng.random(len(z))) * total
        acts = np.minimum((c < u[:, None]).sum(axis=1), z.shape[1] - 1)
    logp = z[np.arange(len(acts)), acts] - np.log(total)
    return acts, logp.astype(np.float32)


class _Agents:
    """Opponents and teachers built by ``agents.load``: one per game, seat and role (agents
    may remember the game they are in), reused from game to game after ``reset()``."""

    def __init__(self, cfg: SelfPlayConfig, seed: int) -> None:
        self.cfg = cfg
        self.seed = seed
        self.cache: dict[tuple[int, int, str], Any] = {}

    def get(self, spec: str, slot: int, seat: int, role: str = "opponent") -> Any:
        key = (slot, seat, f"{role}:{spec}")
        agent = self.cache.get(key)
        if agent is None:
            import agents

            cfg = self.cfg
            offset = 0 if role == "opponent" else 104729
            agent = agents.load(spec, variant=cfg.variant, num_players=cfg.num_players,
                                seed=self.seed + offset + 7919 * slot + seat, **cfg.options)
            self.cache[key] = agent
        return agent


def _env(cfg: SelfPlayConfig) -> raw_env:
    return raw_env(cfg.variant, cfg.num_players, max_steps=cfg.max_steps, **cfg.options)


class SelfPlayTrainer:
    """The learner; ``run()`` trains to ``total_steps`` and returns a summary dict."""

    def __init__(self, config: dict[str, Any] | SelfPlayConfig) -> None:
        cfg = config if isinstance(config, SelfPlayConfig) else SelfPlayConfig.from_dict(config)
        self.cfg = cfg
        self.out = Path(cfg.output_dir)
        self.key = config_key(cfg.variant, cfg.num_players, cfg.options)
        self.n = cfg.num_players
        probe = _env(cfg)
        self.layout: ObservationLayout = probe.layout
        self.names = list(probe.possible_agents)
        self.obs_dim = self.layout.size
        self.num_actions = probe.game.num_actions
        self.num_faces = probe.game.num_faces
        self.critic_extra = (self.n - 1) * self.num_faces if cfg.critic == "state" else 0
        self.extra_scale = 1.0 / float(self.layout.by_name["hand"].high)
        kinds = [k for k in OPPONENT_KINDS if cfg.opponents.get(k, 0) > 0]
        w = np.array([cfg.opponents[k] for k in kinds], dtype=np.float64)
        self.opp_kinds = kinds
        self.opp_probs = w / w.sum()
        # Random streams, one per purpose, all from the seed.
        ss = np.random.SeedSequence(cfg.seed)
        s_env, s_act, s_seat, s_shuffle, s_agents = ss.spawn(5)
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
        self.pool: list[int] = []  # versions (update numbers), oldest first
        self.frozen: dict[int, PolicyNet] = {}
        self.steps = 0
        self.updates = 0
        self.games = 0
        self.curve: list[dict[str, Any]] = []
        self.elapsed = 0.0
        self.agents = _Agents(cfg, self.agent_seed)
        self.writer: Any = None
        self.last_stats: dict[str, float] = {}
        self.teacher_coef = cfg.teacher_coef if cfg.teacher else 0.0

    # --- checkpoints ----------------------------------------------------------------------
    def checkpoint_dict(self) -> dict[str, Any]:
        """Everything needed to continue: weights, optimiser, pool, counters, random states."""
        return {
            "policy": policy_payload(self.net, self.key, self._info()),
            "optimizer": self.opt.state_dict(),
            "pool": [[v, {k: t.clone() for k, t in self.frozen[v].state_dict().items()}]
                     for v in self.pool],
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
        self.pool, self.frozen = [], {}
        for v, sd in ck["pool"]:
            self.frozen[int(v)] = self._frozen_net(sd)
            self.pool.append(int(v))
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

    def _frozen_net(self, state_dict: dict[str, torch.Tensor]) -> PolicyNet:
        net = PolicyNet(self.obs_dim, self.num_actions, self.cfg.hidden,
                        critic_extra=self.critic_extra)
        net.load_state_dict(state_dict)
        net.eval()
        for p in net.parameters():
            p.requires_grad_(False)
        return net

    def _snapshot_to_pool(self) -> None:
        v = self.updates
        self.frozen[v] = self._frozen_net(copy.deepcopy(self.net.state_dict()))
        self.pool.append(v)
        while len(self.pool) > self.cfg.pool_size:
            self.pool.pop(0)
        in_use = set(self.pool) | {v for row in self.frozen_ver for v in row if v >= 0}
        for old in [v for v in self.frozen if v not in in_use]:
            del self.frozen[old]

    # --- games ----------------------------------------------------------------------------
    def _new_games(self) -> None:
        cfg, n, k = self.cfg, self.n, self.cfg.num_envs
        self.envs = [_env(cfg) for _ in range(k)]
        # Per game and seat (plain lists: read every decision).
        self.kind = [[LEARNER] * n for _ in range(k)]
        self.frozen_ver = [[-1] * n for _ in range(k)]
        self.seat_agent: list[list[Any]] = [[None] * n for _ in range(k)]
        self.primary = [0] * k
        self.label = [""] * k
        self.ep_return = [[0.0] * n for _ in range(k)]
        self.last_idx = [[-1] * n for _ in range(k)]  # each seat's latest decision
        for i, e in enumerate(self.envs):
            e.reset(seed=int(self.rng_env.integers(2**31)))
            self._deal_seats(i)

    def _deal_seats(self, i: int) -> None:
        """Choose who plays each seat of game ``i`` (a learner seat plus pool draws)."""
        n = self.n
        learner = int(self.rng_seat.integers(n))
        self.primary[i] = learner
        labels = []
        for s in range(n):
            kind = LEARNER
            ver = -1
            if s != learner:
                name = self.opp_kinds[int(self.rng_seat.choice(len(self.opp_kinds),
                                                              p=self.opp_probs))]
                if name == "frozen":
                    if self.pool:
                        ver = self.pool[int(self.rng_seat.integers(len(self.pool)))]
                        kind = FROZEN
                    else:
                        name = "self"  # nothing frozen yet: the policy plays itself
                elif name == "rule":
                    kind = RULE
                elif name == "random":
                    kind = RANDOM
                labels.append(name)
            self.kind[i][s] = kind
            self.frozen_ver[i][s] = ver
            agent = None
            if kind in (RULE, RANDOM):
                agent = self.agents.get(_KIND_NAMES[kind], i, s)
                agent.reset()
            elif kind == LEARNER and self.teacher_coef > 0 and self.cfg.teacher:
                agent = self.agents.get(self.cfg.teacher, i, s, role="teacher")
                agent.reset()
            self.seat_agent[i][s] = agent  # a learner seat's agent is its teacher
        self.label[i] = "+".join(sorted(set(labels)))
        self.ep_return[i] = [0.0] * n

    # --- rollout --------------------------------------------------------------------------
    def _alloc(self) -> None:
        cap = self.cfg.num_envs * (self.cfg.rollout_ticks + self.n)
        self.cap = cap
        self.b_obs = np.zeros((cap, self.obs_dim), dtype=np.float32)
        self.b_mask = np.zeros((cap, self.num_actions), dtype=np.bool_)
        self.b_act = np.zeros(cap, dtype=np.int64)
        self.b_logp = np.zeros(cap, dtype=np.float32)
        self.b_val = np.zeros(cap, dtype=np.float32)
        self.b_rew = np.zeros(cap, dtype=np.float32)
        self.b_done = np.zeros(cap, dtype=np.bool_)
        self.b_next = np.full(cap, -1, dtype=np.int64)
        self.b_teacher = np.full(cap, -1, dtype=np.int64)  # teacher's action, -1: none
        self.b_extra = np.zeros((cap, self.critic_extra), dtype=np.float32)
        self.size = 0

    def _collect(self) -> dict[str, Any]:
        """Play ``rollout_ticks`` decisions in every game, recording learner decisions."""
        cfg = self.cfg
        k, n = cfg.num_envs, self.n
        envs, names = self.envs, self.names
        obs = np.zeros((k, self.obs_dim), dtype=np.float32)
        mask = np.zeros((k, self.num_actions), dtype=np.bool_)
        acts = np.zeros(k, dtype=np.int64)
        teach = np.full(k, -1, dtype=np.int64)
        extra = np.zeros((k, self.critic_extra), dtype=np.float32)
        nf = self.num_faces
        seats = [0] * k
        kinds, last = self.kind, self.last_idx
        results: dict[str, list[int]] = {}
        lengths: list[int] = []
        truncated = 0
        net = self.net
        for _ in range(cfg.rollout_ticks):
            learners: list[int] = []
            frozen: dict[int, list[int]] = {}
            for i, e in enumerate(envs):
                agent = e.agent_selection
                s = e.agent_name_mapping[agent]
                seats[i] = s
                o = e.observe(agent)
                obs[i] = o["observation"]
                mask[i] = o["action_mask"]
                kind = kinds[i][s]
                if kind == LEARNER:
                    learners.append(i)
                    teacher = self.seat_agent[i][s]
                    if teacher is not None and self.teacher_coef > 0:
                        teach[i] = teacher.act(o["observation"], o["action_mask"])
                    else:
                        teach[i] = -1
                elif kind == FROZEN:
                    frozen.setdefault(self.frozen_ver[i][s], []).append(i)
                else:
                    acts[i] = self.seat_agent[i][s].act(o["observation"], o["action_mask"])
            if learners:
                li = np.asarray(learners)
                x = None
                if self.critic_extra:
                    for i in learners:  # privileged: the other hands, seat-relative
                        counts = envs[i].engine.counts
                        s = seats[i]
                        for rel in range(1, n):
                            extra[i, (rel - 1) * nf:rel * nf] = np.frombuffer(
                                counts[(s + rel) % n], dtype=np.uint8)
                    x = torch.from_numpy(extra[li])
                with torch.no_grad():
                    logits, values = net(torch.from_numpy(obs[li]), torch.from_numpy(mask[li]),
                                         x)
                a, logp = _sample(logits.numpy(), self.rng_act, greedy=False)
                acts[li] = a
                j0 = self.size
                j1 = j0 + len(li)
                self.b_obs[j0:j1] = obs[li]
                self.b_mask[j0:j1] = mask[li]
                self.b_act[j0:j1] = a
                self.b_logp[j0:j1] = logp
                self.b_val[j0:j1] = values.numpy()
                self.b_rew[j0:j1] = 0.0
                self.b_done[j0:j1] = False
                self.b_next[j0:j1] = -1
                self.b_teacher[j0:j1] = teach[li]
                if self.critic_extra:
                    self.b_extra[j0:j1] = extra[li]
                b_next = self.b_next
                for j, i in enumerate(learners, start=j0):
                    row = last[i]
                    s = seats[i]
                    prev = row[s]
                    if prev >= 0:
                        b_next[prev] = j
                    row[s] = j
                self.size = j1
            for ver, idx in frozen.items():
                fi = np.asarray(idx)
                with torch.no_grad():
                    logits, _ = self.frozen[ver](torch.from_numpy(obs[fi]),
                                                 torch.from_numpy(mask[fi]))
                acts[fi] = _sample(logits.numpy(), self.rng_act, cfg.frozen_greedy)[0]
            for i, e in enumerate(envs):
                e.step(int(acts[i]))
                rewards = e.rewards
                for s in range(n):
                    r = rewards[names[s]]
                    if r:
                        self.ep_return[i][s] += r
                        j = last[i][s]
                        if j >= 0:
                            self.b_rew[j] += r
                if e.terminations[names[0]] or e.truncations[names[0]]:
                    for s in range(n):
                        j = last[i][s]
                        if j >= 0:
                            self.b_done[j] = True
                            last[i][s] = -1
                    won = int(self.ep_return[i][self.primary[i]] > 0)
                    results.setdefault(self.label[i], []).append(won)
                    lengths.append(e.num_steps)
                    truncated += int(e.truncations[names[0]])
                    self.games += 1
                    e.reset()
                    self._deal_seats(i)
        return {"results": results, "lengths": lengths, "truncated": truncated}

    def _advantages(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GAE along each seat's chain; returns (trainable indices, advantages, returns)."""
        cfg = self.cfg
        size = self.size
        pending = {j for row in self.last_idx for j in row if j >= 0}
        val = self.b_val[:size].tolist()
        rew = self.b_rew[:size].tolist()
        done = self.b_done[:size].tolist()
        nxt = self.b_next[:size].tolist()
        adv = [0.0] * size
        g, lam = cfg.gamma, cfg.gae_lambda
        for j in range(size - 1, -1, -1):
            if j in pending:
                continue
            if done[j]:
                adv[j] = rew[j] - val[j]
            else:
                m = nxt[j]
                tail = 0.0 if m in pending else adv[m]
                adv[j] = rew[j] + g * val[m] - val[j] + g * lam * tail
        train = np.array([j for j in range(size) if j not in pending], dtype=np.int64)
        a = np.asarray(adv, dtype=np.float32)[train]
        return train, a, a + self.b_val[train]

    def _carry_over(self) -> None:
        """Move each seat's pending (last) decision to the front of the buffer."""
        j = 0
        for i in range(self.cfg.num_envs):
            for s in range(self.n):
                src = self.last_idx[i][s]
                if src < 0:
                    continue
                for b in (self.b_obs, self.b_mask, self.b_act, self.b_logp, self.b_val,
                          self.b_rew, self.b_teacher, self.b_extra):
                    b[j] = b[src]
                self.b_done[j] = False
                self.b_next[j] = -1
                self.last_idx[i][s] = j
                j += 1
        self.size = j

    # --- update ---------------------------------------------------------------------------
    def _update(self, train: np.ndarray, adv: np.ndarray, ret: np.ndarray,
                ent_coef: float, teacher_coef: float) -> dict[str, float]:
        cfg = self.cfg
        obs = torch.from_numpy(self.b_obs[train])
        mask = torch.from_numpy(self.b_mask[train])
        act = torch.from_numpy(self.b_act[train])
        old_logp = torch.from_numpy(self.b_logp[train])
        t_adv = torch.from_numpy(adv)
        t_ret = torch.from_numpy(ret)
        teacher = torch.from_numpy(self.b_teacher[train])
        extra = torch.from_numpy(self.b_extra[train]) if self.critic_extra else None
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
        self._new_games()
        self._alloc()
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
            before = self.size
            t0 = time.perf_counter()
            info = self._collect()
            t1 = time.perf_counter()
            new_steps = self.size - before
            train, adv, ret = self._advantages()
            stats = self._update(train, adv, ret, ent, self.teacher_coef)
            self._carry_over()
            t2 = time.perf_counter()
            self.steps += new_steps
            self.updates += 1
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
                self._snapshot_to_pool()
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


# --- evaluation and plots ---------------------------------------------------------------------
def evaluate_policy(net: PolicyNet, opponent: str, games: int, variant: str = "classic",
                    num_players: int = 2, options: dict[str, Any] | None = None,
                    max_steps: int | None = 2000, seed: int = 0, num_envs: int = 64,
                    greedy: bool = True) -> dict[str, Any]:
    """``net`` in one seat (seat ``g % num_players`` in game ``g``), ``opponent`` (an
    ``agents.load`` spec) in every other seat; game ``g`` is dealt from ``seed + g``.

    Policy decisions of all running games are batched. A game counts as won when the
    policy's seat is paid a positive reward; truncated games count as not won.
    """
    import agents

    opts = dict(options or {})
    k = max(1, min(num_envs, games))
    envs = [raw_env(variant, num_players, max_steps=max_steps, **opts) for _ in range(k)]
    names = envs[0].possible_agents
    opp = [[agents.load(opponent, variant=variant, num_players=num_players,
                        seed=seed + 7919 * i + s, **opts) for s in range(num_players)]
           for i in range(k)]
    rng = np.random.default_rng(seed)
    game_of = [-1] * k
    seat_of = [0] * k
    ret = [0.0] * k
    started = 0
    wins = truncated = finished = 0

    def start(i: int) -> None:
        nonlocal started
        if started >= games:
            game_of[i] = -1
            return
        g = started
        started += 1
        game_of[i] = g
        seat_of[i] = g % num_players
        ret[i] = 0.0
        envs[i].reset(seed=seed + g)
        for a in opp[i]:
            a.reset()

    for i in range(k):
        start(i)
    d = envs[0].layout.size
    a_n = envs[0].game.num_actions
    obs = np.zeros((k, d), dtype=np.float32)
    mask = np.zeros((k, a_n), dtype=np.bool_)
    acts = np.zeros(k, dtype=np.int64)
    was_training = net.training
    net.eval()
    while finished < games:
        mine: list[int] = []
        live = [i for i in range(k) if game_of[i] >= 0]
        for i in live:
            e = envs[i]
            agent = e.agent_selection
            s = e.agent_name_mapping[agent]
            o = e.observe(agent)
            if s == seat_of[i]:
                obs[i] = o["observation"]
                mask[i] = o["action_mask"]
                mine.append(i)
            else:
                acts[i] = opp[i][s].act(o["observation"], o["action_mask"])
        if mine:
            mi = np.asarray(mine)
            with torch.no_grad():
                logits, _ = net(torch.from_numpy(obs[mi]), torch.from_numpy(mask[mi]))
            acts[mi] = _sample(logits.numpy(), rng, greedy)[0]
        for i in live:
            e = envs[i]
            e.step(int(acts[i]))
            ret[i] += e.rewards[names[seat_of[i]]]
            if e.terminations[names[0]] or e.truncations[names[0]]:
                wins += int(ret[i] > 0)
                truncated += int(e.truncations[names[0]])
                finished += 1
                start(i)
    net.train(was_training)
    lo, hi = wilson_counts(wins, games)
    return {"opponent": opponent, "games": games, "wins": wins, "truncated": truncated,
            "win_rate": wins / games if games else 0.0, "ci_low": lo, "ci_high": hi,
            "seed": seed}


def plot_curve(curve: Sequence[dict[str, Any]], path: str | Path, title: str = "") -> Path:
    """Win rate (with 95% intervals) against each evaluation opponent over training steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    opponents = [k for k in (curve[0] if curve else {}) if isinstance(curve[0][k], dict)]
    for opp in opponents:
        pts = [c for c in curve if opp in c]
        x = [c["steps"] for c in pts]
        y = [c[opp]["win_rate"] for c in pts]
        lo = [c[opp]["ci_low"] for c in pts]
        hi = [c[opp]["ci_high"] for c in pts]
        ax.plot(x, y, marker="o", ms=3, label=f"vs {opp}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("win rate (greedy policy)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p)
    plt.close(fig)
    return p


def write_results(run_dir: str | Path, policy: str | Path, games: int, out_json: str | Path,
                  out_png: str | Path, seed: int = 0, workers: int = 1,
                  opponents: Sequence[str] = ("random", "rule")) -> dict[str, Any]:
    """Evaluate a trained policy against each opponent with ``training.evaluate`` (each deal
    twice, seats swapped), plot the run's training curve and write both to ``docs/results``."""
    from training.evaluate import evaluate

    run = Path(run_dir)
    ck = torch.load(run / "checkpoint_last.pt", map_location="cpu", weights_only=True)
    cfg = ck["config"]
    agent = f"ppo:{policy}"
    out: dict[str, Any] = {
        "variant": cfg["variant"], "num_players": cfg["num_players"],
        "options": ck["policy"]["options"], "policy": str(policy),
        "training": {"trainer": "selfplay", "config": cfg, **ck["counters"],
                     "curve_png": str(out_png)},
        "evaluation": [],
    }
    opts = dict(cfg["options"])
    for opp in opponents:
        r = evaluate(agent, opp, games, variant=cfg["variant"], num_players=cfg["num_players"],
                     seed=seed, options=opts, workers=workers, max_steps=cfg["max_steps"])
        me = r.agents[0]
        out["evaluation"].append({
            "opponent": opp, "games": r.games, "wins": me.wins, "win_rate": me.win_rate,
            "ci95": [me.ci_low, me.ci_high], "opponent_wins": r.agents[1].wins,
            "no_winner": r.no_winner, "truncated": r.truncated, "seed": seed,
            "seconds": round(r.seconds, 1),
            "command": f"uno-env evaluate --agents {agent},{opp} --games {games} --seed {seed} "
                       f"--variant {cfg['variant']} --players {cfg['num_players']} "
                       f"--max-steps {cfg['max_steps']}",
        })
    p = Path(out_json)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(out, indent=1) + "\n")
    plot_curve(ck["curve"], out_png,
               f"{cfg['variant']}, {cfg['num_players']} players: self-play PPO "
               f"(eval: {cfg['eval_games']} games per point, greedy)")
    return out


def _main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.selfplay CONFIG [key=value ...]`` trains (``uno-env train`` does
    the same through ``training.cli``);
    ``python -m training.selfplay results RUN_DIR POLICY GAMES OUT_JSON OUT_PNG [WORKERS]``
    evaluates a policy and plots its run's curve (see :func:`write_results`)."""
    import yaml

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(_main.__doc__, file=sys.stderr)
        return 2
    if args[0] == "results":
        if len(args) not in (6, 7):
            print(_main.__doc__, file=sys.stderr)
            return 2
        res = write_results(args[1], args[2], int(args[3]), args[4], args[5],
                            workers=int(args[6]) if len(args) == 7 else 1)
        for e in res["evaluation"]:
            print(f"vs {e['opponent']}: {e['wins']}/{e['games']} = {e['win_rate']:.4f} "
                  f"[{e['ci95'][0]:.4f}, {e['ci95'][1]:.4f}]")
        return 0
    config = yaml.safe_load(Path(args[0]).read_text()) or {}
    for item in args[1:]:
        key, _, value = item.partition("=")
        config[key] = yaml.safe_load(value)
    train(config)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
