"""``gymnasium.make_vec("uno_env/UNO-v1", num_envs=N, vectorization_mode="vector_entry_point")``:
one learner seat per game on the compiled batch engine, the opponents compiled too.

Each game is ``gymnasium.make("uno_env/UNO-v1")`` (``SingleAgentEnv``) with the same
arguments: game ``i`` reset with seed ``s`` plays the episodes that env plays after
``reset(seed=s)`` and then ``reset()`` without a seed, decision for decision (the same learner
seat, deal, opponents and opponent choices; ``tests/test_learner_vec.py``). Autoreset is
Gymnasium's same-step mode (``metadata["autoreset_mode"]``): a finished game is dealt again
inside ``step``; that step's reward, ``terminated`` and ``truncated`` are the finished
episode's, its observation, ``info["action_mask"]`` and ``info["seat"]`` already the next
episode's, and the finished episode's last observation is ``info["final_obs"][i]`` (with
``info["_final_obs"]`` marking which games finished, as ``SyncVectorEnv`` gives them).
See docs/vector-interfaces.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from uno_env.aec import DEFAULT_MAX_STEPS, raw_env
from uno_env.batch import learner_kernel as K
from uno_env.batch import opponents as O
from uno_env.batch.cache import EntryPoints
from uno_env.batch.convert import to_state
from uno_env.batch.layout import allocate
from uno_env.batch.pcg64 import load_state
from uno_env.batch.sample import random_actions
from uno_env.batch.step import first_illegal
from uno_env.batch.support import check_variant
from uno_env.batch.tables import build_tables
from uno_env.rules.rng import SplitMix64
from uno_env.rules.state import IllegalActionError

ILLEGAL_ACTIONS = ("lose", "raise")  # SingleAgentEnv's
_INT64 = np.dtype(np.int64)


def compiled_opponents() -> list[str]:
    """The opponent specs the vector env plays by compiled kernels."""
    return sorted(O.KINDS)


def _pool(opponents: Any) -> tuple[list[int], list[int], list[Any]]:
    """Each pool entry's kind and policy index, and the policies (objects with
    ``act_batch(observations, masks)``, e.g. ``uno_env.agents.ppo.PPOBatch``)."""
    allowed = (", ".join(repr(k) for k in compiled_opponents())
               + ", or a batched policy (an object with act_batch(observations, masks), such "
               "as uno_env.agents.ppo.PPOBatch; gymnasium.make_vec turns 'ppo:...' specs "
               "into one)")
    if isinstance(opponents, str) or not isinstance(opponents, Sequence) or not opponents:
        raise ValueError(f"opponents must be a non-empty list of opponents (allowed in the "
                         f"vector env: {allowed}), got {opponents!r}")
    kinds: list[int] = []
    index: list[int] = []
    policies: list[Any] = []
    for o in opponents:
        if isinstance(o, str) and o in O.KINDS:
            kinds.append(O.KINDS[o])
            index.append(-1)
        elif not isinstance(o, str) and callable(getattr(o, "act_batch", None)):
            if not any(o is p for p in policies):
                policies.append(o)
            kinds.append(O.OPP_EXTERNAL)
            index.append(next(k for k, p in enumerate(policies) if p is o))
        else:
            raise ValueError(
                f"opponent {o!r} has no compiled kernel, so the vector env cannot play it; "
                f"allowed: {allowed} (gymnasium.make('uno_env/UNO-v1') takes any agent)")
    return kinds, index, policies


class LearnerVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``SingleAgentEnv(variant, num_players, opponents, ...)`` in one
    compiled step. ``copy``: return copies of the observation and mask (``SyncVectorEnv``'s
    default); ``copy=False`` returns buffers that the next call overwrites. ``autoreset=False``
    (Gymnasium's ``AutoresetMode.DISABLED``): a finished game waits, its mask all zeros, for
    ``reset(options={"reset_mask": ...})``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, variant: str = "classic", num_players: int = 2,
                 opponents: Sequence[str] = ("random",), learner_seat: int | None = None,
                 reward: str = "win_loss", max_steps: int | None = DEFAULT_MAX_STEPS,
                 illegal_action: str = "lose", render_mode: str | None = None,
                 copy: bool = True, autoreset: bool = True, **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) \
                or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} is not valid; allowed: an integer >= 1")
        if render_mode is not None:
            raise ValueError(f"render_mode={render_mode!r}: the vector env does not render; "
                             "allowed: None (render one game with gymnasium.make)")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action={illegal_action!r} is not valid; allowed: "
                             f"{', '.join(ILLEGAL_ACTIONS)}")
        # raw_env validates variant, players, reward, max_steps and every rule option
        self._raw = raw = raw_env(variant, num_players, reward=reward, max_steps=max_steps,
                                  **options)
        check_variant(raw.game.variant, "the vector env")  # kernels for its effects, phases
        pool, pool_policy, self._policies = _pool(opponents)
        if learner_seat is not None and (isinstance(learner_seat, bool) or not isinstance(
                learner_seat, int | np.integer) or not 0 <= learner_seat < num_players):
            raise ValueError(f"learner_seat must be None or a seat 0-{num_players - 1}, "
                             f"got {learner_seat!r}")
        b, n = int(num_envs), num_players
        self.num_envs = b
        self.variant, self.num_players = raw.variant, n
        self.opponents = list(opponents)
        self.learner_seat = learner_seat
        self.illegal_action = illegal_action
        self.options = dict(options)
        self.copy = bool(copy)
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset must be True or False, got {autoreset!r}")
        self.autoreset = autoreset
        self.metadata = {**self.metadata, "autoreset_mode": AutoresetMode.SAME_STEP
                         if autoreset else AutoresetMode.DISABLED}
        self.render_mode = None
        self.action_meanings = list(raw.action_meanings)
        self._game = raw.game
        self._t = t = build_tables(raw.game, raw.layout, raw.reward_mode, raw.max_steps)
        self._s = allocate(t, b)
        self._ot = O.build_opponent_tables(raw.game, raw.layout, t)
        self._om = O.allocate_opponent_memory(b, n, t.nf)
        self._lr = K.allocate_learner(b, n, pool, pool_policy)
        # the tick loop's buffers: the waiting games of one policy, their seat's view
        self._rows = np.zeros(b, np.int64)
        self._pobs = np.zeros((b, t.obs_dim), np.float32)
        self._pmask = np.zeros((b, t.na), np.uint8)
        self._fixed = -1 if learner_seat is None else int(learner_seat)
        self.obs_high = raw.layout.high  # the observation's upper bounds
        self.single_observation_space = gymnasium.spaces.Box(0.0, raw.layout.high,
                                                             dtype=np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(t.na)
        self.observation_space = batch_space(self.single_observation_space, b)
        self.action_space = batch_space(self.single_action_space, b)
        self.num_actions = t.na
        self.obs_dim = t.obs_dim
        # output buffers, rewritten by every call
        self.obs = np.zeros((b, t.obs_dim), np.float32)
        self.final_obs = np.zeros_like(self.obs)  # rows of the games that just finished
        self.mask = np.zeros((b, t.na), np.int8)  # SingleAgentEnv's mask dtype
        self.rewards = np.zeros(b, np.float64)
        self.terminations = np.zeros(b, np.bool_)
        self.truncations = np.zeros(b, np.bool_)
        self.dones = np.zeros(b, np.bool_)
        self.final_seat = np.zeros(b, np.int64)
        self._all = np.ones(b, np.bool_)
        self._seeded = np.zeros(b, np.bool_)
        self._ready = False  # every game seeded: step() may run
        self._entries = EntryPoints()
        self._sample_rng: np.ndarray | None = None
        self._sample_out = np.zeros(b, np.int64)

    def _run(self, kernel: Any, *args: Any) -> Any:
        """``kernel(*args)`` through its compiled entry point (:class:`EntryPoints`)."""
        return self._entries.run(kernel, *args)

    def _status(self, r: int) -> int:
        if r >= 0:
            return r
        i = int(self._lr.bad[0])
        if r == K.REDEAL_LIMIT:
            raise RuntimeError(f"game {i}: {K.MAX_REDEALS} deals in a row ended before the "
                               "learner's first decision")
        if r == K.NOT_LIVE:
            raise RuntimeError(f"game {i}: its episode is over and autoreset is off; reset "
                               "it (reset(options={'reset_mask': ...})) before stepping")
        raise RuntimeError(f"game {i}: an opponent found no legal action or chose an "
                           "illegal one")

    def _info(self, which: np.ndarray) -> dict[str, Any]:
        mask = self.mask.copy() if self.copy else self.mask
        return {"seat": self._lr.seat.copy(), "_seat": which,
                "action_mask": mask, "_action_mask": which}

    # --- gymnasium.vector.VectorEnv API -----------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new episode in every game (or in those of ``options["reset_mask"]``).
        ``seed=s`` seeds game ``i`` with ``s + i``; a list seeds each game (``None``
        entries continue); ``None`` continues each game's generator as
        ``SingleAgentEnv.reset()`` does (a fresh random one for a game never seeded)."""
        opts = dict(options or {})
        which = opts.pop("reset_mask", None)
        if opts:
            raise ValueError(f"reset options {sorted(opts)} are not supported; allowed: "
                             "reset_mask")
        b = self.num_envs
        if which is None:
            which = self._all
        elif not (isinstance(which, np.ndarray) and which.dtype == np.bool_
                  and which.shape == (b,) and which.any()):
            raise ValueError(f"options['reset_mask'] must be a bool array of shape ({b},) "
                             f"with a True, got {which!r}")
        if seed is None:
            seeds: list[int | None] = [None] * b
        elif isinstance(seed, int | np.integer) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(b)]
        elif isinstance(seed, Sequence) and len(seed) == b:
            seeds = list(seed)
        else:
            raise ValueError(f"seed must be None, an int or a list of {b} ints or None, "
                             f"got {seed!r}")
        for i in np.flatnonzero(which):
            if seeds[i] is not None or not self._seeded[i]:
                gen, _ = seeding.np_random(seeds[i])  # SingleAgentEnv's np_random
                load_state(self._lr.pcg, int(i), gen)
                self._seeded[i] = True
        self._ready = bool(self._seeded.all())
        self._status(self._run(K.reset_kernel, self._s, self._t, self._ot, self._om,
                               self._lr, which, self._fixed, self.obs, self.mask, True))
        self._ticks()
        return (self.obs.copy() if self.copy else self.obs), self._info(which.copy())

    def _actions(self, actions: Any) -> np.ndarray:
        a: np.ndarray = actions
        if not (type(a) is np.ndarray and a.dtype == _INT64 and a.shape == (self.num_envs,)
                and a.flags.c_contiguous):
            a = np.asarray(actions)
            if a.shape != (self.num_envs,):
                raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
            if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
                raise TypeError(f"actions must be integer indices, got dtype {a.dtype}")
            a = np.ascontiguousarray(a, dtype=np.int64)
        if self.illegal_action == "raise":
            bad = self._run(first_illegal, self._s.legal, self.num_actions, a)
            if bad >= 0:
                x = int(a[bad])
                name = (repr(self.action_meanings[x]) if 0 <= x < self.num_actions
                        else f"outside 0-{self.num_actions - 1}")
                raise IllegalActionError(
                    f"game {bad}: action {x} ({name}) is not legal now; legal: "
                    f"{np.flatnonzero(self.mask[bad]).tolist()} (no game was changed)")
        return a

    def step_buffers(self, actions: Any) -> int:
        """``step`` without building its return values: the results are left in this env's
        buffers (``obs``, ``mask``, ``rewards``, ``terminations``, ``truncations``,
        ``dones``, ``final_obs``, ``final_seat``); returns how many games finished. The
        SB3 and TorchRL adapters build their own returns from these."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = self._actions(actions)
        lr = self._lr
        np.copyto(self.final_seat, lr.seat)
        finished = self._status(self._run(
            K.step_kernel, self._s, self._t, self._ot, self._om, lr, a, self._fixed,
            self.obs, self.mask, self.rewards, self.terminations, self.truncations,
            self.final_obs, True, self.autoreset))
        finished += self._ticks()
        np.logical_or(self.terminations, self.truncations, out=self.dones)
        return int(finished)

    def _ticks(self) -> int:
        """The tick loop: while games wait at a policy seat, one forward per policy for all
        its waiting games, then the kernel carries them on; how many finished a step."""
        lr, finished = self._lr, 0
        while self._policies and lr.waiting.any():
            for k, policy in enumerate(self._policies):
                m = self._run(K.observe_waiting, self._s, self._t, lr, k, self._rows,
                              self._pobs, self._pmask)
                if not m:
                    continue
                acts = np.ascontiguousarray(
                    policy.act_batch(self._pobs[:m], self._pmask[:m]), dtype=np.int64)
                finished += self._status(self._run(
                    K.resume_kernel, self._s, self._t, self._ot, self._om, lr,
                    self._rows[:m], acts, self._fixed, self.obs, self.mask, self.rewards,
                    self.terminations, self.truncations, self.final_obs, True,
                    self.autoreset))
        return finished

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """The learner's action in every game, then its opponents' moves until it must
        decide again; finished games are dealt again (same-step autoreset)."""
        finished = self.step_buffers(actions)
        done = self.dones
        info = self._info(self._all)
        if finished:
            d = done.copy()
            idx = np.flatnonzero(d)
            rows = self.final_obs[idx]  # one copy of the finished games' rows
            final = np.empty(self.num_envs, dtype=object)  # all None, as np.full(..., None)
            final[idx] = np.fromiter(rows, dtype=object, count=len(idx))  # a view per row
            info["final_obs"], info["_final_obs"] = final, d
            # as SyncVectorEnv's _add_info: zeros where no game finished
            info["final_info"] = {"seat": np.where(d, self.final_seat, 0), "_seat": d}
        if self.copy:
            return (self.obs.copy(), self.rewards.copy(), self.terminations.copy(),
                    self.truncations.copy(), info)
        return self.obs, self.rewards, self.terminations, self.truncations, info

    @property
    def seats(self) -> np.ndarray:
        """Every game's learner seat in its current episode (a buffer, not a copy)."""
        return self._lr.seat

    def action_masks(self) -> np.ndarray:
        """Every game's learner mask as bools, ``[num_envs, num_actions]`` (what
        ``SingleAgentEnv.action_masks()`` gives for one game)."""
        return self.mask.astype(bool)

    def sample_actions(self, seed: int = 0) -> np.ndarray:
        """Uniformly random legal learner actions, drawn by a kernel (benchmarks, random
        baselines): game ``i`` draws from the ``i``-th output of ``SplitMix64(seed)``
        (``seed`` counts on the first call only). The returned buffer is reused."""
        if self._sample_rng is None:
            gen = SplitMix64(seed)
            self._sample_rng = np.array([gen.next_u64() for _ in range(self.num_envs)],
                                        np.uint64)
        self._run(random_actions, self._s.S, self._s.legal.view(np.uint64), self._sample_rng,
                  self._sample_out)
        return self._sample_out

    def game_state(self, i: int) -> Any:
        """Game ``i`` as a Python engine ``State`` (a copy), for inspection."""
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or not (
                0 <= i < self.num_envs):
            raise ValueError(f"game index must be 0-{self.num_envs - 1}, got {i!r}")
        return to_state(self._s, self._t, self._game, int(i))

    def close_extras(self, **kwargs: Any) -> None:
        self._entries.clear()

