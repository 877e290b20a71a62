"""A worker process's rollout batch in shared memory.

A rollout is about a kilobyte per trainable decision (the observation), ~10 MB per worker
and rollout at the shipped config. Sent through a pipe it was pickled by the worker, copied
through the kernel and unpickled by the learner (four copies, on both sides' cores); here
the worker writes its batch once into a block both processes map and sends only the row
count, and the learner reads the rows in place (``merge`` copies them out before the next
rollout is launched into the same block).
"""

from __future__ import annotations

from multiprocessing import shared_memory
from typing import Any

import numpy as np

# the fields of DecisionBuffer.batch: dtype and columns (None: one value per row)
FIELDS: dict[str, tuple[Any, str | None]] = {
    "obs": (np.float32, "obs_dim"), "mask": (np.bool_, "num_actions"), "act": (np.int64, None),
    "logp": (np.float32, None), "teacher": (np.int64, None), "extra": (np.float32, "extra"),
    "adv": (np.float32, None), "ret": (np.float32, None)}
ALIGN = 64


class SharedBatch:
    """Room for ``rows`` decisions of every batch field in one shared-memory block; created
    by the learner (``name=None``), attached by its worker (``name`` of the learner's)."""

    def __init__(self, rows: int, dims: dict[str, int], name: str | None = None) -> None:
        self.rows = int(rows)
        self.dims = dict(dims)
        layout, size = [], 0
        for field, (dtype, cols) in FIELDS.items():
            shape = (self.rows,) if cols is None else (self.rows, int(self.dims[cols]))
            layout.append((field, dtype, shape, size))
            size += -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // ALIGN) * ALIGN
        self.owner = name is None
        # a spawned worker shares the learner's resource tracker: its attach registers the
        # name the learner registered, and the learner's unlink unregisters it for both
        self.shm = shared_memory.SharedMemory(name=name, create=self.owner, size=max(size, 1))
        self.arrays = {field: np.ndarray(shape, dtype, self.shm.buf, offset)
                       for field, dtype, shape, offset in layout}

    @property
    def name(self) -> str:
        return self.shm.name

    def spec(self) -> tuple[int, dict[str, int], str]:
        """What the worker needs to attach: ``SharedBatch(*spec)``."""
        return self.rows, self.dims, self.name

    def write(self, batch: dict[str, np.ndarray]) -> int:
        """Copy a batch in (the worker); returns its row count."""
        m = len(batch["act"])
        if m > self.rows:
            raise ValueError(f"a rollout of {m} decisions for a shared batch of {self.rows}")
        for field, arr in self.arrays.items():
            arr[:m] = batch[field]
        return m

    def read(self, m: int) -> dict[str, np.ndarray]:
        """The first ``m`` rows, in place (the learner): valid until the worker writes again."""
        return {field: arr[:m] for field, arr in self.arrays.items()}

    def close(self) -> None:
        self.arrays = {}
        self.shm.close()
        if self.owner:
            self.shm.unlink()
