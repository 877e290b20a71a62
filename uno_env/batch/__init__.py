"""The compiled batch engine: many games advanced in lockstep by numba kernels.

The kernels mirror the pure-Python engine module by module (``rng``, ``piles`` and ``deal``
for G-deal/G-reshuffle, ``legal`` for the decisions, ``play`` for effects, ``scoring``,
``observation``) over struct-of-arrays state (``layout``); ``uno_env.batch.vector`` is the
user-facing adapter. The Python engine is the reference: ``tests/test_batch_diff.py``
compares both decision by decision.
"""
