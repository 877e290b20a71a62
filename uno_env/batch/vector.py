"""``vector_env``: many games in lockstep on the compiled batch engine (``uno_env.batch``).

Gymnasium's vector conventions with same-step autoreset: a game that ends in a ``step`` is
reset inside it; ``terminated``/``truncated`` and ``rewards`` are those of the finishing
decision, ``obs``/``action_mask``/``current_player`` already belong to the next game, and the
finishing observation (seen by the seat that acted) is in ``info["final_obs"]``. Game ``i``
seeded ``s`` is decision for decision the game ``raw_env.reset(seed=s)`` plays, and an
auto-reset continues as ``raw_env``'s next ``reset()`` without a seed.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from uno_env.aec import raw_env
from uno_env.batch.cache import EntryPoints
from uno_env.batch.convert import from_state, to_state
from uno_env.batch.layout import CUR, NSTEPS, allocate, bytes_per_game
from uno_env.batch.sample import random_actions, random_actions_parallel
from uno_env.batch.step import (
    first_illegal,
    observe_kernel,
    outputs_kernel,
    reset_kernel,
    step_kernel,
    step_kernel_parallel,
)
from uno_env.batch.support import check_variant
from uno_env.batch.tables import build_tables
from uno_env.rules.rng import MASK64, SplitMix64
from uno_env.rules.state import IllegalActionError, State

_INT64 = np.dtype(np.int64)


class VectorEnv:
    """``num_envs`` games of one configuration; see docs/vector-env.md.
    ``metadata["autoreset_mode"]`` says how finished games restart, the Gymnasium way
    (``SAME_STEP``, or ``DISABLED`` with ``autoreset=False``)."""

    metadata: dict[str, Any] = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, variant: str = "classic", num_players: int = 2, num_envs: int = 1,
                 *, observations: bool = True, autoreset: bool = True,
                 parallel: bool = False, **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} is not valid; allowed: an integer >= 1")
        # raw_env validates variant, player count, reward, max_steps and every rule option
        # with its own errors, and lends its layouts and snapshot format.
        self._raw = raw = raw_env(variant, num_players, **options)
        check_variant(raw.game.variant, "vector_env")  # its effects and phases have kernels
        self.variant = raw.variant
        self.num_envs = num_envs
        self.num_players = num_players
        self.options = dict(raw.options)
        self.reward = raw.reward_mode
        self.max_steps = raw.max_steps
        self.observations = bool(observations)
        self.autoreset = bool(autoreset)
        if not self.autoreset:
            self.metadata = {**self.metadata,
                             "autoreset_mode": gymnasium.vector.AutoresetMode.DISABLED}
        if not isinstance(parallel, bool):
            raise ValueError(f"parallel must be True or False, got {parallel!r}")
        # Opt-in: games on numba's threads (NUMBA_NUM_THREADS). It pays from a few hundred
        # games on idle cores; on oversubscribed cores numba's OpenMP layer spins and loses
        # (see docs/benchmarks.md). The games are bit for bit the same either way.
        self.parallel = parallel
        self.layout = raw.layout
        self.action_meanings = list(raw.action_meanings)
        self._game = raw.game
        self._t = build_tables(raw.game, raw.layout, raw.reward_mode, raw.max_steps)
        self._s = allocate(self._t, num_envs)
        self.obs_dim = self._t.obs_dim
        self.num_actions = self._t.na
        self.single_observation_space = gymnasium.spaces.Box(
            0.0, raw.layout.high, dtype=np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(self.num_actions)
        self.action_space = gymnasium.spaces.MultiDiscrete(np.full(num_envs, self.num_actions))
        b, n = num_envs, num_players
        # Output buffers, reused by every call (copy what you keep across steps).
        self._obs = np.zeros((b, self.obs_dim if observations else 1), np.float32)
        self._final_obs = np.zeros_like(self._obs)
        self._mask = np.zeros((b, self.num_actions), np.uint8)
        self._cur = np.zeros(b, np.int64)
        self._rewards = np.zeros((b, n), np.float32)
        self._term = np.zeros(b, np.bool_)
        self._trunc = np.zeros(b, np.bool_)
        self._done = np.zeros(b, np.bool_)
        self._shape = (b,)
        self._legal_words = self._s.legal.view(np.uint64)  # [B, words], shares the memory
        self._sample_rng: np.ndarray | None = None  # seeded by the first sample_actions
        self._sample_out = np.zeros(b, np.int64)
        self._seeded = False
        self._entries = EntryPoints()

    def _run(self, kernel: Any, *args: Any) -> Any:
        """``kernel(*args)`` through its compiled entry point (:class:`EntryPoints`)."""
        return self._entries.run(kernel, *args)

    @property
    def bytes_per_game(self) -> int:
        """Engine state per game, in bytes (output buffers not counted)."""
        return bytes_per_game(self._s)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask, "current_player": self._cur}

    def reset(self, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game. ``seed=s`` gives game ``i`` the seed ``s + i`` (mod 2**64); a
        list seeds each game; ``None`` continues each game's seeder (fresh random seeds the
        first time), as ``raw_env.reset()`` does."""
        if options:
            raise ValueError(f"vector_env.reset takes no options, got {sorted(options)}")
        b = self.num_envs
        if seed is None:
            if not self._seeded:
                self._s.seeder[:] = [secrets.randbits(64) for _ in range(b)]
        elif isinstance(seed, int | np.integer) and not isinstance(seed, bool):
            self._s.seeder[:] = [(int(seed) + i) & MASK64 for i in range(b)]
        else:
            seeds = list(seed) if isinstance(seed, Sequence) else [seed]
            if len(seeds) != b or not all(isinstance(x, int | np.integer)
                                          and not isinstance(x, bool) for x in seeds):
                raise ValueError(f"seed must be None, an int or {b} ints, got {seed!r}")
            self._s.seeder[:] = [int(x) & MASK64 for x in seeds]
        self._seeded = True
        self._run(reset_kernel, self._s, self._t, self._obs, self._mask, self._cur,
                  self.observations)
        return self._obs, self._info()

    def _check(self, actions: Any) -> np.ndarray:
        if not self._seeded:
            raise RuntimeError("call reset() before step()")
        a: np.ndarray = actions
        # the usual case (a C int64 array, as sample_actions and torch give) skips the
        # conversions: a few microseconds a step, serial beside the threaded kernel
        if not (type(a) is np.ndarray and a.dtype == _INT64 and a.shape == self._shape
                and a.flags.c_contiguous):
            a = np.asarray(actions)
            if a.shape != self._shape:
                raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
            if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
                raise TypeError(f"actions must be integer indices, got dtype {a.dtype}")
            a = np.ascontiguousarray(a, dtype=np.int64)
        bad = self._run(first_illegal, self._s.legal, self.num_actions, a)
        if bad >= 0:
            msg = self.game_state(bad).illegal_message(int(a[bad]))
            raise IllegalActionError(f"game {bad}: {msg} (no game was changed)")
        return a

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """One decision in every game: ``actions[i]`` for game ``i``'s current player."""
        a = self._check(actions)
        self._run(step_kernel_parallel if self.parallel else step_kernel, self._s, self._t, a,
                  self._obs, self._mask, self._cur, self._rewards, self._term, self._trunc,
                  self._final_obs, self.observations, self.autoreset)
        info = self._info()
        info["final_obs"] = self._final_obs
        info["_final_obs"] = np.logical_or(self._term, self._trunc, out=self._done)
        return self._obs, self._rewards, self._term, self._trunc, info

    def observe(self, i: int, seat: int) -> np.ndarray:
        """The observation of ``seat`` in game ``i`` now (a new array), as
        ``raw_env.observe(f"player_{seat}")["observation"]``."""
        i = self._index(i)
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not (
                0 <= seat < self.num_players):
            raise ValueError(f"seat must be 0-{self.num_players - 1}, got {seat!r}")
        out = np.zeros(self.obs_dim, np.float32)
        observe_kernel(self._s, self._t, i, int(seat), out)
        return out

    def sample_actions(self, seed: int = 0) -> np.ndarray:
        """Uniformly random legal actions for every game, drawn by a kernel (on numba's
        threads with ``parallel=True``). Game ``i`` has its own generator, the ``i``-th
        output of ``SplitMix64(seed)`` (``seed`` counts on the first call only), so the
        draws do not depend on the threads. The returned buffer is reused."""
        if self._sample_rng is None:
            gen = SplitMix64(seed)
            self._sample_rng = np.array([gen.next_u64() for _ in range(self.num_envs)],
                                        np.uint64)
        self._run(random_actions_parallel if self.parallel else random_actions, self._s.S,
                  self._legal_words, self._sample_rng, self._sample_out)
        return self._sample_out

    # --- one game as the Python engine sees it --------------------------------------------
    def _index(self, i: int) -> int:
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or not (
                0 <= i < self.num_envs):
            raise ValueError(f"game index must be 0-{self.num_envs - 1}, got {i!r}")
        if not self._seeded:
            raise RuntimeError("call reset() first")
        return int(i)

    def game_state(self, i: int) -> State:
        """Game ``i`` as a Python engine :class:`State` (a copy)."""
        return to_state(self._s, self._t, self._game, self._index(i))

    def snapshot(self, i: int) -> dict[str, Any]:
        """Game ``i`` as ``raw_env.snapshot()`` would give it."""
        i = self._index(i)
        raw, s = self._raw, self._s
        agents = raw.possible_agents
        raw._game = to_state(s, self._t, self._game, i)
        raw.agents = list(agents)
        raw.num_steps = int(s.S[i, NSTEPS])
        raw._paid_rounds = len(raw._game.round_results)
        raw.rewards = {a: float(s.rew[i, k]) for k, a in enumerate(agents)}
        raw._cumulative_rewards = {a: float(s.cum[i, k]) for k, a in enumerate(agents)}
        raw.terminations = {a: False for a in agents}
        raw.truncations = {a: False for a in agents}
        raw._seeder = SplitMix64(int(s.seeder[i]))
        raw.agent_selection = agents[int(s.S[i, CUR])]
        return raw.snapshot()

    def restore(self, i: int, snapshot: dict[str, Any]) -> None:
        """Load a ``raw_env`` (or ``snapshot``) snapshot into game ``i``."""
        i = self._index(i)
        raw, s = self._raw, self._s
        raw.restore(snapshot)  # the configuration check and the engine state
        if any(raw.terminations.values()) or any(raw.truncations.values()):
            raise ValueError("a finished episode cannot be restored into a vector env "
                             "(its games reset automatically)")
        from_state(s, self._t, raw.engine, i)
        s.S[i, NSTEPS] = raw.num_steps
        agents = raw.possible_agents
        s.rew[i] = [raw.rewards[a] for a in agents]
        s.cum[i] = [raw._cumulative_rewards[a] for a in agents]
        # no seeder in the snapshot: the next game is random, as raw_env's next reset() is
        s.seeder[i] = np.uint64(secrets.randbits(64) if raw._seeder is None
                                else raw._seeder.state)
        outputs_kernel(s, self._t, i, self._obs, self._mask, self._cur, self.observations)


def vector_env(variant: str = "classic", num_players: int = 2, num_envs: int = 1,
               **options: Any) -> VectorEnv:
    """``num_envs`` games advanced together by compiled kernels (see :class:`VectorEnv`)."""
    return VectorEnv(variant, num_players, num_envs, **options)
