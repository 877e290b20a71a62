"""SplitMix64, ``below`` and the Fisher–Yates shuffle of ``uno_env.rules.rng`` in numba.

All arithmetic stays in ``np.uint64`` (numba would turn ``uint64 op int64`` into float64),
so every game reproduces the Python engine's random choices bit for bit.
"""

from __future__ import annotations

import numpy as np

from uno_env.batch.cache import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MUL1 = np.uint64(0xBF58476D1CE4E5B9)
MUL2 = np.uint64(0x94D049BB133111EB)
TWO32 = np.uint64(1 << 32)
S27, S30, S31, S32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)


@njit(cache=True, error_model="numpy")
def next_u64(rng: np.ndarray, i: int) -> np.uint64:
    """Advance generator ``rng[i]`` and return its output."""
    z = rng[i] + GOLDEN
    rng[i] = z
    z = (z ^ (z >> S30)) * MUL1
    z = (z ^ (z >> S27)) * MUL2
    return z ^ (z >> S31)


@njit(cache=True, error_model="numpy")
def below(rng: np.ndarray, i: int, n: int) -> int:
    """A uniform integer in ``[0, n)`` by rejection from the top 32 bits."""
    nn = np.uint64(n)
    limit = TWO32 - TWO32 % nn
    while True:
        r = next_u64(rng, i) >> S32
        if r < limit:
            return np.int64(r % nn)  # type: ignore[return-value]  # uint64 would make math float


@njit(cache=True, error_model="numpy")
def shuffle(rng: np.ndarray, i: int, xs: np.ndarray, k: int) -> None:
    """Fisher–Yates over ``xs[:k]`` from the last position down."""
    for j in range(k - 1, 0, -1):
        m = below(rng, i, j + 1)
        tmp = xs[j]
        xs[j] = xs[m]
        xs[m] = tmp
