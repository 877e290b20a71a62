"""Arrays in shared memory between the learner and its worker processes.

A rollout is about a kilobyte per trainable decision (the observation), ~10 MB per worker
and rollout at the shipped config. Sent through a pipe it was pickled by the worker, copied
through the kernel and unpickled by the learner (four copies, on both sides' cores); here
the worker writes its batch once into a block both processes map (:class:`SharedBatch`) and
sends only the row count. The sharded update (:mod:`~uno_env.training.selfplay.sharded`)
likewise passes the weights and each worker's gradients through a block
(:class:`SharedArrays`), and the workers read the minibatch rows from every worker's batch.
"""

from __future__ import annotations

from multiprocessing import shared_memory
from typing import Any

import numpy as np

ALIGN = 64
Shapes = dict[str, tuple[Any, tuple[int, ...]]]  # name -> (dtype, shape)


class SharedArrays:
    """Named arrays in one shared-memory block: created by the learner (``name=None``),
    attached by a worker (``SharedArrays(*block.spec())``); the learner unlinks it."""

    def __init__(self, shapes: Shapes, name: str | None = None) -> None:
        self.shapes = {k: (np.dtype(d).str, tuple(int(x) for x in s))
                       for k, (d, s) in shapes.items()}
        layout, size = [], 0
        for field, (dtype, shape) in self.shapes.items():
            layout.append((field, dtype, shape, size))
            size += -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // ALIGN) * ALIGN
        self.owner = name is None
        # a spawned worker shares the learner's resource tracker: its attach registers the
        # name the learner registered, and the learner's unlink unregisters it for both
        self.shm = shared_memory.SharedMemory(name=name, create=self.owner, size=max(size, 1))
        self.arrays = {field: np.ndarray(shape, dtype, self.shm.buf, offset)
                       for field, dtype, shape, offset in layout}

    def spec(self) -> tuple[Shapes, str]:
        return self.shapes, self.shm.name

    def close(self) -> None:
        self.arrays = {}
        self.shm.close()
        if self.owner:
            self.shm.unlink()


# the fields of DecisionBuffer.batch: dtype and columns (None: one value per row)
FIELDS: dict[str, tuple[Any, str | None]] = {
    "obs": (np.float32, "obs_dim"), "mask": (np.bool_, "num_actions"), "act": (np.int64, None),
    "logp": (np.float32, None), "teacher": (np.int64, None), "extra": (np.float32, "extra"),
    "adv": (np.float32, None), "ret": (np.float32, None)}


def batch_shapes(rows: int, dims: dict[str, int]) -> Shapes:
    """Room for ``rows`` decisions of every batch field (``dims``: the field widths)."""
    return {f: (d, (rows,) if c is None else (rows, int(dims[c]))) for f, (d, c) in FIELDS.items()}


class SharedBatch(SharedArrays):
    """A worker's rollout batch: the worker writes it, the learner reads it in place."""

    def write(self, batch: dict[str, np.ndarray]) -> int:
        """Copy a batch in (the worker); returns its row count."""
        m = len(batch["act"])
        rows = len(self.arrays["act"])
        if m > rows:
            raise ValueError(f"a rollout of {m} decisions for a shared batch of {rows}")
        for field, arr in self.arrays.items():
            arr[:m] = batch[field]
        return m

    def read(self, m: int) -> dict[str, np.ndarray]:
        """The first ``m`` rows, in place (the learner): valid until the worker writes again."""
        return {field: arr[:m] for field, arr in self.arrays.items()}
