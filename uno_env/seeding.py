"""Seeds for the things around a game (agents, deals of an evaluation, a trainer's random
streams), derived from one run seed in one way: NumPy's ``SeedSequence``, which hashes its
entropy so that neighbouring inputs give unrelated seeds, and which gives the same numbers on
every platform. (The engine's own generator is :mod:`uno_env.rules.rng`.)
"""

from __future__ import annotations

import numpy as np

SLOT_STRIDE = 7919  # a prime: seat seeds of neighbouring slots never coincide


def derive_seed(*path: int) -> int:
    """A 32-bit seed that is a pure function of ``path`` (``derive_seed(seed, game, seat)``)."""
    return int(np.random.SeedSequence(list(path)).generate_state(1)[0])


def streams(seed: int, count: int) -> list[np.random.SeedSequence]:
    """``count`` independent child sequences of ``seed``, one per purpose (dealing, sampling,
    seating, ...); ``np.random.default_rng(child)`` turns one into a generator."""
    return list(np.random.SeedSequence(seed).spawn(count))


def slot_seed(base: int, slot: int, seat: int) -> int:
    """The seed of the agent in ``seat`` of the ``slot``-th parallel game of a batch whose
    agents are seeded from ``base`` (the self-play trainer and its evaluator)."""
    return base + SLOT_STRIDE * slot + seat
