"""CPython's ``random.Random`` (MT19937) in numba: seeding, ``getrandbits``, ``randrange``,
``choice``, ``shuffle`` and ``random``.

The random agent (``agents/random_agent.py``) draws with ``random.Random``; the compiled
opponents reproduce its choices bit for bit, so they need the same generator: the state is
CPython's (624 words and an index, ``getstate()[1]``), ``seed(int)`` is ``init_by_array``
over the 32-bit words of ``abs(seed)`` (``_randommodule.c: random_seed``), and
``randrange(n)`` is ``_randbelow_with_getrandbits``: ``k = n.bit_length()`` bits drawn until
the value is below ``n``; ``choice(seq)`` is ``seq[randrange(len(seq))]``; ``shuffle`` is
Fisher-Yates from the end with ``randrange(i + 1)`` (``random.py``); ``getrandbits(64)`` is
two outputs, the first the low word (``random_getrandbits`` on a little-endian machine);
``random()`` is ``random_random``'s 53 bits from two outputs. Arithmetic stays in ``uint64``
masked to 32 bits (numba would turn ``uint64 op int64`` into float64).
"""

from __future__ import annotations

import numpy as np

from uno_env.batch.cache import njit

N = 624
M = 397
MASK32 = np.uint64(0xFFFFFFFF)
UPPER = np.uint64(0x80000000)
LOWER = np.uint64(0x7FFFFFFF)
MATRIX_A = np.uint64(0x9908B0DF)
U1, U11, U7, U15, U18, U30, U32 = (np.uint64(x) for x in (1, 11, 7, 15, 18, 30, 32))


@njit(cache=True, error_model="numpy")
def init_genrand(mt: np.ndarray, s: np.uint64) -> None:
    """``init_genrand``: the state from one 32-bit word (``mt`` is one generator's row)."""
    mt[0] = s & MASK32
    for i in range(1, N):
        prev = np.uint64(mt[i - 1])
        mt[i] = (np.uint64(1812433253) * (prev ^ (prev >> U30)) + np.uint64(i)) & MASK32


@njit(cache=True, error_model="numpy")
def seed_int(mt: np.ndarray, seed: int) -> int:
    """``random.seed(seed)`` for an int: ``init_by_array`` over the 32-bit words of
    ``abs(seed)`` (one word for 0); returns the index (``N``: generate on the next draw)."""
    v = np.uint64(-seed) if seed < 0 else np.uint64(seed)
    key0 = v & MASK32
    key1 = v >> U32
    keylen = 2 if key1 else 1
    init_genrand(mt, np.uint64(19650218))
    i, j = 1, 0
    for _ in range(max(N, keylen)):
        prev = np.uint64(mt[i - 1])
        key = key0 if j == 0 else key1
        mt[i] = ((np.uint64(mt[i]) ^ ((prev ^ (prev >> U30)) * np.uint64(1664525)))
                 + key + np.uint64(j)) & MASK32
        i += 1
        j += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
        if j >= keylen:
            j = 0
    for _ in range(N - 1):
        prev = np.uint64(mt[i - 1])
        mt[i] = ((np.uint64(mt[i]) ^ ((prev ^ (prev >> U30)) * np.uint64(1566083941)))
                 - np.uint64(i)) & MASK32
        i += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
    mt[0] = UPPER
    return N


@njit(cache=True, error_model="numpy")
def _twist(mt: np.ndarray, i: int, q: int) -> None:
    for k in range(N):
        y = (np.uint64(mt[i, q, k]) & UPPER) | (np.uint64(mt[i, q, (k + 1) % N]) & LOWER)
        v = np.uint64(mt[i, q, (k + M) % N]) ^ (y >> U1)
        if y & U1:
            v ^= MATRIX_A
        mt[i, q, k] = v


@njit(cache=True, error_model="numpy")
def genrand_uint32(mt: np.ndarray, index: np.ndarray, i: int, q: int) -> np.uint64:
    """The next 32-bit output of generator ``mt[i, q]`` (its index is ``index[i, q]``)."""
    if index[i, q] >= N:
        _twist(mt, i, q)
        index[i, q] = 0
    y = np.uint64(mt[i, q, index[i, q]])
    index[i, q] += 1
    y ^= y >> U11
    y ^= (y << U7) & np.uint64(0x9D2C5680)
    y ^= (y << U15) & np.uint64(0xEFC60000)
    y ^= y >> U18
    return y & MASK32


@njit(cache=True, error_model="numpy")
def randbelow(mt: np.ndarray, index: np.ndarray, i: int, q: int, n: int) -> int:
    """``random.Random.randrange(n)`` for ``1 <= n < 2**32`` with generator ``[i, q]``:
    ``k = n.bit_length()`` bits (the top bits of one output) until the value is below ``n``."""
    k = 0
    while (n >> k) > 0:
        k += 1
    shift = np.uint64(32 - k)
    nn = np.uint64(n)
    while True:
        r = genrand_uint32(mt, index, i, q) >> shift
        if r < nn:
            return np.int64(r)  # type: ignore[return-value]  # uint64 would make math float


@njit(cache=True, error_model="numpy")
def getrandbits64(mt: np.ndarray, index: np.ndarray, i: int, q: int) -> np.uint64:
    """``random.Random.getrandbits(64)``: the first output is the low 32 bits."""
    lo = genrand_uint32(mt, index, i, q)
    hi = genrand_uint32(mt, index, i, q)
    return lo | (hi << U32)


@njit(cache=True, error_model="numpy")
def random_float(mt: np.ndarray, index: np.ndarray, i: int, q: int) -> float:
    """``random.Random.random()``: ``(a * 2**26 + b) / 2**53`` from 27 and 26 top bits."""
    a = genrand_uint32(mt, index, i, q) >> np.uint64(5)
    b = genrand_uint32(mt, index, i, q) >> np.uint64(6)
    return (float(a) * 67108864.0 + float(b)) * (1.0 / 9007199254740992.0)


@njit(cache=True, error_model="numpy")
def shuffle(mt: np.ndarray, index: np.ndarray, i: int, q: int, xs: np.ndarray, lo: int,
            n: int) -> None:
    """``random.Random.shuffle`` of ``xs[lo:lo + n]`` in place: for ``k = n-1 .. 1``,
    ``j = randrange(k + 1)``, swap items ``k`` and ``j``."""
    for k in range(n - 1, 0, -1):
        j = randbelow(mt, index, i, q, k + 1)
        x = xs[lo + k]
        xs[lo + k] = xs[lo + j]
        xs[lo + j] = x
