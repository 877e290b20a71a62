"""Uniformly random legal actions drawn by a kernel (``VectorEnv.sample_actions``), for
benchmarks, tests and random baselines: one generator per game, so the draws are the same
whether the games are sampled on one thread or on numba's threads."""

from __future__ import annotations

import numpy as np
from numba import prange

from uno_env.batch import layout as L
from uno_env.batch.borrow import borrow, unsigned
from uno_env.batch.cache import njit
from uno_env.batch.rng import S32, TWO32, next_u64

BYTES = np.uint64(0x0101010101010101)  # times a word of 0/1 bytes: their sum in the top byte
S56 = np.uint64(56)
LOW32 = np.uint64(0xFFFFFFFF)
CHUNK = 256  # games per task of the parallel sampler


@njit(cache=True, inline="always", error_model="numpy")
def _uniform(rng: np.ndarray, i: int, n: int) -> int:
    """Uniform in ``[0, n)`` from the top 32 bits of generator ``rng[i]`` by Lemire's
    multiply-shift with rejection: exact, and it divides only on a rare low draw (the two
    divisions of ``rng.below`` were most of the sampler's time)."""
    nn = np.uint64(n)
    while True:
        m = (next_u64(rng, i) >> S32) * nn
        low = m & LOW32
        if low >= nn or low >= TWO32 % nn:
            return np.int64(m >> S32)  # type: ignore[return-value]


@njit(cache=True, inline="always", error_model="numpy")
def _kth_set(words: np.ndarray, k: int) -> int:
    """The index of the ``k``-th (from 0) 1 byte of a row of 0/1 bytes read as words. No
    data-dependent branch: the counts before each word, then before each byte, are summed
    (a search loop mispredicted about twice per game)."""
    w = np.int64(0)
    cum = np.int64(0)
    rest = np.int64(k)
    for j in range(words.shape[0]):
        c = np.int64((words[j] * BYTES) >> S56)
        cum += c
        past = np.int64(cum <= k)  # the k-th lies after word j
        w += past
        rest -= c * past
    x = words[min(w, words.shape[0] - 1)]
    b = np.int64(0)
    cum = np.int64(0)
    for j in range(8):
        cum += np.int64((x >> np.uint64(8 * j)) & np.uint64(1))
        b += np.int64(cum <= rest)
    return int(8 * w + b)


@njit(cache=True, error_model="numpy")
def sample_range(S: np.ndarray, words: np.ndarray, lo: int, hi: int, rng: np.ndarray,
                 out: np.ndarray) -> None:
    """Games ``lo..hi-1``: the ``k``-th legal action of game ``i`` for a uniform
    ``k < NLEGAL`` from ``rng[i]``, found eight actions at a time in ``words``, the legal
    rows (whole 64-bit words of 0/1 bytes) viewed as ``uint64`` once by the caller (a
    ``.view`` per game here cost a call and a reference count). Only the scalars ``S``
    and the rows come in: unboxing the whole state costs about a microsecond a call."""
    S, words, rng, out = borrow(S), borrow(words), borrow(rng), borrow(out)
    for j in range(lo, hi):
        i = unsigned(j)
        n = S[i, L.NLEGAL]
        k = _uniform(rng, i, n)
        if n:  # a finished game (autoreset=False) keeps its last entry
            out[i] = _kth_set(words[i], k)


@njit(cache=True, error_model="numpy")
def random_actions(S: np.ndarray, words: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """Every game's random legal action, on this thread."""
    sample_range(S, words, 0, out.shape[0], rng, out)


@njit(cache=True, parallel=True, error_model="numpy")
def random_actions_parallel(S: np.ndarray, words: np.ndarray, rng: np.ndarray,
                            out: np.ndarray) -> None:
    """``random_actions`` in chunks of ``CHUNK`` games on numba's threads (the same draws:
    every game has its own generator)."""
    b = out.shape[0]
    for c in prange((b + CHUNK - 1) // CHUNK):
        lo = c * CHUNK
        sample_range(S, words, lo, min(lo + CHUNK, b), rng, out)
