"""Determinization on the batch engine: ``uno_env.determinize.determinize`` compiled, writing
each sample straight into a row of a ``Batch`` (``uno_env.batch.layout``).

A batched search samples many positions (or many samples of one position) at once: a
:class:`Determinizer` takes each position's observation and action mask (what the seat to
act was given, as ``determinize`` does), plus its ``recall``, ``avoid`` and ``must``, and
one CPython ``random.Random`` state per row (MT19937 words, :func:`generators`), and fills
the rows. Row ``i`` equals ``convert.from_state(s, t, determinize(game, obs, mask, rng,
...), i)`` for the same generator state, and the generator ends where ``determinize`` leaves
it (``tests/test_batch_determinize.py`` checks both, field by field, over every variant):
same samples from the same seeds, so a search moves from the Python determinization to
this one without changing its results. See ``det_row`` and ``det_cards`` for the kernels.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from uno_env.batch.cache import EntryPoints, njit
from uno_env.batch.convert import to_state
from uno_env.batch.det_cards import BAD, NO_DEAL, OK, TRIES
from uno_env.batch.det_row import BAD_TOP, O_PHASE, DetTables, fill_rows
from uno_env.batch.layout import Batch, allocate
from uno_env.batch.mt19937 import N as MT_N
from uno_env.batch.mt19937 import seed_int
from uno_env.batch.tables import FT_OBS_AT, Tables, build_tables
from uno_env.cards import WILD
from uno_env.determinize import InconsistentObservation, Recall
from uno_env.inference import Avoid
from uno_env.rules.codes import PHASES
from uno_env.rules.game import Game
from uno_env.rules.state import State


def generators(rngs: Sequence[random.Random]) -> tuple[np.ndarray, np.ndarray]:
    """The states of ``rngs`` as the kernels hold them: ``mt`` [K, 624] uint32 words and
    ``mti`` [K] int64 indices (``random.Random.getstate()[1]``)."""
    mt = np.empty((len(rngs), MT_N), np.uint32)
    mti = np.empty(len(rngs), np.int64)
    for k, r in enumerate(rngs):
        words = r.getstate()[1]
        mt[k] = words[:MT_N]
        mti[k] = words[MT_N]
    return mt, mti


def seed_generators(seeds: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`generators` of ``[random.Random(s) for s in seeds]`` (int seeds), compiled."""
    seeds = np.ascontiguousarray(seeds, dtype=np.int64).reshape(-1)
    mt = np.empty((len(seeds), MT_N), np.uint32)
    mti = np.empty(len(seeds), np.int64)
    _seed_all(mt, mti, seeds)
    return mt, mti


@njit(cache=True, error_model="numpy")
def _seed_all(mt: np.ndarray, mti: np.ndarray, seeds: np.ndarray) -> None:
    for k in range(seeds.shape[0]):
        mti[k] = seed_int(mt[k], seeds[k])


def load_generator(rng: random.Random, mt: np.ndarray, mti: np.ndarray, k: int) -> None:
    """Set ``rng`` to the state of generator ``k`` (the inverse of :func:`generators`)."""
    version, _, _ = rng.getstate()
    rng.setstate((version, (*mt[k].tolist(), int(mti[k])), None))


def det_tables(game: Game) -> DetTables:
    """The deck facts determinization reads beside ``Tables`` (see ``DetTables``)."""
    sides = np.array(game.side_faces, dtype=np.int64)
    nf, nc = game.num_faces, game.num_cards
    pair_ok = np.zeros((len(sides), nf, nf), np.uint8)
    for s in range(len(sides)):
        other = sides[s ^ 1] if len(sides) > 1 else sides[s]
        pair_ok[s, sides[s], other] = 1
    cls = np.empty(nc, np.int64)
    starts, ids = [0], []
    for k, group in enumerate(game.cards_by_name.values()):
        cls[group] = k
        ids += sorted(group)
        starts.append(len(ids))
    color_mask = np.zeros((len(game.color_faces), nf), np.uint8)
    for c, fs in enumerate(game.color_faces):
        color_mask[c, list(fs)] = 1
    return DetTables(pair_ok, cls, np.array(starts, np.int64), np.array(ids, np.int64),
                     color_mask)


class Determinizer:
    """Compiled determinizations of one configuration (``Determinizer("flip", 3,
    uno_catch="decision")``): ``fill`` writes K samples into K rows of a batch."""

    def __init__(self, variant: str = "classic", num_players: int = 2,
                 **options: Any) -> None:
        from uno_env.aec import raw_env

        raw = raw_env(variant, num_players=num_players, **options)
        self.game: Game = raw.game
        self.layout = raw.layout
        self.tables: Tables = build_tables(raw.game, raw.layout, raw.reward_mode,
                                           raw.max_steps)
        self.det = det_tables(raw.game)
        self._phase_at = int(self.tables.ft[FT_OBS_AT, O_PHASE])
        self._entries = EntryPoints()  # the kernel's entry point, looked up once

    def allocate(self, rows: int) -> Batch:
        """A batch of ``rows`` games of this configuration to fill."""
        return allocate(self.tables, rows)

    def to_state(self, batch: Batch, row: int) -> State:
        """Row ``row`` as a Python engine :class:`State` (``convert.to_state``)."""
        return to_state(batch, self.tables, self.game, row)

    def fill(self, batch: Batch, rows: Any, obs: np.ndarray, mask: np.ndarray,
             mt: np.ndarray, mti: np.ndarray, of: Any = None, gen: Any = None,
             seats: Any = None,
             recall: Sequence[Recall | None] | None = None,
             avoid: Sequence[Sequence[Avoid]] | None = None,
             must: Sequence[np.ndarray | None] | None = None,
             seeds: np.ndarray | None = None) -> None:
        """Row ``rows[k]`` of ``batch``: a determinization of position ``of[k]`` drawn with
        generator ``gen[k]`` (default ``k``: ``mt[k]``, ``mti[k]``, advanced in place as
        ``determinize`` advances a ``random.Random``; rows sharing a generator draw from
        it in row order, as successive ``determinize`` calls with one ``rng`` do).

        ``obs`` [P, obs_dim] and ``mask`` [P, num_actions]: each position's observation and
        action mask, of the seat to act; ``of`` [K] (default ``0..K-1``): the position of
        each row (rows of one position next to each other decode it once); ``seats`` [P]:
        the seat that stands for the observer (default 0); per position, ``recall``,
        ``avoid`` and ``must`` as ``determinize`` takes them. Raises ``ValueError`` on
        malformed input and :class:`InconsistentObservation` when no deal fits (the
        generators' states are then unspecified). ``seeds`` [K] uint64, if given: after
        row ``k``, its generator's next ``getrandbits(64)`` goes to ``seeds[k]`` (a sample,
        then its playout seed: the order in which ``ISMCTSAgent`` draws them)."""
        t, g = self.tables, self.game
        obs = np.ascontiguousarray(np.atleast_2d(obs), dtype=np.float32)
        mask = np.ascontiguousarray(np.atleast_2d(mask), dtype=np.uint8)
        rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1)
        npos, k = obs.shape[0], rows.shape[0]
        pos_of = (np.arange(k, dtype=np.int64) if of is None
                  else np.ascontiguousarray(of, dtype=np.int64).reshape(-1))
        if obs.shape[1] != t.obs_dim or mask.shape != (npos, t.na):
            raise ValueError(f"obs must be [P, {t.obs_dim}] and mask [P, {t.na}] for "
                             f"{g.variant.name} with {t.n} players; got {obs.shape} and "
                             f"{mask.shape}")
        if pos_of.shape != (k,) or (k and not 0 <= pos_of.min() <= pos_of.max() < npos):
            raise ValueError(f"of must give each of the {k} rows a position 0-{npos - 1}")
        b = batch.S.shape[0]
        if k and (rows.min() < 0 or rows.max() >= b or len(np.unique(rows)) != k):
            raise ValueError(f"rows must be {k} distinct rows of the batch (0-{b - 1})")
        if batch.counts.shape[1:] != (t.n, t.nf):
            raise ValueError("the batch is not of this configuration (allocate it with "
                             "Determinizer.allocate or a VectorEnv of the same game)")
        gen_of = (np.arange(k, dtype=np.int64) if gen is None
                  else np.ascontiguousarray(gen, dtype=np.int64).reshape(-1))
        ng = mt.shape[0] if mt.ndim == 2 else -1
        if (mt.shape != (ng, MT_N) or mt.dtype != np.uint32 or mti.shape != (ng,)
                or not mt.flags.c_contiguous):
            raise ValueError(f"mt must be a [G, {MT_N}] uint32 array in C order and mti "
                             "[G] (G generators, see generators())")
        if gen_of.shape != (k,) or (k and not 0 <= gen_of.min() <= gen_of.max() < ng):
            raise ValueError(f"gen must give each of the {k} rows a generator 0-{ng - 1}")
        phase = obs[:, self._phase_at:self._phase_at + len(PHASES)] > 0.5
        bad = np.flatnonzero((phase.sum(axis=1) != 1) | ~mask.any(axis=1))
        if len(bad):
            raise ValueError(f"position {int(bad[0])}: the observer is not to act: the "
                             "observation has no phase and the mask no legal action; "
                             "determinize only decision points")
        seat_arr = (np.zeros(npos, np.int64) if seats is None
                    else np.ascontiguousarray(seats, dtype=np.int64).reshape(-1))
        if seat_arr.shape != (npos,) or (npos and not 0 <= seat_arr.min() <= seat_arr.max()
                                         < t.n):
            raise ValueError(f"seats must give each of the {npos} positions a seat "
                             f"0-{t.n - 1}")
        rec_a = np.full(npos, -1, np.int64)
        rec_c = np.zeros(npos, np.int64)
        for p, r in enumerate(_per_position(recall, npos, "recall")):
            if r is not None:
                if not (0 <= r.action < t.na and 0 <= r.color <= WILD):
                    raise ValueError(f"recall of position {p}: {r!r} needs an action "
                                     f"0-{t.na - 1} and a colour 0-{WILD}")
                rec_a[p], rec_c[p] = int(r.action), int(r.color)
        avoids = _per_position(avoid, npos, "avoid")
        width = max([len(a) for a in avoids if a is not None] + [1])
        av = np.zeros((npos, width, t.nf), np.bool_)
        allowed = np.zeros((npos, width), np.int64)
        navoid = np.zeros(npos, np.int64)
        for p, lst in enumerate(avoids):
            for q, a in enumerate(lst or ()):
                av[p, q] = np.asarray(a.faces, dtype=bool)
                allowed[p, q] = int(a.allowed)
            navoid[p] = len(lst or ())
        need = np.zeros((npos, t.nf), np.int64)
        for p, m in enumerate(_per_position(must, npos, "must")):
            if m is not None:
                need[p] = np.asarray(m, dtype=np.int64)
        status = np.zeros(k, np.int8)
        if seeds is None:
            seeds = np.zeros(0, np.uint64)
        elif seeds.shape != (k,) or seeds.dtype != np.uint64:
            raise ValueError(f"seeds must be a [{k}] uint64 array (one per row), got "
                             f"{seeds.dtype} {seeds.shape}")
        self._entries.run(fill_rows, batch, t, self.det, rows, pos_of, gen_of, obs, mask, seat_arr,
                  mt.reshape(ng, 1, MT_N), mti.reshape(ng, 1), rec_a, rec_c, av, allowed,
                  navoid, need, status, seeds)
        wrong = np.flatnonzero(status != OK)
        if len(wrong):
            j = int(wrong[0])
            why = {BAD_TOP: "the top card is not among the discard pile's faces",
                   BAD: "more cards are asked for than the deck has",
                   NO_DEAL: f"no deal of the {g.variant.name} deck fits this observation "
                            f"after {TRIES} tries (is it from this variant, player count "
                            "and options?)"}[int(status[j])]
            raise InconsistentObservation(f"row {int(rows[j])} (position "
                                          f"{int(pos_of[j])}): {why}")


def _per_position(xs: Sequence[Any] | None, npos: int, name: str) -> list[Any]:
    if xs is None:
        return [None] * npos
    if len(xs) != npos:
        raise ValueError(f"{name} must have one entry per position ({npos}), got {len(xs)}")
    return list(xs)
