"""Rollouts of self-play PPO: ``num_envs`` games side by side, one decision per game per tick,
learner decisions batched through the policy and recorded in per-seat chains.

This is the ``engine: python`` rollout (``raw_env`` games, one Python call per decision);
the default is :mod:`uno_env.training.selfplay.vector_rollout` on the batch engine. Both fill a
:class:`uno_env.training.selfplay.buffer.DecisionBuffer` (per-seat chains, GAE, carry-over).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from uno_env import raw_env
from uno_env.agents.policy import PolicyNet
from uno_env.training.config import SelfPlayConfig
from uno_env.training.selfplay.buffer import DecisionBuffer
from uno_env.training.selfplay.opponents import (
    FROZEN,
    LEARNER,
    AgentCache,
    OpponentPool,
)


def sample_actions(logits: np.ndarray, rng: np.random.Generator, greedy: bool
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


def make_env(cfg: SelfPlayConfig) -> raw_env:
    return raw_env(cfg.variant, cfg.num_players, max_steps=cfg.max_steps, **cfg.options)


class Rollout(DecisionBuffer):
    """The games in flight (``raw_env``, the Python engine) and the buffer of recorded
    learner decisions."""

    def __init__(self, cfg: SelfPlayConfig, pool: OpponentPool, agents: AgentCache,
                 rngs: dict[str, np.random.Generator], critic_extra: int) -> None:
        probe = make_env(cfg)
        super().__init__(cfg.num_envs, cfg.num_players, cfg.rollout_ticks, probe.layout.size,
                         probe.game.num_actions, critic_extra)
        self.cfg = cfg
        self.pool = pool
        self.agents = agents
        self.rng_env, self.rng_seat, self.rng_act = rngs["env"], rngs["seat"], rngs["act"]
        self.n = n = cfg.num_players
        k = cfg.num_envs
        self.envs = [probe] + [make_env(cfg) for _ in range(k - 1)]
        self.names = list(probe.possible_agents)
        self.obs_dim = probe.layout.size
        self.num_actions = probe.game.num_actions
        self.num_faces = probe.game.num_faces
        self.critic_extra = critic_extra
        self.teacher_coef = 0.0  # the current kickstarting weight (set by the trainer)
        # Per game and seat (plain lists: read every decision).
        self.kind = [[LEARNER] * n for _ in range(k)]
        self.frozen_ver = [[-1] * n for _ in range(k)]
        self.seat_agent: list[list[Any]] = [[None] * n for _ in range(k)]
        self.primary = [0] * k  # the learner seat whose result is reported
        self.label = [""] * k  # the opponents of the game ("frozen+rule")
        self.ep_return = [[0.0] * n for _ in range(k)]
    def start(self) -> None:
        """Deal a fresh game in every slot (at the start of a run or a resume)."""
        for i, e in enumerate(self.envs):
            e.reset(seed=int(self.rng_env.integers(2**31)))
            self.deal_seats(i)

    def in_use(self) -> set[int]:
        """Frozen versions seated in a game in flight."""
        return {v for row in self.frozen_ver for v in row if v >= 0}

    def deal_seats(self, i: int) -> None:
        """Choose who plays each seat of game ``i`` (a learner seat plus pool draws)."""
        n = self.n
        learner, kinds, versions, label = self.pool.draw(self.rng_seat, n)
        self.primary[i] = learner
        for s in range(n):
            kind = kinds[s]
            self.kind[i][s] = kind
            self.frozen_ver[i][s] = versions[s]
            # a learner seat's agent is its teacher
            self.seat_agent[i][s] = self.agents.for_seat(kind, i, s, self.teacher_coef > 0)
        self.label[i] = label
        self.ep_return[i] = [0.0] * n

    def _record(self, net: PolicyNet, learners: list[int], seats: list[int], obs: np.ndarray,
                mask: np.ndarray, teach: np.ndarray, extra: np.ndarray,
                acts: np.ndarray) -> None:
        """Sample the learner seats' actions in one batch and append them to their chains."""
        n, nf = self.n, self.num_faces
        li = np.asarray(learners)
        x = None
        if self.critic_extra:
            for i in learners:  # privileged: the other hands, seat-relative
                counts = self.envs[i].engine.counts
                s = seats[i]
                for rel in range(1, n):
                    extra[i, (rel - 1) * nf:rel * nf] = np.frombuffer(
                        counts[(s + rel) % n], dtype=np.uint8)
            x = torch.from_numpy(extra[li])
        with torch.no_grad():
            logits, values = net(torch.from_numpy(obs[li]), torch.from_numpy(mask[li]), x)
        a, logp = sample_actions(logits.numpy(), self.rng_act, greedy=False)
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
        b_next, last = self.b_next, self.last_idx
        for j, i in enumerate(learners, start=j0):
            row = last[i]
            s = seats[i]
            prev = row[s]
            if prev >= 0:
                b_next[prev] = j
            row[s] = j
        self.size = j1

    def collect(self, net: PolicyNet) -> dict[str, Any]:
        """Play ``rollout_ticks`` decisions in every game, recording learner decisions;
        returns the finished games' count, results by opponent label, lengths and
        truncations."""
        cfg = self.cfg
        k, n = cfg.num_envs, self.n
        envs, names = self.envs, self.names
        obs = np.zeros((k, self.obs_dim), dtype=np.float32)
        mask = np.zeros((k, self.num_actions), dtype=np.bool_)
        acts = np.zeros(k, dtype=np.int64)
        teach = np.full(k, -1, dtype=np.int64)
        extra = np.zeros((k, self.critic_extra), dtype=np.float32)
        seats = [0] * k
        kinds, last = self.kind, self.last_idx
        results: dict[str, list[int]] = {}
        lengths: list[int] = []
        truncated = finished = 0
        # own loop, not play_episode: one step across all envs per tick, batched network calls
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
                self._record(net, learners, seats, obs, mask, teach, extra, acts)
            for ver, idx in frozen.items():
                fi = np.asarray(idx)
                with torch.no_grad():
                    logits, _ = self.pool.frozen[ver](torch.from_numpy(obs[fi]),
                                                      torch.from_numpy(mask[fi]))
                acts[fi] = sample_actions(logits.numpy(), self.rng_act, cfg.frozen_greedy)[0]
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
                    finished += 1
                    e.reset()
                    self.deal_seats(i)
        return {"games": finished, "results": results, "lengths": lengths,
                "truncated": truncated}
