"""Information-set MCTS (``ismcts``): search over sampled deals of the hidden cards.

At each decision the agent runs single-observer ISMCTS (Cowling, Powley & Whitehouse 2012):
every iteration draws a fresh determinization of what it cannot see
(:func:`uno_env.determinize.determinize`, from its observation and mask only), walks
one shared tree of action histories with UCB1 over the actions legal in that sample (each
child's exploration counts the iterations in which it was available), adds one node, and
finishes with a fast rollout (:func:`rollout_action`) to the end of the round. With a policy
``prior`` (``ppo:classic``, a checkpoint path) the selection is PUCT: the network's
probabilities steer the search and its value (when it reads only the observation) replaces
the rollout; ``prior=rule`` is PUCT with the default policy's choice as the prior (0.6) and
rollouts. Calling UNO and catching are taken without search. The move is the root action
visited most.

Decisions are reproducible and depend on the observation alone: the search's random stream is
seeded by the agent seed and a hash of (observation, mask, own previous decision), never by
anything hidden. With ``time_per_move`` the number of iterations depends on the machine.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from typing import Any

import numpy as np

from uno_env.cards import WILD
from uno_env.determinize import Recall, determinize
from uno_env.rules.codes import (
    ACCEPT,
    CATCH,
    COLOR,
    DRAW,
    E_ALL_DRAW,
    E_DRAW,
    E_REVERSE,
    E_SKIP,
    E_SKIP_EVERYONE,
    E_TARGET_DRAW,
    E_WDC,
    E_WILD_DRAW,
    P_OVER,
    PASS,
    PLAY,
    PLAY_FLEX,
    PLAY_TWO,
    UNO,
)
from uno_env.rules.game import Game
from uno_env.rules.state import State

UCB_C = 0.7  # exploration constant for win rates in [0, 1]
PUCT_C = 1.5
ROLLOUT_STEPS = 300  # a rollout stops here and is scored by hand sizes
_ATTACK = {E_DRAW, E_WILD_DRAW, E_WDC, E_SKIP, E_SKIP_EVERYONE, E_ALL_DRAW, E_TARGET_DRAW}


class Node:
    __slots__ = ("avail", "children", "player", "prior", "visits", "wins")

    def __init__(self, player: int, prior: float = 1.0) -> None:
        self.player = player  # who chose the action leading here
        self.prior = prior
        self.visits = 0
        self.wins = 0.0
        self.avail = 0
        self.children: dict[int, Node] = {}


def rollout_action(state: State, rng: random.Random) -> int:
    """The fast default policy, the rule agent's main habits at engine level: call UNO and
    catch when offered; play rather than draw, preferring the card whose colour the hand
    holds most, draw/skip effects (more so when the next player is close to going out) and
    coloured cards over wilds; name the colour held most; otherwise accept or pass."""
    legal = state.legal
    g = state.game
    types = g.actions.types
    p = state.current
    cnt = state.counts[p]
    plays: list[int] = []
    for a in legal:
        t = types[a]
        if t in (UNO, CATCH):
            return a
        if t in (PLAY, PLAY_TWO, PLAY_FLEX):
            plays.append(a)
    held = [0] * 5
    for f, k in enumerate(cnt):
        if k:
            held[g.face_color[f]] += k
    if plays:
        args = g.actions.args
        nxt = state.hand_len[(p + state.direction) % state.n]
        urgent = 20 if nxt <= 2 else 8
        best, best_score = plays[0], -1e9
        for a in plays:
            f = a if types[a] == PLAY else args[a]
            col = g.face_color[f]
            score = 10.0 * held[col] if col < 4 else -60.0
            e = g.face_effect[f]
            if e in _ATTACK or (e == E_REVERSE and state.n == 2):
                score += urgent
            if types[a] == PLAY_TWO:
                score += 10
            score += rng.random()
            if score > best_score:
                best, best_score = a, score
        return best
    if types[legal[0]] == COLOR:
        args = g.actions.args
        return max(legal, key=lambda a: held[args[a]] + rng.random() * 0.5)
    for a in legal:
        if types[a] in (ACCEPT, PASS):
            return a
    return rng.choice([a for a in legal if types[a] != DRAW] or legal)


def _choices(state: State) -> list[int]:
    """The actions worth searching: calling UNO and catching dominate (they cost nothing),
    so where one is offered it is the only choice; else every legal action."""
    types = state.game.actions.types
    for a in state.legal:
        t = types[a]
        if t in (UNO, CATCH):
            return [a]
    return state.legal


def playout(state: State, rng: random.Random) -> list[float]:
    """Play ``state`` on with :func:`rollout_action` to the end of its round; each seat's
    result in [0, 1] (1 to the winner; at the step cap a share by fewest cards)."""
    rounds = len(state.round_results)
    step, choose = state.step, rollout_action
    for _ in range(ROLLOUT_STEPS):
        if state.phase == P_OVER or len(state.round_results) > rounds:  # or a new deal
            return round_result(state, rounds)
        step(choose(state, rng))
    inv = [1.0 / (1 + h) for h in state.hand_len]
    total = sum(inv)
    return [x / total for x in inv]


def round_result(state: State, rounds: int) -> list[float]:
    """1 to the winner of the round that just ended (split on a blocked tie)."""
    n = state.n
    w = state.round_results[rounds]["winner"] if len(state.round_results) > rounds else -1
    if w < 0:
        return [1.0 / n] * n
    return [1.0 if s == w else 0.0 for s in range(n)]


class ISMCTSAgent:
    """Search agent; see the module docstring. ``simulations`` or ``time_per_move`` (seconds)
    bounds each decision (both: whichever comes first)."""

    def __init__(self, variant: str = "classic", num_players: int = 2,
                 simulations: int | None = None, time_per_move: float | None = None,
                 prior: str | None = None, seed: int | None = None, c: float | None = None,
                 **options: Any) -> None:
        if simulations is None and time_per_move is None:
            simulations = 200
        if simulations is not None and (isinstance(simulations, bool) or int(simulations) < 1):
            raise ValueError(f"simulations must be a positive integer, got {simulations!r}")
        if time_per_move is not None and not float(time_per_move) > 0:
            raise ValueError(f"time_per_move must be a positive number of seconds, got "
                             f"{time_per_move!r}")
        self.game = Game(variant, num_players, **options)
        self.simulations = None if simulations is None else int(simulations)
        self.time_per_move = None if time_per_move is None else float(time_per_move)
        self.prior_spec = prior
        self.net: Any = None
        self.value_from_net = False
        self.puct = bool(prior) and str(prior).lower() not in ("none", "")
        if self.puct and str(prior).lower() != "rule":
            self._load_prior(str(prior), variant, num_players, options)
        self.c = float(c) if c is not None else (PUCT_C if self.puct else UCB_C)
        self._seed = 0 if seed is None else int(seed)
        self._recall: Recall | None = None
        self.last_iterations = 0

    def _load_prior(self, prior: str, variant: str, num_players: int,
                    options: dict[str, Any]) -> None:
        """The policy network of ``ppo:VARIANT`` / ``ppo:PATH`` (``VARIANT`` or a path alone
        also do). Only its layout must match: it guides the search, so a checkpoint trained
        at another table of rules (say with voluntary draws) may still serve as a prior."""
        from uno_env.agents.policy import config_key, load_policy
        from uno_env.agents.ppo import checkpoint_path

        rest = prior.split(":", 1)[1] if prior.lower().startswith("ppo:") else prior
        if ":" in rest:
            raise ValueError(f"prior {prior!r} must be ppo:VARIANT or ppo:PATH")
        net, payload = load_policy(checkpoint_path(rest, num_players))
        want = config_key(variant, num_players, options)
        for k in ("variant", "num_players", "obs_dim", "action_meanings"):
            if payload.get(k) != want[k]:
                raise ValueError(f"prior {prior!r} was trained for {payload.get('variant')} "
                                 f"with {payload.get('num_players')} players; its {k} differs "
                                 f"from {want['variant']} with {num_players} players")
        self.net = net.eval()
        # a critic that reads privileged features is meaningless without them: roll out
        self.value_from_net = getattr(net, "value_trunk", None) is None

    def reset(self) -> None:
        self._recall = None

    def seed(self, seed: int | None) -> None:
        self._seed = 0 if seed is None else int(seed)

    def _rng(self, observation: np.ndarray, mask: np.ndarray) -> random.Random:
        h = hashlib.blake2b(digest_size=8)
        h.update(self._seed.to_bytes(16, "little", signed=True))
        h.update(np.asarray(observation, dtype=np.float32).tobytes())
        h.update(np.asarray(mask, dtype=np.int8).tobytes())
        if self._recall is not None:
            h.update(f"{self._recall.action},{self._recall.color}".encode())
        return random.Random(int.from_bytes(h.digest(), "little"))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError("action_mask has no legal action: the agent is not to act")
        obs = np.asarray(observation, dtype=np.float32)
        types = self.game.actions.types
        forced = [x for x in legal if types[x] in (UNO, CATCH)]
        if forced:  # dominant: a call or a catch costs nothing and never hurts
            legal = forced[:1]
        a = int(legal[0]) if len(legal) == 1 else self.search(obs, mask)
        colors = np.flatnonzero(obs[self._color_slice] > 0.5)
        self._recall = Recall(a, int(colors[0]) if len(colors) else WILD)
        return a

    @property
    def _color_slice(self) -> slice:
        from uno_env.determinize import observation_layout

        p = observation_layout(self.game).by_name["active_color"]
        return slice(p.start, p.stop)

    def search(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """Run the search from this decision; the root action visited most."""
        rng = self._rng(obs, mask)
        root = Node(-1)
        deadline = None if self.time_per_move is None else (
            time.perf_counter() + self.time_per_move)
        limit = self.simulations
        it = 0
        while (limit is None or it < limit) and (deadline is None
                                                 or time.perf_counter() < deadline):
            state = determinize(self.game, obs, mask, rng, seat=0, recall=self._recall)
            self._iterate(root, state, rng)
            it += 1
        self.last_iterations = it
        legal = np.flatnonzero(mask).tolist()
        return int(max(legal, key=lambda a: (root.children[a].visits
                                             if a in root.children else -1,
                                             root.children[a].wins if a in root.children
                                             else 0.0)))

    def _iterate(self, root: Node, state: State, rng: random.Random) -> None:
        node = root
        path = [root]
        rounds = len(state.round_results)
        value: list[float] | None = None
        while True:
            if state.phase == P_OVER or len(state.round_results) > rounds:
                value = round_result(state, rounds)
                break
            legal = _choices(state)
            p = state.current
            kids = node.children
            untried = [a for a in legal if a not in kids]
            if untried and self.puct:  # PUCT: every child, with its prior
                probs = self._priors(state, rng)
                for a in untried:
                    kids[a] = Node(p, float(probs[a]))
            elif untried:
                a = rng.choice(untried)
                child = kids[a] = Node(p)
                for b in legal:
                    if b in kids:
                        kids[b].avail += 1
                state.step(a)
                path.append(child)
                break
            for b in legal:
                kids[b].avail += 1
            a = self._select(node, legal)
            node = kids[a]
            state.step(a)
            path.append(node)
            if node.visits == 0:
                break
        if value is None:
            if state.phase == P_OVER or len(state.round_results) > rounds:
                value = round_result(state, rounds)
            elif self.net is not None and self.value_from_net:
                value = self._net_value(state)
            else:
                value = playout(state, rng)
        for nd in path:
            nd.visits += 1
            if nd.player >= 0:
                nd.wins += value[nd.player]

    def _select(self, node: Node, legal: list[int]) -> int:
        kids = node.children
        c = self.c
        if self.puct:
            total = math.sqrt(max(1, sum(kids[a].visits for a in legal)))
            first = 1.0 / self.game.num_players  # an unvisited child: an even share
            return max(legal, key=lambda a: (
                (kids[a].wins / kids[a].visits if kids[a].visits else first)
                + c * kids[a].prior * total / (1 + kids[a].visits)))
        return max(legal, key=lambda a: (
            kids[a].wins / kids[a].visits
            + c * math.sqrt(math.log(kids[a].avail) / kids[a].visits)))

    def _net_out(self, state: State) -> tuple[np.ndarray, float]:
        import torch

        from uno_env.determinize import observation_layout

        obs = observation_layout(self.game).build(state, state.current)
        m = np.zeros(self.game.num_actions, dtype=np.int8)
        m[state.legal] = 1
        with torch.no_grad():
            logits, v = self.net(torch.as_tensor(obs)[None], torch.as_tensor(m)[None])
            probs = torch.softmax(logits[0], dim=-1).numpy()
        return probs, float(v[0])

    def _priors(self, state: State, rng: random.Random) -> np.ndarray:
        """Each action's prior: the network's probabilities, or (``prior=rule``) 0.6 on the
        default policy's choice and the rest shared by the other legal actions."""
        if self.net is not None:
            return self._net_out(state)[0]
        probs = np.zeros(self.game.num_actions)
        legal = state.legal
        probs[legal] = 0.4 / max(1, len(legal) - 1)
        probs[rollout_action(state, rng)] = 0.6 if len(legal) > 1 else 1.0
        return probs

    def _net_value(self, state: State) -> list[float]:
        """The network's value for the seat to act (win/loss in [-1, 1]) as [0, 1] shares."""
        _, v = self._net_out(state)
        n, p = state.n, state.current
        mine = min(1.0, max(0.0, (v + 1) / 2))
        return [mine if s == p else (1 - mine) / (n - 1) for s in range(n)]
