"""uno_env.stats: the one Wilson and deal-clustered interval of evaluation and tournaments."""

from __future__ import annotations

import pytest

from uno_env.stats import Z95, clustered_rate, ratio_interval, wilson, wilson_counts


def test_wilson_known_values() -> None:
    lo, hi = wilson(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    lo, hi = wilson_counts(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_counts(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_counts(600, 1000)
    assert 0.569 < lo < 0.6 < hi < 0.631
    assert wilson_counts(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("n", range(1, 201))
def test_wilson_contains_its_estimate_exactly_at_0_and_1(n: int) -> None:
    # the textbook formula rounds to a lower bound of 5.6e-17 at p=0, n=3 and an upper bound
    # of 0.9999999999999999 at p=1, n=10 (docs/tournaments.md, Report)
    lo, hi = wilson(0.0, n)
    assert lo == 0.0 and 0.0 < hi < 1.0
    lo, hi = wilson(1.0, n)
    assert hi == 1.0 and 0.0 < lo < 1.0
    assert wilson_counts(0, n)[0] == 0.0 and wilson_counts(n, n)[1] == 1.0
    for k in range(n + 1):  # and every other count: low <= p <= high, inside [0, 1]
        lo, hi = wilson_counts(k, n)
        assert 0.0 <= lo <= k / n <= hi <= 1.0


@pytest.mark.parametrize("n", range(1, 201))
def test_clustered_interval_contains_its_estimate_exactly_at_0_and_1(n: int) -> None:
    # n games in deals of 1 or 2 games (one deal when n = 1): the clustered path and the
    # one-cluster path
    for sizes in ([1] * n, [2] * (n // 2) + [1] * (n % 2)):
        p, se, lo, hi = clustered_rate([(0, g) for g in sizes])
        assert (p, lo) == (0.0, 0.0) and se == 0.0 and 0.0 < hi < 1.0
        p, se, lo, hi = clustered_rate([(g, g) for g in sizes])
        assert (p, hi) == (1.0, 1.0) and se == 0.0 and 0.0 < lo < 1.0


def test_clustered_interval() -> None:
    # one game per cluster: the usual Wilson interval (up to the B/(B-1) correction)
    clusters = [(1, 1)] * 60 + [(0, 1)] * 40
    p, se, lo, hi = clustered_rate(clusters)
    assert p == 0.6 and se == pytest.approx((0.24 / 100 * 100 / 99) ** 0.5)
    assert (lo, hi) == pytest.approx(wilson(0.6, 0.24 / se**2))
    # deals that always split evenly carry no deal luck: a narrower interval
    plain_lo, plain_hi = wilson(0.5, 100)
    even = [(1, 2)] * 45 + [(2, 2)] * 5 + [(0, 2)] * 5
    assert clustered_rate(even)[3] - clustered_rate(even)[2] < plain_hi - plain_lo
    assert clustered_rate([(3, 3)] * 10)[2:] == pytest.approx(wilson(1.0, 30))
    assert clustered_rate([]) == (0.0, 0.0, 0.0, 1.0)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match=r"proportion must lie in \[0, 1\], got p=1.5"):
        wilson(1.5, 10)
    with pytest.raises(ValueError, match="successes must lie in"):
        wilson_counts(11, 10)


def test_ratio_interval_fieller() -> None:
    interval = ratio_interval(0.06, 0.01, 0.08, 0.01)
    assert interval is not None
    low, high = interval
    assert low < 0.75 < high
    for r in (low, high):  # the bounds solve (num - r·den)² = z²(num_se² + r²·den_se²)
        assert (0.06 - r * 0.08) ** 2 == pytest.approx(Z95 ** 2 * (0.01 ** 2 + r * r * 0.01 ** 2))
    assert ratio_interval(1.0, 0.0, 2.0, 0.0) == (0.5, 0.5)
    # wider than the delta method's symmetric interval on the side of a small denominator
    assert high - 0.75 > 0.75 - low
    assert ratio_interval(0.06, 0.01, 0.02, 0.011) is None  # den within z·se of 0: unbounded
