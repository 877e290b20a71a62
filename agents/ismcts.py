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
visited most. With two players the samples also keep what the opponent's draws and a
challenge showed (:mod:`uno_env.inference`); ``draws=forced`` reads every draw as one made
with nothing playable, even where the rules let a player draw at will.

``search=pimc`` is flat determinized Monte Carlo instead: every legal action on every sample,
played out by the default policy; with a network ``prior`` the playouts follow the network and
the network's own choice stands unless the playouts clearly beat it
(:mod:`uno_env.agents.policy_pimc`, keys ``z`` and ``opponent``).

Decisions are reproducible and depend on the observation alone: the search's random stream is
seeded by the agent seed and a hash of (observation, mask, own previous decision), never by
anything hidden. With ``time_per_move`` the number of iterations depends on the machine.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from uno_env.agents.default_policy import ROLLOUT_STEPS, rollout_action, round_result
from uno_env.agents.ismcts_tree import PUCT_C, UCB_C, Node, choices, credit
from uno_env.agents.policy_pimc import PolicyPIMC
from uno_env.batch.rollout import Branches, Rollouts
from uno_env.cards import WILD
from uno_env.determinize import Recall, determinize, observation_layout
from uno_env.inference import DrawTracker, tracks
from uno_env.rules.codes import CATCH, P_OVER, UNO
from uno_env.rules.game import Game
from uno_env.rules.state import State

ROLLOUTS = 8  # batch-engine playouts per leaf, each with the draw pile reshuffled
LEAVES = 32  # leaves queued before the batch engine plays them out
# how the opponent's draws are read: as forced only where the rules force them ("rules"), or
# always ("forced": a model of opponents that draw only when they cannot play, as rule does)
DRAWS = ("rules", "forced")


def _check_mode(search: str, puct: bool, net: bool, c: float | None, leaf: str | None,
                rollouts: int | None, opponent: str | None, z: float | None) -> None:
    """Refuse a key the chosen search would not read (a key silently ignored is a bug)."""
    if search not in ("tree", "pimc"):
        raise ValueError(f"search must be 'tree' (ISMCTS) or 'pimc', got {search!r}")
    if search == "pimc" and puct and not net:
        raise ValueError("search='pimc' takes a network prior (prior=ppo:..., whose policy "
                         "then plays the playouts) or none; prior=rule steers the tree "
                         "search only")
    if (opponent is not None or z is not None) and not (search == "pimc" and net):
        raise ValueError("opponent and z set the network playouts of search=pimc with "
                         "prior=ppo:...; this agent has none")
    if search == "pimc" and (c is not None or leaf is not None):
        raise ValueError("c and leaf set the tree search (search=tree); pimc tries every "
                         "action on every sample and plays each to the end of the round")
    if rollouts is not None and search == "pimc" and net:
        raise ValueError("rollouts sets the default policy's playouts; the network's "
                         "(search=pimc with prior=ppo:...) play each sample once per action")


class ISMCTSAgent:
    """Search agent; see the module docstring. ``simulations`` or ``time_per_move`` (seconds)
    bounds each decision (both: whichever comes first)."""

    def __init__(self, variant: str = "classic", num_players: int = 2,
                 simulations: int | None = None, time_per_move: float | None = None,
                 prior: str | None = None, seed: int | None = None, c: float | None = None,
                 rollouts: int | None = None, infer: bool = True, leaf: str | None = None,
                 search: str = "tree", draws: str = "rules", opponent: str | None = None,
                 z: float | None = None, **options: Any) -> None:
        if simulations is None and time_per_move is None:
            simulations = 200
        if simulations is not None and (isinstance(simulations, bool) or int(simulations) < 1):
            raise ValueError(f"simulations must be a positive integer, got {simulations!r}")
        if time_per_move is not None and not float(time_per_move) > 0:
            raise ValueError(f"time_per_move must be a positive number of seconds, got "
                             f"{time_per_move!r}")
        if rollouts is not None and (isinstance(rollouts, bool) or int(rollouts) < 1):
            raise ValueError(f"rollouts must be a positive integer, got {rollouts!r}")
        self.game = Game(variant, num_players, **options)
        self.options = dict(options)
        self.rollouts = ROLLOUTS if rollouts is None else int(rollouts)
        self._rollouts: Rollouts | None = None
        self.simulations = None if simulations is None else int(simulations)
        self.time_per_move = None if time_per_move is None else float(time_per_move)
        self.prior_spec = prior
        self.net: Any = None
        self.value_from_net = False
        self.puct = bool(prior) and str(prior).lower() not in ("none", "")
        if self.puct and str(prior).lower() != "rule":
            self._load_prior(str(prior), variant, num_players, options)
        if leaf not in (None, "rollout", "value"):
            raise ValueError(f"leaf must be 'rollout' or 'value', got {leaf!r}")
        if leaf == "value" and not self.value_from_net:
            raise ValueError("leaf='value' needs a prior network whose critic reads the "
                             "observation (prior=ppo:classic); the others roll out")
        if leaf == "rollout":
            self.value_from_net = False
        self.c = float(c) if c is not None else (PUCT_C if self.puct else UCB_C)
        self._seed = 0 if seed is None else int(seed)
        self._recall: Recall | None = None
        self.last_iterations = 0
        _check_mode(search, self.puct, self.net is not None, c, leaf, rollouts, opponent, z)
        self.mode = search
        self._branches: Branches | None = None
        self._policy: PolicyPIMC | None = None
        # compile or load the kernels now, not in a timed move
        if search == "pimc" and self.net is not None:
            given = {"opponent": opponent, "z": z}  # unset: PolicyPIMC's defaults
            self._policy = PolicyPIMC(self.game, options, self.net,
                                      **{k: v for k, v in given.items() if v is not None})
        elif search == "pimc":
            self._branches = Branches(self.game.variant.name, num_players,
                                      copies=self.rollouts, cap=ROLLOUT_STEPS, **options)
        elif not self.value_from_net:
            self._leaves()
        if draws not in DRAWS:
            raise ValueError(f"draws must be one of {', '.join(DRAWS)}, got {draws!r}")
        self._draws = (DrawTracker(self.game, observation_layout(self.game),
                                   assume_forced=draws == "forced")
                       if infer and tracks(self.game) else None)

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
        try:  # the shipped agent of this table, else the variant's first (a prior only)
            path = checkpoint_path(rest, num_players, options)
        except ValueError:
            path = checkpoint_path(rest, num_players)
        net, payload = load_policy(path)
        want = config_key(variant, num_players, options)
        for k in ("variant", "num_players", "action_meanings"):  # pieces: input_index
            if payload.get(k) != want[k]:
                raise ValueError(f"prior {prior!r} was trained for {payload.get('variant')} "
                                 f"with {payload.get('num_players')} players; its {k} differs "
                                 f"from {want['variant']} with {num_players} players")
        self.net = net.eval()
        # a critic that reads privileged features is meaningless without them: roll out;
        # one that reads the observation estimates leaves (unless leaf="rollout")
        self.value_from_net = getattr(net, "value_trunk", None) is None

    def reset(self) -> None:
        self._recall = None
        if self._draws is not None:
            self._draws.reset()

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
        if self._draws is not None:
            self._draws.observe(obs)
        types = self.game.actions.types
        forced = [x for x in legal if types[x] in (UNO, CATCH)]
        if forced:  # dominant: a call or a catch costs nothing and never hurts
            legal = forced[:1]
        a = int(legal[0]) if len(legal) == 1 else (
            self.pimc(obs, mask) if self.mode == "pimc" else self.search(obs, mask))
        colors = np.flatnonzero(obs[self._color_slice] > 0.5)
        self._recall = Recall(a, int(colors[0]) if len(colors) else WILD)
        if self._draws is not None:
            self._draws.acted(a)
        return a

    @property
    def _color_slice(self) -> slice:
        from uno_env.determinize import observation_layout

        p = observation_layout(self.game).by_name["active_color"]
        return slice(p.start, p.stop)

    def search(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """Run the search from this decision; the root action visited most. Leaves wait in
        the batch engine's queue and are played out together (``LEAVES`` at a time); until
        then their path counts the visit without its result (a virtual loss), so that the
        iterations in between spread over other actions."""
        rng = self._rng(obs, mask)
        root = Node(-1)
        pending: list[list[Node]] = []
        for state in self._samples(obs, mask, rng):
            path, value = self._descend(root, state, rng)
            for nd in path:
                nd.visits += 1
            if value is not None:
                credit(path, value)
            else:
                self._leaves().add(state)
                pending.append(path)
                if self._leaves().full:
                    self._flush(pending, rng)
        self._flush(pending, rng)
        legal = np.flatnonzero(mask).tolist()
        return int(max(legal, key=lambda a: (root.children[a].visits
                                             if a in root.children else -1,
                                             root.children[a].wins if a in root.children
                                             else 0.0)))

    def pimc(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """Flat search: every legal action on every determinization, ``rollouts`` playouts
        each with common random numbers (:class:`~uno_env.batch.rollout.Branches`); the
        action with the best mean share."""
        legal = np.flatnonzero(mask).tolist()
        rng = self._rng(obs, mask)
        if self._policy is not None:
            deadline = None if self.time_per_move is None else (
                time.perf_counter() + self.time_per_move)
            return self._policy.decide(obs, mask, legal, self._samples(obs, mask, rng),
                                       iter(lambda: rng.getrandbits(64), -1), deadline)
        b = self._branches
        assert b is not None
        b.start(legal, 0)
        for state in self._samples(obs, mask, rng):
            b.add(state, np.array([rng.getrandbits(64) for _ in range(b.copies)], np.uint64))
        return int(legal[int(np.argmax(b.values()))])

    def _samples(self, obs: np.ndarray, mask: np.ndarray,
                 rng: random.Random) -> Iterator[State]:
        """Determinizations until the budget (simulations, seconds) is spent; the count goes
        to ``last_iterations``."""
        deadline = None if self.time_per_move is None else (
            time.perf_counter() + self.time_per_move)
        self.last_iterations = 0
        while (self.simulations is None or self.last_iterations < self.simulations) and (
                deadline is None or time.perf_counter() < deadline):
            self.last_iterations += 1
            yield determinize(self.game, obs, mask, rng, seat=0, recall=self._recall,
                              **self._known())

    def _known(self) -> dict[str, Any]:
        """What the opponent's draws and a challenge showed (determinize's keywords)."""
        d = self._draws
        return {} if d is None else {"avoid": d.avoid, "must": d.must}

    def _leaves(self) -> Rollouts:
        if self._rollouts is None:
            self._rollouts = Rollouts(self.game.variant.name, self.game.num_players, LEAVES,
                                      self.rollouts, ROLLOUT_STEPS, **self.options)
        return self._rollouts

    def _flush(self, pending: list[list[Node]], rng: random.Random) -> None:
        """Play out the queued leaves on the batch engine and credit their paths."""
        if pending:
            for path, value in zip(pending, self._leaves().run(rng.getrandbits(64)),
                                   strict=True):
                credit(path, value.tolist())
            pending.clear()

    def _descend(self, root: Node, state: State,
                 rng: random.Random) -> tuple[list[Node], list[float] | None]:
        """One iteration's walk down the tree in ``state`` (stepped along), adding one node:
        the path, and its value where it is known without a rollout (the round ended, or
        the network's value estimates the leaf); ``None`` leaves ``state`` to roll out."""
        node = root
        path = [root]
        rounds = len(state.round_results)
        while True:
            if state.phase == P_OVER or len(state.round_results) > rounds:
                return path, round_result(state, rounds)
            legal = choices(state)
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
        if state.phase == P_OVER or len(state.round_results) > rounds:
            return path, round_result(state, rounds)
        if self.net is not None and self.value_from_net:
            return path, self._net_value(state)
        return path, None

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
