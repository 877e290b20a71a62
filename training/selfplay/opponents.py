"""Who sits in the seats of a self-play game: the learner, ``rule`` / ``random`` agents, and
frozen past versions of the policy kept in a pool."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch

from uno_env.agents.policy import PolicyNet
from uno_env.seeding import slot_seed
from uno_env.training.config import OPPONENT_KINDS, SelfPlayConfig

# Seat kinds inside the runner.
LEARNER, RULE, RANDOM, FROZEN = range(4)
KIND_NAMES = {LEARNER: "self", RULE: "rule", RANDOM: "random", FROZEN: "frozen"}
TEACHER_OFFSET = 104729  # teachers are seeded apart from the opponents of the same seat


class AgentCache:
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
            from uno_env import agents

            cfg = self.cfg
            offset = 0 if role == "opponent" else TEACHER_OFFSET
            agent = agents.load(spec, variant=cfg.variant, num_players=cfg.num_players,
                                seed=slot_seed(self.seed + offset, slot, seat), **cfg.options)
            self.cache[key] = agent
        return agent

    def for_seat(self, kind: int, slot: int, seat: int, teaching: bool) -> Any:
        """A new game's agent for a seat, reset: its ``rule`` / ``random`` opponent, a learner
        seat's teacher while kickstarting (``teaching``), else ``None``."""
        agent = None
        if kind in (RULE, RANDOM):
            agent = self.get(KIND_NAMES[kind], slot, seat)
        elif kind == LEARNER and teaching and self.cfg.teacher:
            agent = self.get(self.cfg.teacher, slot, seat, role="teacher")
        if agent is not None:
            agent.reset()
        return agent


class OpponentPool:
    """The opponent mix of ``cfg.opponents`` and the frozen versions (update numbers, oldest
    first, at most ``cfg.pool_size``) with their networks."""

    def __init__(self, cfg: SelfPlayConfig, net_args: tuple[int, int, list[int]],
                 critic_extra: int) -> None:
        self.cfg = cfg
        kinds = [k for k in OPPONENT_KINDS if cfg.opponents.get(k, 0) > 0]
        w = np.array([cfg.opponents[k] for k in kinds], dtype=np.float64)
        self.kinds = kinds
        self.probs = w / w.sum()
        self.net_args = net_args  # (obs_dim, num_actions, hidden) of a frozen network
        self.critic_extra = critic_extra
        self.versions: list[int] = []
        self.frozen: dict[int, PolicyNet] = {}

    def draw(self, rng: np.random.Generator, n: int) -> tuple[int, list[int], list[int], str]:
        """A learner seat and, per seat, its kind and frozen version (-1: none), and the
        label of the opponents drawn (``"frozen+rule"``); ``frozen`` falls back to ``self``
        while the pool is empty."""
        learner = int(rng.integers(n))
        kinds = [LEARNER] * n
        versions = [-1] * n
        labels = []
        for s in range(n):
            if s == learner:
                continue
            name = self.kinds[int(rng.choice(len(self.kinds), p=self.probs))]
            if name == "frozen":
                if self.versions:
                    versions[s] = self.versions[int(rng.integers(len(self.versions)))]
                    kinds[s] = FROZEN
                else:
                    name = "self"  # nothing frozen yet: the policy plays itself
            elif name == "rule":
                kinds[s] = RULE
            elif name == "random":
                kinds[s] = RANDOM
            labels.append(name)
        return learner, kinds, versions, "+".join(sorted(set(labels)))

    def frozen_net(self, state_dict: dict[str, torch.Tensor],
                   device: torch.device | str = "cpu") -> PolicyNet:
        net = PolicyNet(*self.net_args, critic_extra=self.critic_extra)
        net.load_state_dict(state_dict)
        net.to(device).eval()
        for p in net.parameters():
            p.requires_grad_(False)
        return net

    def snapshot(self, net: PolicyNet, version: int, in_use: set[int]) -> None:
        """Freeze ``net`` as ``version``; drop the oldest beyond ``pool_size`` once no game
        still seats them (``in_use``)."""
        self.add(version, copy.deepcopy(net.state_dict()), in_use,
                 next(net.parameters()).device)

    def add(self, version: int, state_dict: dict[str, torch.Tensor], in_use: set[int],
            device: torch.device | str = "cpu") -> None:
        """Freeze the weights ``state_dict`` as ``version`` (see :meth:`snapshot`)."""
        self.frozen[version] = self.frozen_net(state_dict, device)
        self.versions.append(version)
        while len(self.versions) > self.cfg.pool_size:
            self.versions.pop(0)
        keep = set(self.versions) | in_use
        for old in [v for v in self.frozen if v not in keep]:
            del self.frozen[old]

    def state(self) -> list[list[Any]]:
        """The pool for a checkpoint: ``[version, state_dict, in_pool]``, the versions of the
        pool (oldest first) and then those that only games in flight still seat."""
        order = self.versions + sorted(set(self.frozen) - set(self.versions))
        return [[v, {k: t.detach().cpu().clone()
                     for k, t in self.frozen[v].state_dict().items()}, v in self.versions]
                for v in order]

    def load(self, state: list[list[Any]], device: torch.device | str = "cpu") -> None:
        self.versions, self.frozen = [], {}
        for v, sd, *in_pool in state:
            self.frozen[int(v)] = self.frozen_net(sd, device)
            if not in_pool or in_pool[0]:
                self.versions.append(int(v))


def agent_state(agent: Any) -> Any:
    """What an opponent or teacher remembers (its game memory, its random state), as plain
    data for a checkpoint; ``None`` for an agent that offers no ``get_state()``."""
    get = getattr(agent, "get_state", None)
    return None if get is None else get()


def set_agent_state(agent: Any, state: Any) -> None:
    if state is not None:
        agent.set_state(state)
