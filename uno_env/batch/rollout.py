"""Rollouts for search agents: games of a batch played to the end of their round by a fast
default policy, each in its own loop (no lockstep: a short game does not wait for a long one).

The policy is the search agent's default policy
(``uno_env.agents.default_policy.rollout_action``) at kernel level: call UNO and catch when
offered; play rather than draw, preferring the card whose colour the hand holds most,
draw/skip effects (more so when the next player is close to going out) and coloured cards
over wilds; name the colour held most; otherwise accept or pass. Its random tie-breaks come
from one generator per game, so a batch's results do not depend on the order games are
played in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch.borrow import as_ref, borrow, borrow_batch, borrow_tables, unsigned
from uno_env.batch.cache import njit
from uno_env.batch.convert import from_state
from uno_env.batch.layout import Batch
from uno_env.batch.legal import settle
from uno_env.batch.play import apply
from uno_env.batch.rng import next_u64
from uno_env.batch.tables import Tables
from uno_env.cards import NUM_COLORS
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
from uno_env.rules.rng import SplitMix64
from uno_env.rules.state import State

# what the policy makes of an action (row K_KIND of the action table)
K_OTHER, K_CALL, K_PLAY, K_PLAY_TWO, K_COLOR, K_YIELD, K_DRAW = range(7)
_KIND = {UNO: K_CALL, CATCH: K_CALL, PLAY: K_PLAY, PLAY_TWO: K_PLAY_TWO, PLAY_FLEX: K_PLAY,
         COLOR: K_COLOR, ACCEPT: K_YIELD, PASS: K_YIELD, DRAW: K_DRAW}
# effects that hurt the next player: the policy likes them more when that player is near out
ATTACK = frozenset({E_DRAW, E_WILD_DRAW, E_WDC, E_SKIP, E_SKIP_EVERYONE, E_ALL_DRAW,
                    E_TARGET_DRAW})
TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53
S11 = np.uint64(11)


def policy_tables(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """The default policy's view of a game: per action its kind and its face (a play) or
    colour (a colour choice); per face its colour (4: wild) and whether it attacks the next
    player (a draw or skip effect; a Reverse between two players)."""
    A = game.actions
    act = np.zeros((2, game.num_actions), np.int16)
    for a, ty in enumerate(A.types):
        act[0, a] = _KIND.get(ty, K_OTHER)
        act[1, a] = a if ty == PLAY else A.args[a]
    face = np.zeros((2, game.num_faces), np.int16)
    for f in range(game.num_faces):
        e = game.face_effect[f]
        face[0, f] = game.face_color[f]
        face[1, f] = e in ATTACK or (e == E_REVERSE and game.num_players == 2)
    return act, face


@njit(cache=True, inline="always", error_model="numpy")
def _unit(rng: np.ndarray, i: int) -> float:
    """A uniform float in [0, 1) from generator ``rng[i]``."""
    return float(next_u64(rng, i) >> S11) * TO_UNIT


@njit(cache=True, error_model="numpy")
def policy_action(s: Batch, t: Tables, i: int, act: np.ndarray, face: np.ndarray,
                  rng: np.ndarray, held: np.ndarray) -> int:
    """The default policy's action in game ``i`` (see the module docstring); ``held`` is
    scratch for the cards held per colour."""
    p = s.S[i, L.CUR]
    held[:] = 0
    for f in range(t.nf):
        held[face[0, f]] += s.counts[i, p, f]
    nxt = (p + s.S[i, L.DIR]) % t.n
    urgent = 20.0 if s.hand_len[i, nxt] <= 2 else 8.0
    best, best_score = -1, -1e18
    color, color_score = -1, -1e18
    yield_a, first, others = -1, -1, 0
    for a in range(t.na):
        if not s.legal[i, a]:
            continue
        if first < 0:
            first = a
        k = act[0, a]
        if k == K_CALL:
            return a
        if k in (K_PLAY, K_PLAY_TWO):
            f = act[1, a]
            col = face[0, f]
            score = 10.0 * held[col] if col < NUM_COLORS else -60.0
            if face[1, f]:
                score += urgent
            if k == K_PLAY_TWO:
                score += 10.0
            score += _unit(rng, i)
            if score > best_score:
                best, best_score = a, score
        elif k == K_COLOR:
            score = held[act[1, a]] + 0.5 * _unit(rng, i)
            if score > color_score:
                color, color_score = a, score
        elif k == K_YIELD:
            if yield_a < 0:
                yield_a = a
        elif k != K_DRAW:
            others += 1
    if best >= 0:
        return best
    if color >= 0:
        return color
    if yield_a >= 0:
        return yield_a
    if others:  # a uniform choice among the legal actions that are not a draw
        pick = int(_unit(rng, i) * others)
        for a in range(t.na):
            if s.legal[i, a] and act[0, a] != K_DRAW:
                if pick == 0:
                    return a
                pick -= 1
    return first


@njit(cache=True, error_model="numpy")
def round_share(s: Batch, t: Tables, i: int, start: int, out: np.ndarray) -> None:
    """Each seat's share of game ``i``'s round: 1 to its winner, even on a blocked tie; a
    round cut short by the cap is shared by fewest cards (in proportion to 1/(1+cards))."""
    n = t.n
    if s.S[i, L.NROUNDS] > start:
        w = s.rr_winner[i, start % t.rounds_kept]
        for q in range(n):
            out[i, q] = (1.0 if q == w else 0.0) if w >= 0 else 1.0 / n
        return
    total = 0.0
    for q in range(n):
        total += 1.0 / (1.0 + s.hand_len[i, q])
    for q in range(n):
        out[i, q] = 1.0 / (1.0 + s.hand_len[i, q]) / total


@njit(cache=True, error_model="numpy")
def rollout_kernel(s: Batch, t: Tables, count: int, act: np.ndarray, face: np.ndarray,
                   rng: np.ndarray, cap: int, starts: np.ndarray, out: np.ndarray) -> int:
    """Play games ``0..count-1`` on with the default policy until the round they were in
    when ``starts[i]`` rounds had been played ends (or for ``cap`` decisions); ``out[i]``
    gets each seat's share. Returns the decisions played."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    act, face, out, starts = borrow(act), borrow(face), borrow(out), borrow(starts)
    held = np.zeros(NUM_COLORS + 1, np.int64)  # the colours, then wild
    steps = 0
    for j in range(count):
        i = unsigned(j)
        start = starts[i]
        k = 0
        while s.S[i, L.PHASE] != P_OVER and s.S[i, L.NROUNDS] == start and k < cap:
            apply(s, t, i, policy_action(s, t, i, act, face, rng, held))
            settle(s, t, i)
            k += 1
        steps += k
        round_share(s, t, i, start, out)
    return steps


@njit(cache=True, error_model="numpy")
def _copy_row(s: Batch, src: int, j: int) -> None:
    s.S[j] = s.S[src]
    s.rng[j] = s.rng[src]
    s.seeder[j] = s.seeder[src]
    s.pile[j] = s.pile[src]
    s.disc[j] = s.disc[src]
    s.disc_counts[j] = s.disc_counts[src]
    s.loc[j] = s.loc[src]
    s.acq[j] = s.acq[src]
    s.known[j] = s.known[src]
    s.counts[j] = s.counts[src]
    s.hid_counts[j] = s.hid_counts[src]
    s.hid_unseen[j] = s.hid_unseen[src]
    s.hand_len[j] = s.hand_len[src]
    s.uno_called[j] = s.uno_called[src]
    s.power[j] = s.power[src]
    s.revealed[j] = s.revealed[src]
    s.revealed_from[j] = s.revealed_from[src]
    s.scores[j] = s.scores[src]
    s.declined[j] = s.declined[src]
    s.drawn_since[j] = s.drawn_since[src]
    s.rr_winner[j] = s.rr_winner[src]
    s.rr_blocked[j] = s.rr_blocked[src]
    s.rr_points[j] = s.rr_points[src]
    s.rr_values[j] = s.rr_values[src]
    s.rew[j] = s.rew[src]
    s.cum[j] = s.cum[src]
    s.legal[j] = s.legal[src]


@njit(cache=True, error_model="numpy")
def _reshuffle(s: Batch, j: int, rng: np.ndarray) -> None:
    """Shuffle game ``j``'s draw pile below its top card (the last) with generator ``rng[j]``."""
    m = s.S[j, L.PILE_LEN] - 1
    for x in range(m - 1, 0, -1):
        y = int(_unit(rng, j) * (x + 1))
        c = s.pile[j, x]
        s.pile[j, x] = s.pile[j, y]
        s.pile[j, y] = c


@njit(cache=True, error_model="numpy")
def replicate(s: Batch, src: int, lo: int, hi: int, rng: np.ndarray) -> None:
    """Copy game ``src`` into games ``lo..hi-1``, each copy's draw pile shuffled below its
    top card (the one card of the pile a seat may see: Flip shows its back) and its engine
    generator reseeded, so the copies are further samples of the same hidden hands."""
    for j in range(lo, hi):
        _copy_row(s, src, j)
        s.rng[j] = next_u64(rng, j)
        _reshuffle(s, j, rng)


@njit(cache=True, error_model="numpy")
def branch(s: Batch, t: Tables, src: int, lo: int, actions: np.ndarray, copies: int,
           seeds: np.ndarray, rng: np.ndarray, starts: np.ndarray) -> None:
    """Rows ``lo + r * A + k`` (``A`` actions, ``r < copies``): game ``src`` with action
    ``actions[k]`` taken, its draw pile shuffled below the top by ``seeds[r]`` (copy 0 keeps
    the sampled order) and its generators started from it. The copies of one ``r`` differ in
    the action alone (common random numbers), so their results compare the actions."""
    n_act = actions.shape[0]
    for r in range(copies):
        for k in range(n_act):
            j = lo + r * n_act + k
            _copy_row(s, src, j)
            rng[j] = seeds[r]
            if r:
                _reshuffle(s, j, rng)
                s.rng[j] = next_u64(rng, j)
            starts[j] = s.S[j, L.NROUNDS]
            apply(s, t, j, actions[k])
            settle(s, t, j)


class Playouts:
    """A batch of ``games`` rows for playouts with their kernel inputs (both searches')."""

    def __init__(self, variant: str, num_players: int, games: int, cap: int,
                 options: dict[str, Any]) -> None:
        from uno_env.batch.vector import VectorEnv

        v = VectorEnv(variant, num_players, games, observations=False, autoreset=False,
                      **options)
        v.reset(seed=0)
        self._s, self._t, self.n, self.cap = v._s, v._t, num_players, int(cap)
        self._act, self._face = policy_tables(v._game)
        self._out = np.zeros((games, num_players))
        self._rng = np.zeros(games, np.uint64)
        self._starts = np.zeros(games, np.int64)
        self.decisions = 0

    def _play(self, games: int) -> None:
        """Play rows ``0..games-1`` out from the rounds in ``_starts``."""
        self.decisions += rollout_kernel(self._s, self._t, games, self._act, self._face,
                                         self._rng, self.cap, self._starts, self._out)


class Rollouts(Playouts):
    """Leaf evaluation for a search agent on the batch engine: load up to ``leaves`` states
    (Python engine :class:`State`), play each out ``per_leaf`` times (its draw pile
    reshuffled below the top for every copy), and get each seat's mean share per state."""

    def __init__(self, variant: str, num_players: int, leaves: int = 32, per_leaf: int = 8,
                 cap: int = 300, **options: Any) -> None:
        if isinstance(per_leaf, bool) or int(per_leaf) < 1:
            raise ValueError(f"rollouts per leaf must be a positive integer, got {per_leaf!r}")
        self.leaves, self.per_leaf = int(leaves), int(per_leaf)
        super().__init__(variant, num_players, self.leaves * self.per_leaf, cap, options)
        self.count = 0
        self._play(0)  # compile (or load) the kernels now, not inside a timed decision
        replicate(self._s, 0, 0, 0, self._rng)

    @property
    def full(self) -> bool:
        return self.count == self.leaves

    def add(self, state: State) -> None:
        """Queue ``state`` (not changed) for the next :meth:`run`."""
        if self.full:
            raise RuntimeError(f"{self.leaves} states are queued already; run() them first")
        from_state(self._s, self._t, state, self.count * self.per_leaf)
        self.count += 1

    def run(self, seed: int) -> np.ndarray:
        """Play out the queued states; ``[count, num_players]`` mean shares (a new array),
        and the queue is emptied. ``seed`` seeds every copy's generator."""
        k, r = self.count, self.per_leaf
        gen = SplitMix64(seed)
        self._rng[:k * r] = [gen.next_u64() for _ in range(k * r)]
        for q in range(k):
            replicate(self._s, q * r, q * r + 1, q * r + r, self._rng)
        self._starts[:k * r] = self._s.S[:k * r, L.NROUNDS]
        self._play(k * r)
        self.count = 0
        shares: np.ndarray = self._out[:k * r].reshape(k, r, self.n).mean(axis=1)
        return shares


class Branches(Playouts):
    """Root evaluation by common random numbers (PIMC) on the batch engine: each sampled
    state is copied ``copies`` times per candidate action, the copies of one draw sharing
    their reshuffled pile and generators across the actions, and played out; the mean share
    of one seat after each action. Sharing the chance events makes the comparison of two
    actions far less noisy than independent rollouts would."""

    def __init__(self, variant: str, num_players: int, rows: int = 1024, copies: int = 4,
                 cap: int = 300, **options: Any) -> None:
        if isinstance(copies, bool) or int(copies) < 1:
            raise ValueError(f"rollouts per action must be a positive integer, got {copies!r}")
        self.rows, self.copies = int(rows), int(copies)
        super().__init__(variant, num_players, self.rows + 1, cap, options)  # + scratch row
        self.start([0], 0)
        self._flush()  # compile (or load) the kernels now, not inside a timed decision
        branch(self._s, self._t, self.rows, 0, self._actions, 0, self._rng, self._rng,
               self._starts)

    def start(self, actions: list[int], seat: int) -> None:
        """A new decision: compare ``actions`` for ``seat``."""
        self._actions = np.asarray(actions, dtype=np.int64)
        self._seat = seat
        self._total = np.zeros(len(actions))
        self._lo = 0
        self.samples = 0  # playouts per action so far

    def add(self, state: State, seeds: np.ndarray) -> None:
        """Branch ``state`` (not changed) on every action, ``copies`` times with the
        generator states ``seeds`` (``copies`` uint64 values); played out when full."""
        per = self.copies * len(self._actions)
        if per > self.rows:
            raise ValueError(f"{len(self._actions)} actions x {self.copies} copies exceed "
                             f"the {self.rows} rows of this batch")
        if self._lo + per > self.rows:
            self._flush()
        from_state(self._s, self._t, state, self.rows)
        branch(self._s, self._t, self.rows, self._lo, self._actions, self.copies, seeds,
               self._rng, self._starts)
        self._lo += per

    def _flush(self) -> None:
        lo = self._lo
        self._play(lo)
        res = self._out[:lo, self._seat].reshape(-1, len(self._actions))
        self._total += res.sum(axis=0)
        self.samples += res.shape[0]
        self._lo = 0

    def values(self) -> np.ndarray:
        """Each action's mean share so far (after playing out what is queued)."""
        self._flush()
        means: np.ndarray = self._total / max(1, self.samples)
        return means
