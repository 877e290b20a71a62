"""numpy's ``Generator(PCG64)`` in numba: the draws ``SingleAgentEnv.reset`` makes.

``gymnasium.make("uno_env/UNO-v1")`` draws the learner's seat, each deal's seed and each
opponent (and its seed) from ``self.np_random``, a ``numpy.random.Generator`` over PCG64.
The learner vector env (``uno_env.batch.learner``) makes the same draws inside its kernel,
so each game continues UNO-v1's stream across auto-resets. This module reproduces, bit for
bit, the two calls that reset makes: ``integers(n)`` for a small ``n`` (numpy's buffered
32-bit Lemire method, ``random_bounded_uint64_fill`` with ``rng <= 0xFFFFFFFF``) and
``integers(2**63)`` (64-bit Lemire, which for that bound is the next output shifted right by
one). A generator is one row of ``pcg``: ``[state_hi, state_lo, inc_hi, inc_lo, has_uint32,
uinteger]``, loaded from ``Generator.bit_generator.state`` by :func:`load_state`.
All arithmetic stays in ``np.uint64`` (numba would turn ``uint64 op int64`` into float64).
"""

from __future__ import annotations

import numpy as np

from uno_env.batch.cache import njit

MULT_HI = np.uint64(2549297995355413924)  # PCG_DEFAULT_MULTIPLIER_128, high and low words
MULT_LO = np.uint64(4865540595714422341)
M32 = np.uint64(0xFFFFFFFF)
U1, U32, U58, U63, U64 = (np.uint64(x) for x in (1, 32, 58, 63, 64))
STATE_HI, STATE_LO, INC_HI, INC_LO, HAS32, UINT32 = range(6)
PCG_WORDS = 6


def load_state(pcg: np.ndarray, i: int, generator: np.random.Generator) -> None:
    """Copy ``generator``'s PCG64 state into row ``i`` of ``pcg``."""
    st = generator.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"expected a PCG64 generator, got {st['bit_generator']}")
    state, inc = int(st["state"]["state"]), int(st["state"]["inc"])
    mask = (1 << 64) - 1
    pcg[i] = [state >> 64, state & mask, inc >> 64, inc & mask, st["has_uint32"],
              st["uinteger"]]


@njit(cache=True, inline="always", error_model="numpy")
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high word of the 128-bit product ``a * b``."""
    a0, a1 = a & M32, a >> U32
    b0, b1 = b & M32, b >> U32
    p01, p10 = a0 * b1, a1 * b0
    mid = ((a0 * b0) >> U32) + (p01 & M32) + (p10 & M32)
    return a1 * b1 + (p01 >> U32) + (p10 >> U32) + (mid >> U32)


@njit(cache=True, error_model="numpy")
def next_u64(pcg: np.ndarray, i: int) -> np.uint64:
    """``pcg64_random_r``: step the 128-bit LCG, then the XSL-RR output of the new state."""
    hi, lo = pcg[i, STATE_HI], pcg[i, STATE_LO]
    nhi = _mulhi(lo, MULT_LO) + lo * MULT_HI + hi * MULT_LO
    nlo = lo * MULT_LO
    lo2 = nlo + pcg[i, INC_LO]
    nhi = nhi + pcg[i, INC_HI] + (U1 if lo2 < nlo else np.uint64(0))
    pcg[i, STATE_HI] = nhi
    pcg[i, STATE_LO] = lo2
    v = nhi ^ lo2
    rot = nhi >> U58
    return (v >> rot) | (v << ((U64 - rot) & U63))  # type: ignore[no-any-return]


@njit(cache=True, error_model="numpy")
def next_u32(pcg: np.ndarray, i: int) -> np.uint64:
    """``pcg64_next32``: the low half of a fresh output, its high half kept for next time."""
    if pcg[i, HAS32]:
        pcg[i, HAS32] = np.uint64(0)
        return pcg[i, UINT32]  # type: ignore[no-any-return]
    x = next_u64(pcg, i)
    pcg[i, HAS32] = U1
    pcg[i, UINT32] = x >> U32
    return x & M32


@njit(cache=True, error_model="numpy")
def integers(pcg: np.ndarray, i: int, n: int) -> int:
    """``Generator.integers(n)`` for ``1 <= n <= 2**32`` (no draw at all when ``n == 1``)."""
    if n == 1:
        return 0
    excl = np.uint64(n)
    m = next_u32(pcg, i) * excl
    leftover = m & M32
    if leftover < excl:
        threshold = ((M32 + U1) - excl) % excl
        while leftover < threshold:
            m = next_u32(pcg, i) * excl
            leftover = m & M32
    return np.int64(m >> U32)  # type: ignore[return-value]


@njit(cache=True, error_model="numpy")
def integers_2_63(pcg: np.ndarray, i: int) -> int:
    """``Generator.integers(2**63)``: Lemire's method with ``2**63`` keeps the top 63 bits
    and never rejects (its threshold is 0)."""
    return np.int64(next_u64(pcg, i) >> U1)  # type: ignore[return-value]
