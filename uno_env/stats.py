"""Win-rate statistics shared by evaluation (``training``) and tournaments (``tournament``).

It sits in ``uno_env`` because both layers above may import it and it needs nothing but
``math``. Every interval contains its estimate exactly: rounding can put the textbook Wilson
bound a hair inside ``p`` (``wilson(0, 3)`` gave a lower bound of 5.6e-17), so ``p = 0``
gives a lower bound of exactly 0, ``p = 1`` an upper bound of exactly 1, and the bounds are
clamped to ``[0, p]`` and ``[p, 1]``.

The deal-clustered interval: games of one duplicate deal share the cards, so the standard
error is the cluster-robust (blocked) one of the ratio estimator,
``SE² = B/(B-1) · Σ_b (w_b - p·n_b)² / (Σ_b n_b)²`` over the ``B`` deals, and the 95% interval
is the Wilson interval on the effective number of games ``n_eff = p(1-p)/SE²``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054  # the two-sided 95% quantile of the standard normal


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` observed over ``n`` trials
    (``(0, 1)`` when ``n <= 0``: nothing observed)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"a proportion must lie in [0, 1], got p={p!r}")
    if n <= 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if p == 0.0 else min(p, max(0.0, centre - half))
    high = 1.0 if p == 1.0 else max(p, min(1.0, centre + half))
    return low, high


def wilson_counts(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """:func:`wilson` of ``successes`` out of ``n`` trials."""
    if not 0 <= successes <= max(n, 0):
        raise ValueError(f"successes must lie in [0, n], got {successes} of {n}")
    return wilson(successes / n if n > 0 else 0.0, n, z)


def clustered_rate(clusters: Sequence[tuple[int, int]]) -> tuple[float, float, float, float]:
    """``(p, se, low, high)`` for ``(wins, games)`` per cluster (deal): the ratio estimate,
    its cluster-robust standard error and the 95% Wilson interval on ``n_eff``."""
    n = sum(g for _, g in clusters)
    if n == 0:
        return 0.0, 0.0, 0.0, 1.0
    p = sum(w for w, _ in clusters) / n
    b = len(clusters)
    if b < 2:
        lo, hi = wilson(p, n)
        return p, math.sqrt(p * (1 - p) / n), lo, hi
    var = b / (b - 1) * sum((w - p * g) ** 2 for w, g in clusters) / (n * n)
    se = math.sqrt(var)
    if p in (0.0, 1.0) or var == 0.0:
        n_eff = float(n) if p in (0.0, 1.0) else math.inf
    else:
        n_eff = p * (1 - p) / var
    if math.isinf(n_eff):
        return p, se, p, p
    lo, hi = wilson(p, n_eff)
    return p, se, lo, hi


def ratio_interval(num: float, num_se: float, den: float, den_se: float, z: float = Z95
                   ) -> tuple[float, float] | None:
    """Fieller's interval for ``num / den`` from two independent estimates with standard
    errors; ``None`` when ``den`` is not distinguished from 0 at this level (``|den| <=
    z·den_se``: the set of ratios the data allow is then unbounded, so no interval is
    stated). Solves ``(num - r·den)² = z²(num_se² + r²·den_se²)`` for ``r``."""
    a = den * den - z * z * den_se * den_se
    if a <= 0.0:
        return None
    b = num * den
    c = num * num - z * z * num_se * num_se
    root = math.sqrt(max(0.0, b * b - a * c))
    return (b - root) / a, (b + root) / a
