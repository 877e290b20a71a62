"""A Gymnasium single-agent view of UNO: one learning seat against a pool of opponents.

Each episode the learner gets a seat (random from the episode's seed unless fixed) and every
other seat an opponent drawn from the pool (agent specs such as ``"random"``, ``"rule"``,
``"ppo:PATH"``, or agent objects). Opponents move inside :meth:`SingleAgentEnv.step` until
the learner must decide again or the episode ends, and the reward returned is everything
the AEC env paid the learner since its previous decision, losses included. (PettingZoo's
SB3 tutorial wrapper returns the reward of whoever is selected when the game ends, which is
usually the winner: the loser's -1 never reaches the learner.) ``action_masks()`` is what
sb3-contrib's MaskablePPO reads; ``info["action_mask"]`` carries the same mask.

An illegal action (one the mask forbids) ends the episode with -1 for the learner, as in
:func:`uno_env.env` (``illegal_action="lose"``, the default, which lets Gymnasium's and
SB3's ``check_env`` step with unmasked samples), or raises ``IllegalActionError`` and
changes nothing (``illegal_action="raise"``).

The env lives in ``training`` because opponents given as specs are built by ``agents``
(``uno_env`` <- ``agents`` <- ``training``). ``import uno_env`` registers it as
``"uno_env/UNO-v1"`` through a string entry point, so importing ``uno_env`` imports neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from uno_env import agents
from uno_env.aec import DEFAULT_MAX_STEPS, raw_env
from uno_env.play import play_episode
from uno_env.rules import IllegalActionError

MAX_REDEALS = 100
ILLEGAL_ACTIONS = ("lose", "raise")
ILLEGAL_REWARD = -1.0  # what env()'s TerminateIllegalWrapper pays the offender


class SingleAgentEnv(gymnasium.Env):
    """One learning seat of a ``num_players`` game of ``variant``; see the module docstring.

    ``opponents``: a list of agent specs (loaded with :func:`agents.load`, one instance per
    seat) or agent objects (shared by every seat they are drawn for); each other seat draws
    one uniformly every episode. ``learner_seat``: a fixed seat, or ``None`` for a random
    seat per episode. ``reward`` and ``max_steps`` are the AEC env's (``max_steps`` counts
    every decision, opponents' included; the episode is then truncated). ``illegal_action``:
    ``"lose"`` or ``"raise"`` (module docstring). ``options`` are the rule options.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, variant: str = "classic", num_players: int = 2,
                 opponents: Sequence[Any] = ("random",), learner_seat: int | None = None,
                 reward: str = "win_loss", max_steps: int | None = DEFAULT_MAX_STEPS,
                 illegal_action: str = "lose", render_mode: str | None = None,
                 **options: Any) -> None:
        super().__init__()
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action={illegal_action!r} is not valid; allowed: "
                             f"{', '.join(ILLEGAL_ACTIONS)}")
        self.illegal_action = illegal_action
        self.aec = raw_env(variant, num_players, render_mode=render_mode, reward=reward,
                           max_steps=max_steps, **options)
        self.variant = self.aec.variant
        self.num_players = num_players
        self.options = dict(options)
        self.render_mode = render_mode
        if isinstance(opponents, str) or not isinstance(opponents, Sequence) or not opponents:
            raise ValueError("opponents must be a non-empty list of agent specs or agents, "
                             f"got {opponents!r}")
        for o in opponents:
            if not isinstance(o, str) and not callable(getattr(o, "act", None)):
                raise ValueError(f"opponent {o!r} is neither an agent spec nor an agent")
        self.opponents = list(opponents)
        if learner_seat is not None and not (
                isinstance(learner_seat, int) and 0 <= learner_seat < num_players):
            raise ValueError(f"learner_seat must be None or a seat 0-{num_players - 1}, "
                             f"got {learner_seat!r}")
        self.learner_seat = learner_seat
        self._loaded: dict[tuple[int, int], Any] = {}  # (pool index, seat) -> agent
        for i, o in enumerate(self.opponents):  # fail early on a bad spec
            if isinstance(o, str):
                self._opponent(i, (learner_seat or 0) + 1)
        self.observation_space = gymnasium.spaces.Box(0.0, self.aec.layout.high,
                                                      dtype=np.float32)
        self.action_space: gymnasium.spaces.Discrete = gymnasium.spaces.Discrete(
            self.aec.game.num_actions)
        self.action_meanings = self.aec.action_meanings
        self.seat = 0
        self.agent = self.aec.possible_agents[0]
        self.seat_agents: list[Any] = []
        self.seat_names: list[str] = []
        self._mask = np.zeros(self.aec.game.num_actions, dtype=np.int8)
        self._carry = 0.0
        self._live = False

    def _opponent(self, index: int, seat: int) -> Any:
        spec = self.opponents[index]
        if not isinstance(spec, str):
            return spec
        key = (index, seat % self.num_players)
        if key not in self._loaded:
            self._loaded[key] = agents.load(spec, variant=self.variant,
                                            num_players=self.num_players, **self.options)
        return self._loaded[key]

    # --- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game. ``options`` may give ``learner_seat`` and the AEC env's reset
        options (``deck``, ``dealer``). A game that ends before the learner's first
        decision (opponents went out while the learner's moves were forced) is dealt
        again."""
        super().reset(seed=seed)
        rng = self.np_random
        opts = dict(options or {})
        seat = opts.pop("learner_seat", self.learner_seat)
        n = self.num_players
        if seat is None:
            seat = int(rng.integers(n))
        elif not (isinstance(seat, int | np.integer) and 0 <= seat < n):
            raise ValueError(f"learner_seat must be a seat 0-{n - 1}, got {seat!r}")
        self.seat = int(seat)
        self.agent = self.aec.possible_agents[self.seat]
        self.redeals = 0
        while True:
            self.aec.reset(seed=int(rng.integers(2**63)), options=opts)
            self.seat_agents, self.seat_names = [], []
            for s in range(n):
                if s == self.seat:
                    self.seat_agents.append(None)
                    self.seat_names.append("learner")
                    continue
                k = int(rng.integers(len(self.opponents)))
                agent = self._opponent(k, s)
                reseed = getattr(agent, "seed", None)
                if callable(reseed):
                    reseed(int(rng.integers(2**63)))
                agent.reset()
                self.seat_agents.append(agent)
                spec = self.opponents[k]
                self.seat_names.append(spec if isinstance(spec, str)
                                       else getattr(agent, "name", type(agent).__name__))
            self._advance()
            if self._live:
                break
            self.redeals += 1
            if self.redeals >= MAX_REDEALS:
                raise RuntimeError(f"{MAX_REDEALS} deals in a row ended before the learner's "
                                   "first decision; check the reset options")
        # Rewards paid before the first decision (a round lost in a match) come with the
        # first step's reward.
        self._carry = float(self.aec._cumulative_rewards[self.agent])
        obs, info = self._observe()
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._live:
            raise RuntimeError("the episode is over: call reset()")
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in the action space "
                             f"Discrete({self.action_space.n})")
        action = int(action)
        if not self._mask[action]:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"action {action} ({self.action_meanings[action]!r}) is not legal now; "
                    f"legal: {np.flatnonzero(self._mask).tolist()}")
            return self._lose_by_illegal_action()
        self.aec.step(action)
        self._advance()
        aec = self.aec
        reward = self._carry + float(aec._cumulative_rewards[self.agent])
        self._carry = 0.0
        terminated = aec.terminations[self.agent]
        truncated = aec.truncations[self.agent] and not terminated
        obs, info = self._observe()
        return obs, reward, bool(terminated), bool(truncated), info

    def _lose_by_illegal_action(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """``illegal_action="lose"``: the episode ends here with -1 (the game is left as it
        was, for inspection)."""
        reward = self._carry + ILLEGAL_REWARD
        self._carry = 0.0
        self._live = False
        obs = self.aec.layout.build(self.aec.engine, self.seat)
        self._mask = np.zeros_like(self._mask)
        info = self._info()
        info["illegal_action"] = True
        return obs, reward, True, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the episode is over)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # --- internals --------------------------------------------------------------------------
    def _advance(self) -> None:
        """Play the opponents' decisions until the learner must decide or the game ends."""
        aec = self.aec
        names = aec.possible_agents
        # the learner's seat has no agent in the mapping, so the loop stops when it must act
        play_episode(aec, {names[s]: ag for s, ag in enumerate(self.seat_agents)
                           if ag is not None})
        sel = aec.agent_selection
        self._live = not (aec.terminations[sel] or aec.truncations[sel])

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        ob = self.aec.observe(self.agent)
        assert isinstance(ob, dict)  # the wrapped raw_env uses obs_type="dict"
        self._mask = ob["action_mask"]
        return ob["observation"], self._info()

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "opponents": [n for n in self.seat_names if n != "learner"],
                "action_mask": self._mask.copy()}
