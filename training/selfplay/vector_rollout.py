"""Rollouts on the batch engine (``uno_env.vector_env``): ``num_envs`` games advance in
lockstep, one decision per game per tick, with one batched forward of the policy over every
game whose acting seat is a learner seat (frozen past versions: one forward per version;
``rule`` / ``random`` seats: the compiled agents of ``uno_env.batch.opponents``, which choose
what the Python agents would, or with ``opponent_engine: python`` the agents themselves).

A :class:`VectorRollout` is a self-contained *worker*: its games, its copy of the policy and
of the frozen pool, its random streams (:func:`worker_streams`) and its
:class:`~uno_env.training.selfplay.buffer.DecisionBuffer`. :meth:`VectorRollout.run` plays
``rollout_ticks`` ticks and returns the trainable decisions with their advantages, so the
same object runs in the learner's process or as a Ray actor
(:mod:`uno_env.training.selfplay.workers`) and gives the same numbers.
:meth:`VectorRollout.state` holds everything in flight (games, agents' memories, pending
decisions), so a resumed run continues exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from uno_env.agents.policy import PolicyNet
from uno_env.batch.opponents import (
    OPP_EXTERNAL,
    OPP_RANDOM,
    OPP_RULE,
    act_games,
    allocate_opponent_memory,
    build_opponent_tables,
    opponent_clear,
    opponent_reset,
    random_state,
    set_random_state,
)
from uno_env.batch.vector import VectorEnv
from uno_env.seeding import derive_seed, slot_seed
from uno_env.training.config import SelfPlayConfig
from uno_env.training.selfplay.buffer import DecisionBuffer
from uno_env.training.selfplay.opponents import (
    FROZEN,
    KIND_NAMES,
    LEARNER,
    RANDOM,
    RULE,
    AgentCache,
    OpponentPool,
    agent_state,
    set_agent_state,
)
from uno_env.training.selfplay.rollout import sample_actions

AGENT_SALT = 7  # the agents' seed of worker w is derive_seed(seed, w, AGENT_SALT)
COMPILED_KIND = np.array([OPP_EXTERNAL] * 4, np.int64)  # seat kind -> compiled opponent kind
COMPILED_KIND[RULE], COMPILED_KIND[RANDOM] = OPP_RULE, OPP_RANDOM


def worker_streams(seed: int, worker: int) -> dict[str, np.random.Generator]:
    """The dealing, seating and sampling generators of worker ``worker`` of a run."""
    env, seat, act = np.random.SeedSequence([seed, worker]).spawn(3)
    return {"env": np.random.default_rng(env), "seat": np.random.default_rng(seat),
            "act": np.random.default_rng(act)}


def games_of(cfg: SelfPlayConfig, worker: int) -> int:
    """Worker ``worker``'s share of the run's ``num_envs`` games (the first workers play one
    more when they do not divide evenly)."""
    workers = int(cfg.resolved().workers)
    if not 0 <= worker < workers:
        raise ValueError(f"worker {worker} of a run with workers={cfg.workers}")
    return cfg.num_envs // workers + (worker < cfg.num_envs % workers)


class VectorRollout(DecisionBuffer):
    """One worker: its share (:func:`games_of`) of the ``cfg.num_envs`` batch-engine games
    and the buffer of their learner decisions."""

    def __init__(self, cfg: SelfPlayConfig | dict[str, Any], worker: int = 0,
                 device: str = "cpu", threads: int | None = None) -> None:
        cfg = (cfg if isinstance(cfg, SelfPlayConfig) else SelfPlayConfig.from_dict(cfg)
               ).resolved()
        if threads is not None:  # a Ray actor: its own process
            torch.set_num_threads(threads)
        self.cfg = cfg
        self.worker = worker
        self.device = torch.device(device)
        k, n = games_of(cfg, worker), cfg.num_players
        self.env = VectorEnv(cfg.variant, n, k, max_steps=cfg.max_steps, **cfg.options)
        nf = self.env.layout.game.num_faces
        self.critic_extra = (n - 1) * nf if cfg.critic == "state" else 0
        super().__init__(k, n, cfg.rollout_ticks, self.env.obs_dim, self.env.num_actions,
                         self.critic_extra)
        self.net = PolicyNet(self.env.obs_dim, self.env.num_actions, cfg.hidden,
                             critic_extra=self.critic_extra).to(self.device).eval()
        self.pool = OpponentPool(cfg, (self.env.obs_dim, self.env.num_actions, cfg.hidden),
                                 self.critic_extra)
        self.rngs = worker_streams(cfg.seed, worker)
        self.agents = AgentCache(cfg, derive_seed(cfg.seed, worker, AGENT_SALT))
        self.compiled = cfg.opponent_engine == "compiled"
        env = self.env
        self._ot = build_opponent_tables(env._game, env.layout, env._t)
        self._om = allocate_opponent_memory(k, n, nf)
        for i in range(k):  # the generator AgentCache would give the seat's random agent
            for q in range(n):
                opponent_reset(self._om, i, q, slot_seed(self.agents.seed, i, q))
        self.teacher_coef = 0.0
        self.kind = np.full((k, n), LEARNER, dtype=np.int64)
        self.frozen_ver = np.full((k, n), -1, dtype=np.int64)
        self.seat_agent: list[list[Any]] = [[None] * n for _ in range(k)]
        self.primary = np.zeros(k, dtype=np.int64)  # the learner seat whose result counts
        self.label = [""] * k  # the opponents of the game ("frozen+rule")
        self.ep_return = np.zeros((k, n), dtype=np.float64)
        self.length = np.zeros(k, dtype=np.int64)  # decisions so far in each game
        self._acts = np.zeros(k, dtype=np.int64)
        self._teach = np.full(k, -1, dtype=np.int64)
        self._obs: np.ndarray | None = None
        self._info: dict[str, Any] = {}

    # --- set-up -----------------------------------------------------------------------------
    def start(self, teacher_coef: float | None = None) -> None:
        """Deal a fresh game in every slot (the start of a run)."""
        if teacher_coef is not None:
            self.teacher_coef = teacher_coef
        seeds = [int(x) for x in self.rngs["env"].integers(2**63, size=self.k)]
        self._obs, self._info = self.env.reset(seed=seeds)
        for i in range(self.k):
            self.deal_seats(i)

    def set_weights(self, state_dict: dict[str, torch.Tensor]) -> None:
        self.net.load_state_dict(state_dict)

    def add_frozen(self, version: int, state_dict: dict[str, torch.Tensor]) -> None:
        """A past version joins the pool (the oldest beyond ``pool_size`` leaves it)."""
        self.pool.add(version, state_dict, self.in_use(), self.device)

    def in_use(self) -> set[int]:
        return {int(v) for v in self.frozen_ver[self.frozen_ver >= 0]}

    def deal_seats(self, i: int) -> None:
        """Choose who plays each seat of game ``i`` (a learner seat plus pool draws)."""
        learner, kinds, versions, label = self.pool.draw(self.rngs["seat"], self.n)
        self.primary[i] = learner
        self.kind[i] = kinds
        self.frozen_ver[i] = versions
        for s, kind in enumerate(kinds):
            if self.compiled and COMPILED_KIND[kind] != OPP_EXTERNAL:
                opponent_clear(self._om, i, s)  # agent.reset()
                self.seat_agent[i][s] = None
                continue
            # a learner seat's agent is its teacher
            self.seat_agent[i][s] = self.agents.for_seat(kind, i, s, self.teacher_coef > 0)
        self.label[i] = label
        self.ep_return[i] = 0.0
        self.length[i] = 0

    # --- playing ----------------------------------------------------------------------------
    def _forward(self, net: PolicyNet, obs: np.ndarray, mask: np.ndarray,
                 extra: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        dev = self.device
        with torch.inference_mode():
            x = None if extra is None else torch.from_numpy(extra).to(dev)
            logits, values = net(torch.from_numpy(obs).to(dev), torch.from_numpy(mask).to(dev),
                                 x)
        return logits.cpu().numpy(), values.cpu().numpy()

    def _privileged(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The other players' hands (face counts), seat-relative: the asymmetric critic's
        input (read from the engine's state; training only)."""
        counts = self.env._s.counts  # [B, N, F] uint8
        n = self.n
        rel = (seats[:, None] + np.arange(1, n)[None, :]) % n
        out: np.ndarray = counts[games[:, None], rel].reshape(len(games), -1)
        return out.astype(np.float32)

    def _record(self, li: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                cur: np.ndarray) -> None:
        """Sample the learner seats' actions in one batch and append them to their chains."""
        whole = len(li) == self.k
        o = obs if whole else obs[li]
        m = mask if whole else mask[li]
        seats = cur if whole else cur[li]
        extra = self._privileged(li, seats) if self.critic_extra else None
        logits, values = self._forward(self.net, o, m, extra)
        a, logp = sample_actions(logits, self.rngs["act"], greedy=False)
        self._acts[li] = a
        j0 = self.size
        j1 = j0 + len(li)
        rows = np.arange(j0, j1)
        self.b_obs[j0:j1] = o
        self.b_mask[j0:j1] = m
        self.b_act[j0:j1] = a
        self.b_logp[j0:j1] = logp
        self.b_val[j0:j1] = values
        self.b_rew[j0:j1] = 0.0
        self.b_done[j0:j1] = False
        self.b_next[j0:j1] = -1
        self.b_teacher[j0:j1] = self._teach[li]
        if extra is not None:
            self.b_extra[j0:j1] = extra
        prev = self.last_idx[li, seats]
        linked = prev >= 0
        self.b_next[prev[linked]] = rows[linked]
        self.last_idx[li, seats] = rows
        self.size = j1

    def collect(self) -> dict[str, Any]:
        """Play ``rollout_ticks`` decisions in every game, recording learner decisions;
        returns the finished games' count, results by opponent label, lengths and
        truncations."""
        if self._obs is None:
            raise RuntimeError("call start() (or load_state()) before collect()")
        cfg = self.cfg
        env, acts, teach = self.env, self._acts, self._teach
        results: dict[str, list[int]] = {}
        lengths: list[int] = []
        truncated = finished = 0
        obs, info = self._obs, self._info
        for _ in range(cfg.rollout_ticks):
            mask, cur = info["action_mask"], info["current_player"]
            kind_now = self.kind[np.arange(self.k), cur]
            li = np.flatnonzero(kind_now == LEARNER)
            if self.teacher_coef > 0:
                for i in li.tolist():
                    t = self.seat_agent[i][cur[i]]
                    teach[i] = -1 if t is None else t.act(obs[i], mask[i])
            else:
                teach[li] = -1
            agent_games = np.flatnonzero((kind_now == RULE) | (kind_now == RANDOM))
            if self.compiled and len(agent_games):
                act_games(env._s, env._t, self._ot, self._om, agent_games,
                          COMPILED_KIND[kind_now[agent_games]], acts)
            else:
                for i in agent_games.tolist():
                    acts[i] = self.seat_agent[i][cur[i]].act(obs[i], mask[i])
            if len(li):
                self._record(li, obs, mask, cur)
            fz = np.flatnonzero(kind_now == FROZEN)
            if len(fz):
                ver = self.frozen_ver[fz, cur[fz]]
                for v in np.unique(ver).tolist():
                    idx = fz[ver == v]
                    logits, _ = self._forward(self.pool.frozen[v], obs[idx], mask[idx], None)
                    acts[idx] = sample_actions(logits, self.rngs["act"], cfg.frozen_greedy)[0]
            obs, rew, term, trunc, info = env.step(acts)
            self.length += 1
            g, s = np.nonzero(rew)
            if len(g):
                r = rew[g, s]
                self.ep_return[g, s] += r
                j = self.last_idx[g, s]
                ok = j >= 0
                self.b_rew[j[ok]] += r[ok]
            ended = np.flatnonzero(term | trunc)
            if len(ended):
                js = self.last_idx[ended]
                self.b_done[js[js >= 0]] = True
                self.last_idx[ended] = -1
                won = self.ep_return[ended, self.primary[ended]] > 0
                for i, w in zip(ended.tolist(), won.tolist(), strict=True):
                    results.setdefault(self.label[i], []).append(int(w))
                lengths += self.length[ended].tolist()
                truncated += int(trunc[ended].sum())
                finished += len(ended)
                for i in ended.tolist():
                    self.deal_seats(i)
        self._obs, self._info = obs, info
        return {"games": finished, "results": results, "lengths": lengths,
                "truncated": truncated}

    def run(self, teacher_coef: float = 0.0) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """One rollout: collect, then the trainable decisions with advantages and returns
        (see :meth:`DecisionBuffer.batch`); the pending ones wait for the next rollout."""
        self.teacher_coef = teacher_coef
        before = self.size
        info = self.collect()
        info["new_steps"] = self.size - before
        batch = self.batch(self.cfg.gamma, self.cfg.gae_lambda)
        self.carry_over()
        return batch, info

    # --- exact resume -----------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything in flight: the games (``raw_env`` snapshots), seats, agents' memories,
        the pending decisions, the random streams and the frozen nets still seated."""
        return {
            "games": [self.env.snapshot(i) for i in range(self.k)],
            "buffer": DecisionBuffer.state(self),
            "kind": torch.from_numpy(self.kind.copy()),
            "frozen_ver": torch.from_numpy(self.frozen_ver.copy()),
            "primary": torch.from_numpy(self.primary.copy()),
            "label": list(self.label),
            "ep_return": torch.from_numpy(self.ep_return.copy()),
            "length": torch.from_numpy(self.length.copy()),
            "agents": [[slot, seat, role, agent_state(a)]
                       for (slot, seat, role), a in self.agents.cache.items()],
            "seat_agents": [[(-1 if a is None else self._agent_key(a)) for a in row]
                            for row in self.seat_agent],
            "rng": {k: g.bit_generator.state for k, g in self.rngs.items()},
            "pool": self.pool.state(),
            **({"compiled_opponents": self._opponents_state()} if self.compiled else {}),
        }

    def _opponents_state(self) -> dict[str, Any]:
        """The compiled opponents' generators (``random.Random`` states: 624 words and the
        index) and the rule agents' memories."""
        om = self._om
        return {"mt": torch.from_numpy(om.mt.astype(np.int64)),
                "mti": torch.from_numpy(om.mti.copy()),
                "prev_discard": torch.from_numpy(om.prev_discard.copy()),
                "prev_color": torch.from_numpy(om.prev_color.copy()),
                "has_prev": torch.from_numpy(om.has_prev.copy())}

    def _python_agents(self, i: int, q: int) -> None:
        """Slot ``i``, seat ``q``'s Python agents from compiled ones (a state saved with
        ``opponent_engine: compiled`` resumed with ``python``)."""
        om = self._om
        self.agents.get("random", i, q).set_state(random_state(om, i, q))
        if self.kind[i, q] in (RULE, RANDOM):
            agent = self.agents.get(KIND_NAMES[int(self.kind[i, q])], i, q)
            if self.kind[i, q] == RULE:
                pc = int(om.prev_color[i, q])
                agent.set_state({"prev_color": None if pc < 0 else pc,
                                 "prev_discard": (om.prev_discard[i, q].tolist()
                                                  if om.has_prev[i, q] else None)})
            self.seat_agent[i][q] = agent

    def _load_opponents(self, st: dict[str, Any]) -> None:
        om = self._om
        c = st.get("compiled_opponents")
        if c is not None:
            om.mt[...] = c["mt"].numpy().astype(np.uint32)
            om.mti[...] = c["mti"].numpy()
            om.prev_discard[...] = c["prev_discard"].numpy()
            om.prev_color[...] = c["prev_color"].numpy()
            om.has_prev[...] = c["has_prev"].numpy()
            return
        # a checkpoint from Python opponents: their states move into the compiled ones
        for slot, seat, role, a_state in st["agents"]:
            if a_state is None or role not in ("opponent:random", "opponent:rule"):
                continue
            i, q = int(slot), int(seat)
            if role == "opponent:random":
                set_random_state(om, i, q, a_state)
            elif a_state["prev_discard"] is not None:
                om.prev_discard[i, q] = np.asarray(a_state["prev_discard"]).astype(np.int16)
                om.has_prev[i, q] = 1
                om.prev_color[i, q] = -1 if a_state["prev_color"] is None else a_state[
                    "prev_color"]

    def _agent_key(self, agent: Any) -> int:
        for j, a in enumerate(self.agents.cache.values()):
            if a is agent:
                return j
        raise KeyError("a seated agent is not in the agent cache")

    def load_state(self, st: dict[str, Any]) -> None:
        # restore() rewrites the output arrays reset() returned, game by game
        self._obs, self._info = self.env.reset(seed=0)
        for i, snap in enumerate(st["games"]):
            self.env.restore(i, snap)
        DecisionBuffer.load_state(self, st["buffer"])
        self.kind[...] = st["kind"].numpy()
        self.frozen_ver[...] = st["frozen_ver"].numpy()
        self.primary[...] = st["primary"].numpy()
        self.label = list(st["label"])
        self.ep_return[...] = st["ep_return"].numpy()
        self.length[...] = st["length"].numpy()
        self.agents.cache.clear()
        made = []
        for slot, seat, role, a_state in st["agents"]:
            kind, spec = role.split(":", 1)
            agent = self.agents.get(spec, int(slot), int(seat), role=kind)
            set_agent_state(agent, a_state)
            made.append(agent)
        self.seat_agent = [[None if j < 0 else made[j] for j in row]
                           for row in st["seat_agents"]]
        self._load_opponents(st)
        for i in range(self.k):
            for q in range(self.n):
                if self.compiled and COMPILED_KIND[self.kind[i, q]] != OPP_EXTERNAL:
                    self.seat_agent[i][q] = None  # compiled seats have no Python agent
                elif not self.compiled and "compiled_opponents" in st:
                    self._python_agents(i, q)
        for k, g in self.rngs.items():
            g.bit_generator.state = st["rng"][k]
        self.pool.load(st["pool"], self.device)
