"""The PettingZoo AEC environment: a thin adapter over the rules engine (no rules here)."""

from __future__ import annotations

import secrets
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from uno_env.cards import WILD
from uno_env.observation import ObservationLayout, StateLayout
from uno_env.rules.codes import P_OVER, PHASES
from uno_env.rules.game import Game
from uno_env.rules.rng import SplitMix64
from uno_env.rules.state import State
from uno_env.wrappers import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

REWARDS = ("win_loss", "points")
OBS_TYPES = ("dict", "flat")
_I8 = np.dtype(np.int8)  # a dtype object: numpy parses `np.int8` anew on every call
MASK_CACHE_SIZE = 4096  # distinct sets of legal actions kept (per env)
# Every episode ends: after this many decisions (every seat's, forced ones included) it is
# truncated with reward 0. A legal policy can loop forever (2-player Flip with an empty draw
# pile: draw, play the drawn Reverse, draw the other Reverse, ...). Normal play stays far
# below: the longest measured episode (`examples/game_lengths.py`: random and rule agents,
# every variant, 2/4/most players, default and house rules, rounds and whole matches) took
# 102,107 decisions, a 2-player Flip match of random agents (150 such matches: mean 38,009,
# sd 18,949); the longest single round 34,281 (random), the longest rule-agent match 974.
# `max_steps=None` means this limit too; the batch engine mirrors it.
DEFAULT_MAX_STEPS = 500_000


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """UNO as an AEC game. Agents are ``player_0..player_{N-1}``; see docs/environments.md for the
    observation and action layouts."""

    metadata = {"render_modes": ["ansi", "human"], "name": "uno_classic_v1",
                "is_parallelizable": False, "render_fps": 1}
    # Slots for the attributes: with ~35 of them in an instance dict CPython's attribute
    # access slows down on every step (AECEnv still gives instances a dict for others).
    __slots__ = ("game", "obs_type", "render_mode", "reward_mode", "max_steps",
                 "reveal_hands", "variant", "num_players", "options", "possible_agents",
                 "agent_name_mapping", "layout", "state_layout", "action_meanings",
                 "observation_spaces", "action_spaces", "state_space", "_seeder", "_game",
                 "_zero_mask", "_masked", "_mask_cache", "_num_actions", "_live",
                 "_paid_rounds", "_rewards_dirty", "agents", "rewards",
                 "_cumulative_rewards", "terminations", "truncations", "infos",
                 "num_steps", "agent_selection")

    def __init__(self, variant: str = "classic", num_players: int = 2,
                 render_mode: str | None = None, reward: str = "win_loss",
                 max_steps: int | None = DEFAULT_MAX_STEPS, reveal_hands: bool = False,
                 obs_type: str = "dict", **options: Any) -> None:
        super().__init__()
        self.game = Game(variant, num_players, **options)
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, "
                             "'ansi', 'human'")
        if reward not in REWARDS:
            raise ValueError(f"reward={reward!r} is not valid; allowed: {', '.join(REWARDS)}")
        if max_steps is not None and (isinstance(max_steps, bool)
                                      or not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps={max_steps!r} is not valid; allowed: an integer >= 1 "
                             f"or None (the default limit, {DEFAULT_MAX_STEPS})")
        if obs_type not in OBS_TYPES:
            raise ValueError(f"obs_type={obs_type!r} is not valid; allowed: "
                             f"{', '.join(OBS_TYPES)}")
        self.obs_type = obs_type
        self.render_mode = render_mode
        self.reward_mode = reward
        # There is no unlimited setting: None (what callers pass for "no preference") is the
        # default limit, so that every episode ends.
        self.max_steps: int = DEFAULT_MAX_STEPS if max_steps is None else max_steps
        self.reveal_hands = bool(reveal_hands)
        self.variant = self.game.variant.name
        self.num_players = num_players
        self.options = dict(self.game.options)
        # (in the instance dict AECEnv gives: a class attribute cannot also be a slot)
        self.metadata = {  # type: ignore[misc]
            **type(self).metadata, "name": self.game.variant.env_name}
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.layout = ObservationLayout(self.game)
        self.state_layout = StateLayout(self.game)
        n_act = self.game.num_actions
        self.action_meanings: list[str] = list(self.game.actions.meanings)
        box = gymnasium.spaces.Box(0.0, self.layout.high, dtype=np.float32)
        obs_space: gymnasium.spaces.Space = box if obs_type == "flat" else gymnasium.spaces.Dict(
            {"observation": box, "action_mask": gymnasium.spaces.Box(0, 1, (n_act,),
                                                                     dtype=np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(n_act) for a in self.possible_agents}
        self.state_space = gymnasium.spaces.Box(-1.0, np.inf, (self.state_layout.size,),
                                                dtype=np.float32)
        self._seeder: SplitMix64 | None = None
        self._game: State | None = None
        # read-only, shared by the info of every agent not to act
        self._zero_mask = np.frombuffer(bytes(n_act), dtype=np.int8)
        self._masked: str | None = None  # the agent whose info holds a live mask
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._num_actions = n_act
        self._live = False
        self._paid_rounds = 0
        self._rewards_dirty = False

    # --- spaces -----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def action_index(self, text: str) -> int:
        """The action index for a meaning such as ``"play red-7"`` or ``"color blue"``."""
        return self.game.actions.index(text)

    # --- episode ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode. ``options`` may give ``deck`` (card names, top of the draw
        pile first) and ``dealer`` (a seat); other keys are ignored."""
        if seed is not None or self._seeder is None:
            self._seeder = SplitMix64(secrets.randbits(64) if seed is None else seed)
        game_seed = self._seeder.next_u64()  # seed s -> game seed: docs/environments.md's seeding
        opts = options or {}
        self._game = State(self.game, seed=game_seed, deck=opts.get("deck"),
                           dealer=opts.get("dealer"))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {
            a: {"action_mask": self._zero_mask} for a in self.agents}
        self.num_steps = 0
        self._paid_rounds = 0
        self._rewards_dirty = False
        self._live = True  # no termination or truncation yet
        self.agent_selection = self.agents[self._game.current]
        self._masked = None
        self._refresh_mask()

    @property
    def engine(self) -> State:
        """The rules-engine state of the current episode."""
        if self._game is None:
            raise RuntimeError("call reset() before using the environment")
        return self._game

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """``{"observation", "action_mask"}``, or with ``obs_type="flat"`` the observation
        vector alone (the mask is then in ``infos[agent]["action_mask"]``)."""
        g = self._game
        if g is None:
            raise RuntimeError("call reset() before observe()")
        seat = self.agent_name_mapping[agent]
        obs = self.layout.build(g, seat)
        if self.obs_type == "flat":
            return obs
        mask = self.infos[agent]["action_mask"] if agent == self._masked else self._zero_mask
        return {"observation": obs, "action_mask": mask.copy()}

    def _refresh_mask(self) -> None:
        """``infos[agent]["action_mask"]``: the legal actions of the agent to act, zeros for
        every other agent (the same values as the observation's mask)."""
        infos = self.infos
        old = self._masked
        if old is not None and old in infos:
            infos[old]["action_mask"] = self._zero_mask
        self._masked = None
        g = self._game
        if self._live and g is not None:
            agent = self.agent_selection
            info = infos.get(agent)
            if info is None:
                info = infos[agent] = {}
            info["action_mask"] = self._mask_of(g.legal)
            self._masked = agent

    def _mask_of(self, legal: list[int]) -> np.ndarray:
        """The int8 mask of ``legal``, read-only and shared: the same few sets of legal
        actions recur all game, so masks are cached (observe() hands out copies)."""
        key = tuple(legal)
        mask = self._mask_cache.get(key)
        return self._new_mask(key) if mask is None else mask

    def _new_mask(self, legal: tuple[int, ...]) -> np.ndarray:
        """:meth:`_mask_of` for a set not in the cache: build it and keep it."""
        if len(self._mask_cache) >= MASK_CACHE_SIZE:
            self._mask_cache.clear()
        mb = bytearray(self._num_actions)
        for a in legal:
            mb[a] = 1
        mask = self._mask_cache[legal] = np.frombuffer(bytes(mb), dtype=_I8)
        return mask

    def end_by_illegal_move(self) -> None:
        """Called by :class:`TerminateIllegalWrapper` once it has ended the game: no agent
        has legal actions any more."""
        self._live = False
        self._refresh_mask()

    def state(self) -> np.ndarray:
        return self.state_layout.build(self.engine)

    def step(self, action: Any) -> None:
        if not self._live:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            if isinstance(action, np.integer):
                action = int(action)
            else:
                raise TypeError(f"action must be an int index, got {action!r}")
        agent = self.agent_selection
        g = self._game
        assert g is not None  # _live is only set by reset()
        g.step(action)  # IllegalActionError (a ValueError) leaves everything unchanged
        if self._rewards_dirty:
            for k in self.rewards:
                self.rewards[k] = 0.0
            self._rewards_dirty = False
        self._cumulative_rewards[agent] = 0.0
        self.num_steps += 1
        if len(g.round_results) > self._paid_rounds:
            self._pay_rounds()
        if g.phase == P_OVER:
            self._pay_episode()
            self._live = False
            for a in self.agents:
                self.terminations[a] = True
            self.agent_selection = self.agents[(self.possible_agents.index(agent) + 1)
                                               % len(self.agents)]
            self._refresh_mask()
        elif self.num_steps == self.max_steps:
            self._live = False
            for a in self.agents:
                self.truncations[a] = True
            self.agent_selection = self.possible_agents[g.current]
            self._refresh_mask()
        else:  # the hot path: _refresh_mask inlined (the previous holder's info exists)
            sel = self.agent_selection = self.possible_agents[g.current]
            infos = self.infos
            if sel != self._masked:
                infos[self._masked]["action_mask"] = self._zero_mask  # type: ignore[index]
                self._masked = sel
            key = tuple(g.legal)
            mask = self._mask_cache.get(key)
            infos[sel]["action_mask"] = self._new_mask(key) if mask is None else mask
        if self._rewards_dirty:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _pay(self, seat: int, value: float) -> None:
        self.rewards[self.possible_agents[seat]] += value
        self._rewards_dirty = True

    def _pay_rounds(self) -> None:
        """``reward="points"``: each finished round pays its points (G-score)."""
        g = self.engine
        for r in g.round_results[self._paid_rounds:]:
            if self.reward_mode == "points" and r["winner"] >= 0:
                w = r["winner"]
                if g.game.penalty_scoring:
                    for s, pts in enumerate(r["points"]):
                        if s != w:
                            self._pay(s, -pts / 100.0)
                else:
                    self._pay(w, r["points"][w] / 100.0)
                    for s, v in enumerate(r["hand_values"]):
                        if s != w:
                            self._pay(s, -v / 100.0)
        self._paid_rounds = len(g.round_results)

    def _pay_episode(self) -> None:
        """``reward="win_loss"``: the winners share +1, the others share -1 (zero-sum)."""
        if self.reward_mode != "win_loss":
            return
        winners = self.engine.winners()
        n = self.num_players
        if not winners or len(winners) == n:
            return
        for s in range(n):
            self._pay(s, 1.0 / len(winners) if s in winners else -1.0 / (n - len(winners)))

    # --- snapshot ---------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The whole episode as JSON-serialisable data (see docs/environments.md for the keys)."""
        g = self.engine
        data = g.to_dict()
        data["hands"] = {self.possible_agents[s]: h for s, h in enumerate(data["hands"])}
        data["current"] = self.agent_selection
        colors = self.game.colors[g.side]
        data["active_color"] = colors[g.active_color] if g.active_color != WILD else None
        data["env"] = {
            "num_steps": self.num_steps, "paid_rounds": self._paid_rounds,
            "agents": list(self.agents), "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations), "truncations": dict(self.truncations),
            "seeder": None if self._seeder is None else self._seeder.state,
            "engine_current": g.current,
        }
        return data

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Put back a :meth:`snapshot`; play then continues exactly as it would have."""
        if snapshot.get("variant") != self.variant or snapshot.get(
                "num_players") != self.num_players or snapshot.get("options") != self.options:
            raise ValueError("snapshot is of another configuration: "
                             f"{snapshot.get('variant')!r} with {snapshot.get('num_players')} "
                             f"players and options {snapshot.get('options')}")
        data = dict(snapshot)
        env = data.pop("env")
        data["hands"] = [data["hands"][a] for a in self.possible_agents]
        data["current"] = env["engine_current"]
        colors = self.game.colors[int(data["side"])]
        ac = data["active_color"]
        data["active_color"] = WILD if ac is None else colors.index(ac)
        self._game = State.from_dict(self.game, data)
        self.agents = list(env["agents"])
        self.num_steps = env["num_steps"]
        self._paid_rounds = env["paid_rounds"]
        self.rewards = dict(env["rewards"])
        self._cumulative_rewards = dict(env["cumulative_rewards"])
        self.terminations = dict(env["terminations"])
        self.truncations = dict(env["truncations"])
        self.infos = {a: {"action_mask": self._zero_mask} for a in self.agents}
        self._rewards_dirty = any(self.rewards.values())
        self._live = not any(self.terminations.values()) and not any(
            self.truncations.values())
        self._seeder = None if env["seeder"] is None else SplitMix64(int(env["seeder"]))
        self.agent_selection = snapshot["current"]
        self._masked = None
        self._refresh_mask()

    # --- rendering --------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        from uno_env.render import render_text

        g = self.engine
        seat = g.current if g.phase != P_OVER else 0
        text = render_text(g, seat, reveal=self.reveal_hands,
                           names=self.possible_agents)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    @property
    def phase(self) -> str:
        return PHASES[self.engine.phase]


def env(variant: str = "classic", num_players: int = 2, render_mode: str | None = None,
        **options: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (an illegal move ends the game with
    -1 for the player who made it, as in PettingZoo's classic environments)."""
    e: AECEnv = raw_env(variant, num_players, render_mode=render_mode, **options)
    e = TerminateIllegalWrapper(e, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e
