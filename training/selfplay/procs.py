"""Rollout workers in their own processes: one :class:`VectorRollout` per process, driven over
a pipe by the learner, so that the workers play on every core and share the update
(:mod:`~uno_env.training.selfplay.sharded`), or play beside the learner's update with
``policy_lag: 1`` (docs/training.md, "Every core").

Each process is started with ``spawn`` (a fresh interpreter: no torch or OpenMP state copied
from the learner by ``fork``) and plays on one torch thread (one core each; ``threads`` is the
learner's): it is the program that owns that process. The learner's process is left as it
was. A worker writes each rollout's batch into a shared-memory block of the learner's
(:mod:`~uno_env.training.selfplay.shared`) and sends its row count, not the batch. A script
that trains with worker processes must guard its entry point with ``if __name__ ==
"__main__":``, as ``spawn`` imports it again in each worker.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import torch

from uno_env.training.config import SelfPlayConfig
from uno_env.training.selfplay.sharded import Minibatch, ShardRunner, ShardWorker
from uno_env.training.selfplay.shared import SharedArrays, SharedBatch, batch_shapes
from uno_env.training.selfplay.vector_rollout import VectorRollout
from uno_env.training.selfplay.workers import LocalWorkers, RayWorkers, Result

JOIN_S = 10.0  # how long close() waits for a worker to leave before ending it


def serve(conn: Connection, config: dict[str, Any], worker: int, threads: int) -> None:
    """A worker process's loop: ``(method, args)`` in, ``("ok", result)`` or ``("error",
    traceback)`` out, until ``close``. Its first answer is the room its batches need (rows,
    field widths); ``attach`` then names the learner's shared block they are written to, and
    ``run`` answers with the row count instead of the batch."""
    # Ctrl-C reaches the whole process group: the learner stops its workers (close)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    shared: list[SharedBatch] = []  # every worker's batch block (this worker's: [worker])
    grads: SharedArrays | None = None  # the weights and each worker's gradient
    shard: ShardWorker | None = None
    try:
        rollout = VectorRollout(config, worker, "cpu", threads)
        conn.send(("ok", (rollout.cap, {"obs_dim": rollout.env.obs_dim,
                                        "num_actions": rollout.env.num_actions,
                                        "extra": rollout.critic_extra})))
    except Exception:
        conn.send(("error", traceback.format_exc()))
        return
    try:
        while True:
            try:
                method, args = conn.recv()
            except EOFError:  # the learner is gone
                return
            if method == "close":
                return
            try:
                result: Any = None
                if method == "attach":  # the blocks of every worker's batch, the gradients'
                    shared = [SharedBatch(*spec) for spec in args[0]]
                    grads = SharedArrays(*args[1])
                elif method == "run" and shared:
                    batch, info = rollout.run(*args)
                    result = (shared[worker].write(batch), info)
                elif method == "grad" and grads is not None:
                    counts, idx, mb = args
                    if shard is None:  # the weights set by the launch: buffers included
                        shard = ShardWorker(rollout.net, rollout.critic_extra > 0)
                    g, result = shard.gradient(grads.arrays["weights"],
                                               [b.read(m) for b, m in zip(shared, counts,
                                                                         strict=True)],
                                               counts, idx, Minibatch(*mb))
                    grads.arrays["grads"][worker] = g
                else:
                    result = getattr(rollout, method)(*args)
                conn.send(("ok", result))
            except Exception:
                conn.send(("error", traceback.format_exc()))
    finally:
        for block in [*shared, *([grads] if grads is not None else [])]:
            block.close()


class ProcessWorkers(LocalWorkers):
    """``cfg.workers`` worker processes (CPU), each playing its share of the games."""

    def __init__(self, cfg: SelfPlayConfig, params: int) -> None:
        """``params``: the network's parameter count (the sharded update's blocks)."""
        ctx = mp.get_context("spawn")
        self.conns: list[Connection] = []
        self.procs: list[Any] = []
        self.shared: list[SharedBatch] = []
        self.grads: SharedArrays | None = None
        self.counts: list[int] = []  # the rows of the last rollout received, per worker
        self._busy = False
        for w in range(int(cfg.workers)):
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=serve, args=(theirs, cfg.to_dict(), w, 1),
                            name=f"uno-rollout-worker-{w}", daemon=True)
            p.start()
            theirs.close()
            self.conns.append(mine)
            self.procs.append(p)
        try:
            rooms = self._gather()  # each worker built its games (or says why not)
            self.shared = [SharedBatch(batch_shapes(rows, dims)) for rows, dims in rooms]
            self.grads = SharedArrays({"weights": (np.float32, (params,)),
                                       "grads": (np.float32, (len(self.conns), params))})
            specs = [block.spec() for block in self.shared]
            for conn in self.conns:
                conn.send(("attach", (specs, self.grads.spec())))
            self._gather()
        except BaseException:
            self.close()
            raise

    def _gather(self) -> list[Any]:
        out = []
        for w, conn in enumerate(self.conns):
            try:
                status, value = conn.recv()
            except EOFError:
                code = self.procs[w].exitcode
                raise RuntimeError(
                    f"rollout worker {w} exited (exit code {code}); workers start with spawn, "
                    "which imports the main script again: guard a training script's entry "
                    "point with if __name__ == '__main__':, or set worker_processes: false"
                ) from None
            if status == "error":
                raise RuntimeError(f"rollout worker {w} failed:\n{value}")
            out.append(value)
        return out

    def _all(self, method: str, *args: Any) -> list[Any]:
        if self._busy:
            raise RuntimeError(f"{method}() while a rollout is in flight; receive() it first")
        for conn in self.conns:
            conn.send((method, args))
        return self._gather()

    def start(self, teacher_coef: float) -> None:
        self._all("start", teacher_coef)

    def set_weights(self, state_dict: dict[str, torch.Tensor]) -> None:
        self._all("set_weights", state_dict)

    def add_frozen(self, version: int, state_dict: dict[str, torch.Tensor]) -> None:
        self._all("add_frozen", version, state_dict)

    def submit(self, teacher_coef: float) -> None:
        if self._busy:
            raise RuntimeError("submit() while a rollout is in flight; receive() it first")
        for conn in self.conns:
            conn.send(("run", (teacher_coef,)))
        self._busy = True

    def receive(self) -> list[Result]:
        if not self._busy:
            raise RuntimeError("receive() with no rollout in flight; submit() one first")
        self._busy = False
        counts = self._gather()  # each batch is in its worker's shared block, read in place:
        self.counts = [m for m, _ in counts]  # valid until the next submit
        return [(block.read(m), info)
                for block, (m, info) in zip(self.shared, counts, strict=True)]

    def shard_runner(self, net: torch.nn.Module) -> ShardRunner:
        """The sharded update's gradients, one shard per worker, from the rollout received
        last (the workers are idle: ``policy_lag: 0``)."""
        assert self.grads is not None
        weights, grads = self.grads.arrays["weights"], self.grads.arrays["grads"]

        def run(parts: list[np.ndarray], mb: Minibatch) -> list[tuple[np.ndarray,
                                                                      dict[str, float]]]:
            with torch.no_grad():
                weights[:] = torch.cat([p.reshape(-1) for p in net.parameters()]).numpy()
            for conn, idx in zip(self.conns, parts, strict=True):
                conn.send(("grad", (self.counts, idx, mb.args())))
            stats = self._gather()
            return [(grads[w], st) for w, st in enumerate(stats)]
        return run

    def states(self) -> list[dict[str, Any]]:
        return self._all("state")

    def load_states(self, states: list[dict[str, Any]]) -> None:
        if len(states) != len(self.conns):
            raise ValueError(f"{len(states)} worker states for {len(self.conns)} workers")
        for conn, st in zip(self.conns, states, strict=True):
            conn.send(("load_state", (st,)))
        self._gather()

    def close(self) -> None:
        """Ask each worker to leave (after the rollout it may be playing), then end it."""
        for conn in self.conns:
            with contextlib.suppress(BrokenPipeError, OSError):  # a worker already gone
                conn.send(("close", ()))
        for p in self.procs:
            p.join(JOIN_S if not self._busy else 0.1)
            if p.is_alive():
                p.terminate()
                p.join()
        for conn in self.conns:
            conn.close()
        for block in [*self.shared, *([self.grads] if self.grads is not None else [])]:
            block.close()
        self.conns, self.procs, self.shared, self.grads = [], [], [], None
        self._busy = False


def make_workers(cfg: SelfPlayConfig, device: str, params: int) -> LocalWorkers:
    """The workers of a resolved config (:meth:`SelfPlayConfig.resolved`); ``params``: the
    network's parameter count."""
    if cfg.ray:
        return RayWorkers(cfg, device)
    if int(cfg.workers) > 1 and cfg.worker_processes:
        return ProcessWorkers(cfg, params)
    return LocalWorkers(cfg, device)
