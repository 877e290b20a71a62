"""The specified generator: SplitMix64 reference outputs, bounded draws, Fisher–Yates."""

from collections import Counter

import pytest

from uno_env.rules.rng import SplitMix64


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


def test_shuffle_is_fisher_yates_from_the_end() -> None:
    xs = list(range(10))
    SplitMix64(42).shuffle(xs)
    ref = list(range(10))
    r = SplitMix64(42)
    for i in range(9, 0, -1):
        j = r.below(i + 1)
        ref[i], ref[j] = ref[j], ref[i]
    assert xs == ref and sorted(xs) == list(range(10)) and xs != list(range(10))


def test_state_is_the_whole_generator() -> None:
    a = SplitMix64(123)
    a.next_u64()
    b = SplitMix64(a.state)
    assert [a.below(97) for _ in range(20)] == [b.below(97) for _ in range(20)]
