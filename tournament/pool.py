"""Worker processes that play games, one at a time each; a worker that dies is replaced.

The host gives each worker one :class:`~uno_env.tournament.game.GameTask` at a time and
knows which game every worker is playing; each worker writes, into memory it shares with
the host, the seat whose agent it is waiting for and the actions taken so far. So when a
worker dies (killed by a trusted agent, by the kernel's OOM killer, ...), its game is
recorded as a crash forfeit of the agent it was waiting for (``game.lost_game``), a fresh
worker takes its place, and the tournament goes on: the host alone writes the records.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from uno_env.aec import DEFAULT_MAX_STEPS
from uno_env.tournament.game import GameTask, lost_game, play_game

_SEAT, _COUNT, _HEAD = 0, 1, 2
"""Layout of the shared array: the seat waited for (-1: none), the number of actions,
then the actions."""


class WorkerDied(RuntimeError):
    """A game killed two workers before any seat's turn: no agent to blame."""


class _Shared:
    """The game progress a worker shares with the host (a :class:`~.game.Tracker`)."""

    def __init__(self, array: Any) -> None:
        self.array = array

    def turn(self, seat: int) -> None:
        self.array[_SEAT] = seat

    def action(self, action: int) -> None:
        count = self.array[_COUNT]
        if _HEAD + count < len(self.array):
            self.array[_HEAD + count] = action
            self.array[_COUNT] = count + 1


def _serve(conn: Any, array: Any, initializer: Callable[[], None]) -> None:
    """A worker: play each task the host sends, send back its record (or the error)."""
    initializer()
    shared = _Shared(array)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            conn.send(("ok", play_game(task, shared)))
        except Exception as err:  # noqa: BLE001 - a bug in the host code: the host raises it
            conn.send(("error", f"{type(err).__name__}: {err}\n{traceback.format_exc()}"))


class _Worker:
    def __init__(self, ctx: Any, capacity: int, initializer: Callable[[], None]) -> None:
        self.array = ctx.Array("q", _HEAD + capacity, lock=False)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.array, initializer),
                                daemon=True)
        self.proc.start()
        child.close()
        self.task: GameTask | None = None

    def give(self, task: GameTask) -> bool:
        """Send a task (False: the worker has died). The host clears the progress first, so
        a worker that dies before it reads the task leaves no stale actions of its last
        game."""
        self.array[_SEAT], self.array[_COUNT] = -1, 0
        try:
            self.conn.send(task)
        except OSError:
            return False
        self.task = task
        return True

    def lost(self) -> dict[str, Any] | None:
        """The record of the game this dead worker was playing (None: it was idle, or
        still dealing, before any seat's turn)."""
        task, self.task = self.task, None
        seat = int(self.array[_SEAT])
        if task is None or seat < 0:
            return None
        actions = [int(a) for a in self.array[_HEAD:_HEAD + self.array[_COUNT]]]
        return lost_game(task, actions, seat, "the worker process playing this game died "
                         f"(exit code {self.proc.exitcode}) in this agent's turn")

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=5)
        self.conn.close()


def play_on_workers(tasks: list[GameTask], workers: int,
                    initializer: Callable[[], None]) -> Iterator[dict[str, Any]]:
    """The records of ``tasks`` played on ``workers`` spawned processes, as they finish."""
    ctx = multiprocessing.get_context("spawn")
    capacity = max(t.max_steps or DEFAULT_MAX_STEPS for t in tasks)
    queue = deque(tasks)
    retried: set[int] = set()
    pool: list[_Worker] = []

    def assign(i: int) -> None:
        """Give worker ``i`` the next game, replacing it if it has died meanwhile."""
        while queue and not pool[i].give(queue[0]):
            pool[i].stop()
            pool[i] = _Worker(ctx, capacity, initializer)
        if queue:
            queue.popleft()

    try:
        for i in range(min(workers, len(tasks))):
            pool.append(_Worker(ctx, capacity, initializer))
            assign(i)
        while any(w.task is not None for w in pool):
            busy = [w for w in pool if w.task is not None]
            ready = set(multiprocessing.connection.wait(
                [w.conn for w in busy] + [w.proc.sentinel for w in busy]))
            for i, w in enumerate(pool):
                if w.task is None or not (w.conn in ready or w.proc.sentinel in ready):
                    continue
                record = None
                if w.conn.poll():
                    try:
                        kind, record = w.conn.recv()
                    except (EOFError, OSError):
                        kind = "died"
                    if kind == "error":
                        raise RuntimeError(f"game {w.task.index} failed in a worker: {record}")
                    if kind == "ok":
                        w.task = None
                if w.task is not None or not w.proc.is_alive():  # it died
                    w.proc.join(timeout=5)
                    if w.task is not None:
                        task = w.task
                        record = w.lost()
                        if record is None:  # before any turn: deal it again, once
                            if task.index in retried:
                                raise WorkerDied(f"game {task.index} killed two workers "
                                                 "before any agent's turn")
                            retried.add(task.index)
                            queue.appendleft(task)
                    w.conn.close()
                    pool[i] = _Worker(ctx, capacity, initializer)
                if record is not None:
                    yield record
                assign(i)
    finally:
        for w in pool:
            w.stop()
