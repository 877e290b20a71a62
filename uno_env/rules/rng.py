"""The one pseudo-random generator of the engine: SplitMix64, with a specified shuffle.

Every random choice of a game (the dealer, the deal, each reshuffle) goes through a
:class:`SplitMix64` whose whole state is one unsigned 64-bit integer, so that any other
engine (the compiled batch engine) reproduces a game bit for bit from the same seed:

- ``next_u64``: Steele, Lea and Flood's SplitMix64 (the seeding generator of xoshiro).
- ``below(n)``: a uniform integer in ``[0, n)`` for ``1 <= n < 2**32``, from the top 32 bits
  of ``next_u64`` by rejection (values at or above the largest multiple of ``n`` are drawn
  again), so no modulo bias.
- ``shuffle(xs)``: Fisher–Yates from the end: for ``i = len-1 .. 1``, ``j = below(i + 1)``,
  swap ``xs[i]`` and ``xs[j]``.

Seeding (see docs/environments.md): an int seed ``s`` gives the state ``s mod 2**64``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB
TWO32 = 1 << 32


def mix64(z: int) -> int:
    """SplitMix64's output function (a bijection on 64-bit integers)."""
    z = ((z ^ (z >> 30)) * MUL1) & MASK64
    z = ((z ^ (z >> 27)) * MUL2) & MASK64
    return z ^ (z >> 31)


class SplitMix64:
    """A SplitMix64 generator; ``state`` is all there is to it (snapshots store it)."""

    __slots__ = ("state",)

    def __init__(self, seed: int = 0) -> None:
        self.state = int(seed) & MASK64

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n`` from 1 to 2**32 - 1."""
        if not 0 < n < TWO32:
            raise ValueError(f"below(n) needs 1 <= n < 2**32, got {n}")
        limit = TWO32 - TWO32 % n
        z = self.state
        while True:  # next_u64 and mix64, inlined (the hot path of every deal and draw)
            z = (z + GOLDEN) & MASK64
            r = ((z ^ (z >> 30)) * MUL1) & MASK64
            r = ((r ^ (r >> 27)) * MUL2) & MASK64
            r = (r ^ (r >> 31)) >> 32
            if r < limit:
                self.state = z
                return r % n

    def shuffle(self, xs: list[Any]) -> None:
        """Fisher–Yates in place, from the last position down (``below`` inlined: a deal
        draws a hundred numbers). Long lists draw all their numbers at once in numpy (the
        same numbers: uint64 arithmetic wraps as ``& MASK64`` does)."""
        m = len(xs)
        if m > _VECTOR_FROM:
            done = _shuffle_vector(self, xs)
            if done == m - 1:
                return
            top = m - 1 - done  # a rejection (about one shuffle in 10**7): go on one by one
        else:
            top = m - 1
        z = self.state
        for i in range(top, 0, -1):
            n = i + 1
            limit = TWO32 - TWO32 % n
            while True:
                z = (z + GOLDEN) & MASK64
                r = ((z ^ (z >> 30)) * MUL1) & MASK64
                r = ((r ^ (r >> 27)) * MUL2) & MASK64
                r = (r ^ (r >> 31)) >> 32
                if r < limit:
                    break
            j = r % n
            xs[i], xs[j] = xs[j], xs[i]
        self.state = z


_VECTOR_FROM = 24  # below this many items the scalar loop is faster than numpy's overhead
_STEPS: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
_S27, _S30, _S31, _S32 = (np.uint64(k) for k in (27, 30, 31, 32))
_MUL1, _MUL2 = np.uint64(MUL1), np.uint64(MUL2)


def _steps(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a list of ``m``: k * GOLDEN (k = 1 .. m-1), and ``n`` and the rejection limit of
    each draw (``n = m, m-1, .., 2``)."""
    got = _STEPS.get(m)
    if got is None:
        k = np.arange(1, m, dtype=np.uint64)
        n = np.arange(m, 1, -1, dtype=np.uint64)
        got = _STEPS[m] = (k * np.uint64(GOLDEN), n, np.uint64(TWO32) - np.uint64(TWO32) % n)
    return got


def _shuffle_vector(rng: SplitMix64, xs: list[Any]) -> int:
    """:meth:`SplitMix64.shuffle`'s swaps up to the first rejected draw, with every
    ``next_u64`` computed at once; returns how many swaps were made (``rng`` advanced by
    that many draws)."""
    m = len(xs)
    steps, n, limit = _steps(m)
    z = steps + np.uint64(rng.state)
    r = (z ^ (z >> _S30)) * _MUL1
    r = (r ^ (r >> _S27)) * _MUL2
    r = (r ^ (r >> _S31)) >> _S32
    ok = r < limit
    done = m - 1 if ok.all() else int(ok.argmin())
    if done:
        js = (r[:done] % n[:done]).tolist()
        for i, j in zip(range(m - 1, m - 1 - done, -1), js, strict=True):
            xs[i], xs[j] = xs[j], xs[i]
        rng.state = int(z[done - 1])
    return done
