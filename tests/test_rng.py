"""The specified generator: SplitMix64 reference outputs, bounded draws, Fisher–Yates."""

from collections import Counter

import pytest

from uno_env.rules.rng import GOLDEN, MASK64, MUL1, MUL2, TWO32, SplitMix64


def test_splitmix64_reference_outputs() -> None:
    # Reference values of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
    r = SplitMix64(0)
    assert [r.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_below_is_in_range_and_uniform_enough() -> None:
    r = SplitMix64(7)
    draws = Counter(r.below(6) for _ in range(6000))
    assert set(draws) == set(range(6))
    assert all(850 < v < 1150 for v in draws.values())
    with pytest.raises(ValueError, match="1 <= n < 2"):
        r.below(0)


def _fisher_yates(seed: int, m: int) -> tuple[list[int], int]:
    """The specified shuffle written out with ``below`` (the reference), and the end state."""
    ref = list(range(m))
    r = SplitMix64(seed)
    for i in range(m - 1, 0, -1):
        j = r.below(i + 1)
        ref[i], ref[j] = ref[j], ref[i]
    return ref, r.state


@pytest.mark.parametrize("m", [0, 1, 2, 10, 24, 25, 60, 108, 112])
def test_shuffle_is_fisher_yates_from_the_end(m: int) -> None:
    """Short lists go one draw at a time, long ones draw in numpy: the same numbers."""
    for seed in (42, 7, MASK64, 2**63 + 5):
        xs = list(range(m))
        r = SplitMix64(seed)
        r.shuffle(xs)
        ref, state = _fisher_yates(seed, m)
        assert xs == ref and r.state == state
        assert sorted(xs) == list(range(m)) and (m < 10 or xs != list(range(m)))


def _unmix(out: int) -> int:
    """The SplitMix64 state whose output is ``out`` (mix64 inverted step by step)."""
    def unxorshift(y: int, s: int) -> int:
        x = y
        for _ in range(64 // s + 1):
            x = y ^ (x >> s)
        return x
    z = unxorshift(out, 31)
    z = unxorshift(z * pow(MUL2, -1, 1 << 64) & MASK64, 27)
    z = unxorshift(z * pow(MUL1, -1, 1 << 64) & MASK64, 30)
    return (z - GOLDEN) & MASK64


@pytest.mark.parametrize("k", [0, 1, 30, 57])
def test_shuffle_rejects_like_below(k: int) -> None:
    """A seed whose draw number ``k`` (of a 60-card shuffle) falls in the rejected zone:
    the long-list path must redraw exactly as ``below`` does."""
    m = 60
    n = m - k  # draw k is below(n)
    limit = TWO32 - TWO32 % n
    seed = (_unmix(((TWO32 - 1) << 32) | 12345) - k * GOLDEN) & MASK64
    assert limit <= TWO32 - 1  # the constructed draw is rejected
    r = SplitMix64(seed)
    for _ in range(k):
        r.next_u64()
    assert r.next_u64() >> 32 == TWO32 - 1
    xs = list(range(m))
    g = SplitMix64(seed)
    g.shuffle(xs)
    assert (xs, g.state) == _fisher_yates(seed, m)


def test_state_is_the_whole_generator() -> None:
    a = SplitMix64(123)
    a.next_u64()
    b = SplitMix64(a.state)
    assert [a.below(97) for _ in range(20)] == [b.below(97) for _ in range(20)]
