"""The network-playout PIMC of :mod:`uno_env.agents.policy_pimc` over many positions at once.

:class:`~uno_env.agents.policy_pimc.PolicyPIMC` searches one decision: its samples x legal
actions fill a batch of playouts and the network plays them out, one forward pass per tick.
Labels for expert iteration (docs/expert-iteration.md) need thousands of searched decisions,
and one decision fills a batch poorly and pays the per-tick cost of Python and of a forward
pass alone. :class:`BatchPIMC` puts the branches of every sample of every position given into
the same rows, so each tick is one forward pass over every live playout of every position.

It is the same search position by position: each branch is a row that depends only on its
sample, seed and action (common random numbers within a sample, as in ``PolicyPIMC``), the
move is :func:`~uno_env.agents.policy_pimc.best_action` of the same playouts, and
``tests/test_pimc_batch.py`` checks that q, visits and the move equal ``PolicyPIMC``'s on the
same samples and seeds. Where the samples come from is :func:`draw_samples` alone: the
compiled :class:`~uno_env.batch.determinize.Determinizer`, its rows copied straight into the
playout rows (no Python ``State`` per sample), or the Python
:func:`~uno_env.determinize.determinize` where the compiled one cannot draw (see there);
both give the same samples and seeds from the same generator.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple, overload

import numpy as np

from uno_env.agents.policy_pimc import CAP, OPPONENTS, best_action, greedy_policy
from uno_env.batch.convert import from_state
from uno_env.batch.determinize import Determinizer, generators, load_generator
from uno_env.batch.layout import Batch
from uno_env.batch.netplay import Policy, PolicyBranches
from uno_env.batch.rollout import branch
from uno_env.cards import WILD
from uno_env.determinize import Recall, determinize, observation_layout
from uno_env.inference import DrawTracker, tracks
from uno_env.rules.codes import CATCH, UNO
from uno_env.rules.game import Game
from uno_env.rules.state import State

ROWS = 16384  # playouts side by side, across positions (PolicyPIMC: 1024 for one position)


def draw_samples(game: Game, obs: np.ndarray, mask: np.ndarray, rng: random.Random,
                 count: int, recall: Recall | None = None,
                 known: dict[str, Any] | None = None,
                 compiled: bool = True) -> tuple[Sequence[State], list[int]]:
    """``count`` determinizations of the searching seat's position (seat 0 of each) and the
    seed of each sample's playouts, drawn from ``rng`` in the order ``ISMCTSAgent`` draws
    them (a sample, then its seed), ``rng`` left where that leaves it. The one place where
    samples are made.

    With ``compiled`` (the default) and a plain ``random.Random``, the compiled
    :class:`~uno_env.batch.determinize.Determinizer` draws them into batch rows
    (:class:`Samples`, which :class:`BatchPIMC` copies into its playout rows and which gives
    Python ``State``s when read); otherwise, and for a ``random.Random`` subclass (its
    draws may not be the MT19937 words the kernel replays), the Python
    :func:`~uno_env.determinize.determinize` draws a list of ``State``s. Both give the same
    samples and seeds from the same generator state (``tests/test_pimc_batch_samples.py``).
    A variant the batch engine has no kernels for is refused by the compiled path with the
    batch engine's error, as :class:`BatchPIMC` itself refuses it."""
    if compiled and type(rng) is random.Random:
        return _draw_compiled(game, obs, mask, rng, count, recall, known or {})
    states: list[State] = []
    seeds: list[int] = []
    for _ in range(count):
        states.append(determinize(game, obs, mask, rng, seat=0, recall=recall,
                                  **(known or {})))
        seeds.append(rng.getrandbits(64))
    return states, seeds


class Samples(Sequence[State]):
    """Samples drawn by the compiled determinizer: row ``j`` of ``batch`` is sample ``j``.
    Read as a sequence it gives Python ``State``s (``Determinizer.to_state``), e.g. for
    ``PolicyPIMC.decide``; :class:`BatchPIMC` copies the rows themselves."""

    def __init__(self, det: Determinizer, batch: Batch, count: int) -> None:
        self.det, self.batch, self._n = det, batch, count

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, j: int) -> State: ...
    @overload
    def __getitem__(self, j: slice) -> list[State]: ...
    def __getitem__(self, j: int | slice) -> State | list[State]:
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(self._n))]
        if not -self._n <= j < self._n:
            raise IndexError(f"sample {j} of {self._n}")
        return self.det.to_state(self.batch, j % self._n)

    def __iter__(self) -> Iterator[State]:
        return (self[j] for j in range(self._n))


@cache
def _determinizer(variant: str, players: int, options: tuple[tuple[str, Any], ...]
                  ) -> Determinizer:
    return Determinizer(variant, players, **dict(options))


def _draw_compiled(game: Game, obs: np.ndarray, mask: np.ndarray, rng: random.Random,
                   count: int, recall: Recall | None, known: dict[str, Any]
                   ) -> tuple[Samples, list[int]]:
    det = _determinizer(game.variant.name, game.num_players,
                        tuple(sorted(game.options.items())))
    batch = det.allocate(count)
    mt, mti = generators([rng])
    seeds = np.zeros(count, np.uint64)
    det.fill(batch, np.arange(count), obs, mask, mt, mti, of=np.zeros(count, np.int64),
             gen=np.zeros(count, np.int64), recall=[recall], avoid=[known.get("avoid", ())],
             must=[known.get("must")], seeds=seeds)
    load_generator(rng, mt, mti, 0)
    return Samples(det, batch, count), [int(x) for x in seeds]


def search_actions(game: Game, mask: np.ndarray) -> list[int]:
    """The actions a search compares at this decision (as ``ISMCTSAgent.act``): a call or a
    catch alone when one is legal (it costs nothing), else every legal action. One action
    means there is nothing to search."""
    legal = np.flatnonzero(mask).tolist()
    if not legal:
        raise ValueError("the mask has no legal action: the seat is not to act")
    types = game.actions.types
    forced = [a for a in legal if types[a] in (UNO, CATCH)]
    return forced[:1] if forced else legal


class SeatMemory:
    """What a searching seat remembers within one game, as ``ISMCTSAgent`` does: its previous
    decision (:class:`~uno_env.determinize.Recall`) and, with two players, what the opponent's
    draws showed (:class:`~uno_env.inference.DrawTracker`)."""

    def __init__(self, game: Game) -> None:
        self.layout = observation_layout(game)
        p = self.layout.by_name["active_color"]
        self._color = slice(p.start, p.stop)
        self.draws = DrawTracker(game, self.layout) if tracks(game) else None
        self.recall: Recall | None = None

    def reset(self) -> None:
        self.recall = None
        if self.draws is not None:
            self.draws.reset()

    def observe(self, obs: np.ndarray) -> None:
        """Before deciding: read the new observation."""
        if self.draws is not None:
            self.draws.observe(obs)

    def known(self) -> dict[str, Any]:
        d = self.draws
        return {} if d is None else {"avoid": d.avoid, "must": d.must}

    def acted(self, obs: np.ndarray, action: int) -> None:
        """After deciding ``action`` at ``obs``."""
        colors = np.flatnonzero(obs[self._color] > 0.5)
        self.recall = Recall(int(action), int(colors[0]) if len(colors) else WILD)
        if self.draws is not None:
            self.draws.acted(int(action))


@dataclass
class Position:
    """One decision to search: the searching seat's observation and mask, the actions to
    compare (``legal``), and its samples with their playout seeds (:func:`draw_samples`)."""

    obs: np.ndarray
    mask: np.ndarray
    legal: list[int]
    states: Sequence[State]
    seeds: Sequence[int]


class SearchResult(NamedTuple):
    """One position's search: ``move`` to play, per action (all ``A`` of the game) ``q`` the
    mean playout share of the searching seat (NaN where not searched) and ``visits`` the
    playouts; ``first`` the network's choice among the compared actions, ``wins`` the
    shares [samples, legal]."""

    move: int
    q: np.ndarray
    visits: np.ndarray
    first: int
    wins: np.ndarray


STAGE = 256  # spare rows holding compiled samples, copied in by the slice


class _Rows(PolicyBranches):
    """:class:`PolicyBranches` whose rows hold branches of many positions: ``rows``
    playout rows, then :data:`STAGE` spare rows that samples are branched from."""

    def __init__(self, variant: str, num_players: int, policy: Policy, rows: int,
                 **kw: Any) -> None:
        super().__init__(variant, num_players, policy, rows=rows + STAGE - 1, **kw)
        self.limit = rows
        self._staged: tuple[Batch | None, int, int] = (None, 0, 0)  # batch, its rows lo-hi

    def queue(self, state: State | tuple[Batch, int], seed: int, actions: np.ndarray) -> int:
        """Branch ``state`` (a Python ``State`` or row ``j`` of a batch of this table,
        ``(batch, j)``) on ``actions`` at the next free rows; their first row."""
        lo = self._lo
        if isinstance(state, State):
            src = self.limit
            from_state(self._s, self._t, state, src)
            self._staged = (None, 0, 0)
        else:
            batch, j = state
            held, first, end = self._staged
            if held is not batch or not first <= j < end:  # the next STAGE rows, at once
                first, end = j, min(j + STAGE, len(batch.S))
                for dst, arr in zip(self._s, batch, strict=True):
                    dst[self.limit:self.limit + end - first] = arr[first:end]
                self._staged = (batch, first, end)
            src = self.limit + j - first
        self._seed[0] = seed
        branch(self._s, self._t, src, lo, actions, 1, self._seed, self._rng, self._starts)
        self._lo += len(actions)
        return lo

    def room_for(self, n: int) -> bool:
        return self._lo + n <= self.limit

    def play(self) -> np.ndarray:
        """Play the queued rows out; seat 0's share per row (a new array)."""
        k, self._lo = self._lo, 0
        self.steer(k)
        return self._out[:k, 0].copy()


class BatchPIMC:
    """``PolicyPIMC``'s search (same ``opponent`` and ``z``) for many positions per call."""

    def __init__(self, game: Game, options: dict[str, Any], net: Any, opponent: str = "prior",
                 z: float = 1.5, rows: int = ROWS) -> None:
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {', '.join(OPPONENTS)}, got "
                             f"{opponent!r}")
        if not float(z) >= 0:
            raise ValueError(f"z must be a number >= 0 (standard errors), got {z!r}")
        if isinstance(rows, bool) or int(rows) < 1:
            raise ValueError(f"rows must be a positive integer, got {rows!r}")
        self.game, self.z, self.net, self.opponent = game, float(z), net, opponent
        self.num_actions = game.num_actions
        self.choose = greedy_policy(net)
        n = game.num_players
        self.rows = _Rows(game.variant.name, n, self.choose, rows=int(rows), cap=CAP,
                          default_seats=range(1, n) if opponent == "rule" else (), **options)

    def policy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's probabilities of each action [N, A] (0 where illegal)."""
        import torch

        with torch.no_grad():
            logits, _ = self.net(torch.from_numpy(np.asarray(obs, np.float32)),
                                 torch.from_numpy(np.asarray(mask, np.uint8)))
            probs: np.ndarray = torch.softmax(logits, -1).numpy()
        return np.where(np.asarray(mask) > 0, probs, 0.0).astype(np.float32)

    def search(self, positions: Sequence[Position]) -> list[SearchResult]:
        """Search every position; one result per position, in order."""
        for i, p in enumerate(positions):
            _check(i, p, self.num_actions, self.rows.limit)
        wins = [np.zeros((len(p.states), len(p.legal))) for p in positions]
        queued: list[tuple[int, int, int]] = []  # position, sample, first row
        for i, p in enumerate(positions):
            acts = np.asarray(p.legal, np.int64)
            rows = self._rows_of(p.states)
            for j, seed in enumerate(p.seeds):
                state = p.states[j] if rows is None else (rows, j)
                if self.rows.room_for(len(acts)):
                    queued.append((i, j, self.rows.queue(state, seed, acts)))
                    continue
                self._play(queued, wins)
                queued = [(i, j, self.rows.queue(state, seed, acts))]
        self._play(queued, wins)
        out: list[SearchResult] = []
        firsts = self.choose(np.stack([np.asarray(p.obs, np.float32) for p in positions]),
                             np.concatenate([_only(p) for p in positions])).tolist() \
            if positions else []
        for p, w, first in zip(positions, wins, firsts, strict=True):
            q = np.full(self.num_actions, np.nan, np.float32)
            visits = np.zeros(self.num_actions, np.int32)
            q[p.legal] = w.mean(axis=0)
            visits[p.legal] = len(w)
            legal = [int(a) for a in p.legal]
            move = legal[best_action(w, legal.index(first), self.z)]
            out.append(SearchResult(int(move), q, visits, first, w))
        return out

    def _rows_of(self, states: Sequence[State]) -> Batch | None:
        """The batch whose rows are the samples (compiled :class:`Samples` of this table),
        copied row to row; ``None``: load each ``State`` (Python samples)."""
        if not isinstance(states, Samples):
            return None
        g, mine = states.det.game, self.game
        if (g.variant.name, g.num_players, g.options) != (
                mine.variant.name, mine.num_players, mine.options):
            raise ValueError("the samples were drawn for another table (variant, players "
                             "or rule options differ from the search's)")
        return states.batch

    def _play(self, queued: list[tuple[int, int, int]], wins: list[np.ndarray]) -> None:
        if not queued:
            return
        shares = self.rows.play()
        for i, j, lo in queued:
            w = wins[i]
            w[j] = shares[lo:lo + w.shape[1]]


def _only(p: Position) -> np.ndarray:
    """``[1, A]``: the mask of ``p.legal`` (the network's choice is among the compared)."""
    m = np.zeros((1, len(p.mask)), np.uint8)
    m[0, p.legal] = 1
    return m


def _check(i: int, p: Position, num_actions: int, rows: int) -> None:
    """A clear error for a position the search cannot take."""
    mask = np.asarray(p.mask)
    if mask.shape != (num_actions,):
        raise ValueError(f"position {i}: the mask must have {num_actions} entries, got shape "
                         f"{mask.shape}")
    if len(p.legal) == 0 or len(set(p.legal)) != len(p.legal) or any(
            not 0 <= a < num_actions or not mask[a] for a in p.legal):
        raise ValueError(f"position {i}: legal must be distinct actions that its mask "
                         f"allows, got {p.legal!r}")
    if len(p.legal) > rows:
        raise ValueError(f"position {i}: {len(p.legal)} actions exceed the {rows} rows")
    if not len(p.states) or len(p.states) != len(p.seeds):
        raise ValueError(f"position {i}: it needs at least one sample and one seed per sample, "
                         f"got {len(p.states)} samples and {len(p.seeds)} seeds")
