"""The scenario tests on the batch engine (docs/architecture.md, "Scenario tests on both engines").

:class:`MirroredEnv` is a ``raw_env`` whose every decision is also taken by the batch engine:
one game (``vector_env(..., num_envs=1)``) restored from the Python position, stepped with the
same action by the compiled kernels, and compared afterwards (engine state, every seat's
observation, action mask, rewards, termination, step count). The batch engine's state is then
converted back (``game_state``) and becomes the env's engine state, so that what a test asserts
next about hands, piles, phase or scores it asserts about the batch engine's result.

The ``engine`` fixture (tests/conftest.py) swaps ``raw_env`` for :class:`MirroredEnv` in a
scenario module; :data:`STATS` says afterwards whether the test took any decision through it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from uno_env import raw_env
from uno_env.batch.convert import from_state
from uno_env.batch.layout import NSTEPS
from uno_env.batch.step import outputs_kernel
from uno_env.batch.vector import VectorEnv
from uno_env.rules.state import State

_SLOTS = [name for cls in State.__mro__ for name in getattr(cls, "__slots__", ())]


class Stats:
    """What the batch engine did during one test (read by the skip hook in conftest)."""

    def __init__(self) -> None:
        self.envs = 0
        self.steps = 0
        self.refused: str | None = None
        self.shuffled = 0  # resets with a shuffled deck: random play, not a scenario


STATS = Stats()


SHUFFLED = ("Python engine only: random play from a shuffled deal, not a fixed-deck scenario "
            "(tests/test_batch_diff.py compares the batch engine's random play decision by "
            "decision)")


class Mismatch(AssertionError):
    """The batch engine reached another position than the Python engine."""


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 160 else text[:160] + "..."


def _diff(a: dict[str, Any], b: dict[str, Any]) -> str:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return "; ".join(f"{k}: python {_short(a.get(k))} != batch {_short(b.get(k))}"
                     for k in keys[:6])


def _cards(g: State) -> dict[str, Any]:
    """Where each physical card is (by id), and what is known of it."""
    return {"hands": [sorted(h) for h in g.hands], "draw_pile": list(g.draw_pile),
            "discard": list(g.discard), "known": bytes(g.known), "acq": list(g.acq)}


class MirroredEnv(raw_env):
    """``raw_env`` stepped by the Python engine and, in lockstep, by the batch kernels."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._mirror_kwargs = {k: v for k, v in kwargs.items()
                               if k not in ("render_mode", "obs_type")}
        self.mirror: VectorEnv | None = None  # built at the first decision
        self._mirroring = False  # a fixed-deck scenario, live, the batch engine takes it
        self._synced: dict[str, Any] | None = None  # the position the batch game holds

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        # A scenario deals a fixed deck; random play from a shuffled deal is compared with
        # the batch engine decision by decision in tests/test_batch_diff.py already (and
        # would cost CI seconds here), so such a game is the Python engine's alone.
        self._mirroring = "deck" in (options or {})
        self._synced = None
        if self._mirroring:
            STATS.envs += 1
        else:
            STATS.shuffled += 1
            if STATS.envs == 0:  # skip now rather than play the Python game twice
                pytest.skip(SHUFFLED)

    def restore(self, snapshot: dict[str, Any]) -> None:
        super().restore(snapshot)
        self._synced = None  # the batch game takes the position at the next decision

    def _vector(self) -> VectorEnv | None:
        """The one-game batch engine of this configuration (None: it refuses it)."""
        if self.mirror is None and STATS.refused is None:
            try:
                self.mirror = VectorEnv(self.variant, self.num_players, 1, autoreset=False,
                                        **{**self._mirror_kwargs, **self.options})
            except ValueError as err:  # a configuration the batch engine refuses
                STATS.refused = str(err)
                return None
            self.mirror.reset(seed=[0])
        return self.mirror

    def _load(self) -> None:
        """The batch game takes the Python position (after a reset, a restore, or a change
        made to the engine state outside ``step``)."""
        v = self.mirror
        assert v is not None
        v.restore(0, self.snapshot())  # the env's part: step count, rewards, seeder
        # and the engine state card by card: a snapshot names cards, so two copies of one
        # card (Flip has them) could trade places, and tests follow cards by id
        from_state(v._s, v._t, self.engine, 0)
        # (the legal decisions come with it: the batch engine computes its own in the
        # kernel that steps; calling legal.settle here would compile the engine a second
        # time, for other argument types, a minute of CI)
        outputs_kernel(v._s, v._t, 0, v._obs, v._mask, v._cur, v.observations)
        self._compare("the restore")
        self._adopt(v.game_state(0))
        self._synced = self.engine.to_dict()

    def step(self, action: Any) -> None:
        v = self._vector() if self._mirroring and self._live else None
        if v is None:
            super().step(action)
            return
        if self.engine.to_dict() != self._synced:
            self._load()
        try:
            super().step(action)
        except Exception as err:
            try:
                v.step(np.asarray([action]))
            except Exception:
                raise err from None
            raise Mismatch(f"the Python engine refused action {action!r} ({err}); the batch "
                           "engine took it") from err
        try:
            v.step(np.asarray([action]))
        except Exception as err:
            raise Mismatch(f"the batch engine refused action {action!r} "
                           f"({self.action_meanings[int(action)]!r}): {err}") from err
        STATS.steps += 1
        self._compare(f"{self.action_meanings[int(action)]!r} (decision {self.num_steps})")
        self._adopt(v.game_state(0))
        self._synced = self.engine.to_dict()

    def _adopt(self, batch: State) -> None:
        """The batch engine's state, written into the env's engine object in place: what
        the test asserts next (also through a reference to ``env.engine`` it holds) it
        asserts on the batch engine's result."""
        mine = self.engine
        for name in _SLOTS:
            if hasattr(batch, name):
                setattr(mine, name, getattr(batch, name))

    def _compare(self, what: str) -> None:
        v = self.mirror
        assert v is not None
        where = f"after {what}"
        batch = v.game_state(0)
        mine, theirs = self.engine.to_dict(), batch.to_dict()
        if mine != theirs:
            raise Mismatch(f"engine state {where}: {_diff(mine, theirs)}")
        mine, theirs = _cards(self.engine), _cards(batch)  # the snapshot names cards only
        if mine != theirs:
            raise Mismatch(f"cards by id {where}: {_diff(mine, theirs)}")
        agents = self.possible_agents
        got = {"rewards": [float(x) for x in v._s.rew[0]],
               "cumulative": [float(x) for x in v._s.cum[0]],
               "terminated": bool(v._term[0]), "truncated": bool(v._trunc[0]),
               "num_steps": int(v._s.S[0, NSTEPS]), "current": int(v._cur[0])}
        want = {"rewards": [self.rewards[a] for a in agents],
                "cumulative": [self._cumulative_rewards[a] for a in agents],
                "terminated": any(self.terminations.values()),
                "truncated": any(self.truncations.values()),
                "num_steps": self.num_steps, "current": self.engine.current}
        if got != want:
            raise Mismatch(f"env outputs {where}: {_diff(want, got)}")
        if self._live:
            mask = self.infos[self.agent_selection]["action_mask"]
            if not np.array_equal(v._mask[0], mask):
                raise Mismatch(f"action mask {where}: python {np.flatnonzero(mask)} != "
                               f"batch {np.flatnonzero(v._mask[0])}")
        for seat in range(self.num_players):
            want_obs = self.layout.build(self.engine, seat)
            if not np.array_equal(v.observe(0, seat), want_obs):
                bad = np.flatnonzero(v.observe(0, seat) != want_obs)
                raise Mismatch(f"seat {seat}'s observation {where}: entries {bad[:10]} differ")
