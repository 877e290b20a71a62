"""An agent in its own resource-limited process, spoken to in JSON lines (the protocol).

The process gets a memory limit (``RLIMIT_AS``), a CPU limit (``RLIMIT_CPU``, renewed for
every game when it serves several), no core dumps, and dies with the runner
(``PR_SET_PDEATHSIG``), so a runner killed with SIGKILL leaves no agent behind. Unless the
agent is trusted it runs in a sandbox (:mod:`uno_env.tournament.sandbox`): its own
namespaces, a private view of the files, and the memory and CPU limits measured over its
whole process tree by a watcher thread; a stop kills the namespace, so every process it
started. A trusted agent runs in a session of its own, and a stop kills that session.
Stderr is read by the same watcher thread into a bounded buffer (the last ``stderr_bytes``
bytes are kept). Wall-clock limits are the caller's: :meth:`AgentProcess.ask` waits for one
line until a deadline.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from uno_env.tournament import sandbox
from uno_env.tournament.protocol import MAX_LINE_BYTES, AgentFault, encode

PROCESS_LIFETIMES = ("game", "match")


@dataclass(frozen=True)
class Limits:
    """The limits of an agent process; the times are in seconds (sent in ms)."""

    move: float = 1.0
    """Time for one decision; what a decision takes beyond it comes out of the bank."""
    bank: float = 10.0
    """Overage bank for one game: a decision times out when it would overdraw it."""
    first_move: float = 10.0
    """Time for an agent's first decision of a game (it includes the process start-up)."""
    memory_mb: int | None = 2048
    """Address-space limit per process (``RLIMIT_AS``; node needs about 750 MiB of it to
    start); in a sandbox also the limit of its processes' memory together."""
    cpu: float | None = 60.0
    """CPU seconds per game (``RLIMIT_CPU``; in a sandbox also of its processes together):
    catches agents that burn several cores."""
    process: str = "game"
    """``game``: a fresh process for every game; ``match``: a process serves the games its
    worker plays for that agent and seat (restarted after any fault)."""
    stderr_bytes: int = 4096

    def validate(self) -> None:
        for name in ("move", "bank", "first_move", "cpu"):
            value = getattr(self, name)
            if value is None and name == "cpu":
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    0 < value < math.inf):
                raise ValueError(f"limit {name}={value!r} is not valid; allowed: a positive "
                                 f"number of seconds{' or None' if name == 'cpu' else ''}")
        if self.memory_mb is not None and (not isinstance(self.memory_mb, int)
                                           or self.memory_mb < 64):
            raise ValueError(f"memory_mb={self.memory_mb!r} is not valid; allowed: None or "
                             "an integer >= 64")
        if self.process not in PROCESS_LIFETIMES:
            raise ValueError(f"process={self.process!r} is not valid; allowed: "
                             f"{', '.join(PROCESS_LIFETIMES)}")

    def message(self) -> dict[str, Any]:
        """The limits as sent in ``hello`` (milliseconds)."""
        return {"move_ms": round(self.move * 1000), "bank_ms": round(self.bank * 1000),
                "first_move_ms": round(self.first_move * 1000), "memory_mb": self.memory_mb,
                "cpu_s": self.cpu, "process": self.process}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_PR_SET_PDEATHSIG = 1


def _limit_child(memory_mb: int | None, cpu: float | None, parent: int) -> None:
    """In the child before exec: rlimits, no core files, die with the parent."""
    import resource

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_mb is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    if cpu is not None:
        secs = math.ceil(cpu)
        resource.setrlimit(resource.RLIMIT_CPU, (secs, secs + 1))


class AgentProcess:
    """One running agent program: write a message, read one answer line by a deadline."""

    def __init__(self, argv: Sequence[str], limits: Limits, cwd: str | None = None,
                 env: dict[str, str] | None = None, sandboxed: bool = False,
                 files: Sequence[str] = ()) -> None:
        """Start ``argv`` in ``cwd``; ``sandboxed``: in a sandbox that shows it ``files``
        (read-only) and ``env`` as its whole environment."""
        self.argv = list(argv)
        self.limits = limits
        self.tree: sandbox.Tree | None = None
        self._fault: AgentFault | None = None
        mem, cpu, me = limits.memory_mb, limits.cpu, os.getpid()
        run, info = self.argv, -1
        pass_fds: tuple[int, ...] = ()
        if sandboxed:
            where = os.path.abspath(cwd or os.getcwd())
            info, info_w = os.pipe()
            pass_fds = (info_w,)
            run = sandbox.command(self.argv, where, sandbox.environment(env), files, info_w)
            env = {}  # bwrap's own environment is readable in the sandbox (/proc/1/environ)
        try:
            self.proc = subprocess.Popen(
                run, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=cwd, env=env, start_new_session=True,
                pass_fds=pass_fds, preexec_fn=lambda: _limit_child(mem, cpu, me))
        except OSError as err:
            raise AgentFault("crash", f"cannot start {run[0]!r}: {err.strerror or err}"
                             ) from None
        finally:
            for fd in pass_fds:
                os.close(fd)
        if sandboxed:
            pid = sandbox.read_child_pid(info)
            with contextlib.suppress(OSError):
                self.tree = sandbox.Tree(pid) if pid is not None else None
        assert self.proc.stdout is not None and self.proc.stderr is not None
        assert self.proc.stdin is not None
        self._out = self.proc.stdout.fileno()
        self._in = self.proc.stdin.fileno()
        os.set_blocking(self._out, False)
        os.set_blocking(self._in, False)
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._buf = b""
        self._err = bytearray()
        self._err_done = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self._watcher = threading.Thread(target=self._watch, daemon=True)
        self._watcher.start()

    def _watch(self) -> None:
        """Drain stderr into the buffer and, in a sandbox, hold the limits of the whole
        process tree; ends when woken by :meth:`kill` (or at stderr's end when no tree)."""
        assert self.proc.stderr is not None
        err = self.proc.stderr.fileno()
        keep = self.limits.stderr_bytes
        poll = select.poll()
        poll.register(self._wake_r, select.POLLIN)
        poll.register(err, select.POLLIN | select.POLLHUP)
        step = round(sandbox.POLL_S * 1000)
        while True:
            ready = {fd for fd, _ in poll.poll(step if self.tree is not None else None)}
            if self._wake_r in ready:
                return
            if err in ready:
                chunk = b""
                with contextlib.suppress(OSError):
                    chunk = os.read(err, 65536)
                if chunk:
                    self._err += chunk
                    if len(self._err) > 2 * keep:
                        del self._err[:-keep]
                else:  # every holder of stderr is gone
                    poll.unregister(err)
                    self._err_done.set()
                    if self.tree is None:
                        return
            if self.tree is not None and self._fault is None:
                self._hold_limits(self.tree)

    def _hold_limits(self, tree: sandbox.Tree) -> None:
        """Kill the sandbox when its processes together pass a limit; :meth:`_died` then
        gives this fault."""
        memory, cpu, count = tree.usage()
        lim = self.limits
        if lim.memory_mb is not None and memory > lim.memory_mb << 20:
            self._fault = AgentFault("crash", f"its processes used {memory >> 20} MiB "
                                     f"together (memory limit {lim.memory_mb} MiB)")
        elif lim.cpu is not None and cpu > lim.cpu:
            self._fault = AgentFault("timeout", f"CPU limit ({lim.cpu} s per game) exceeded "
                                     "by its processes together")
        elif count > sandbox.MAX_PROCESSES:
            self._fault = AgentFault("crash", f"started more than {sandbox.MAX_PROCESSES} "
                                     "processes")
        if self._fault is not None:
            tree.kill()

    def stderr(self) -> str:
        """The last ``stderr_bytes`` of what the agent wrote to stderr."""
        return bytes(self._err[-self.limits.stderr_bytes:]).decode("utf-8", "replace")

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, message: dict[str, Any], deadline: float | None = None) -> None:
        """Write one message by ``deadline`` (default: 2 s from now): an agent that stops
        reading its stdin cannot stall the runner. Output the agent wrote without being
        asked is ``invalid``."""
        self._read_available()
        if self._buf:
            raise AgentFault("invalid", "wrote to stdout without being asked: "
                             f"{self._buf[:80].decode('utf-8', 'replace')!r}")
        data = memoryview(encode(message))
        end = time.monotonic() + 2.0 if deadline is None else deadline
        while data:
            try:
                data = data[os.write(self._in, data):]
            except BlockingIOError:
                left = end - time.monotonic()
                if left <= 0:
                    raise AgentFault("timeout", "does not read its stdin") from None
                select.select([], [self._in], [], left)
            except OSError:  # BrokenPipeError, ConnectionResetError: it has gone
                raise self._died() from None

    def ask(self, deadline: float) -> bytes:
        """The next line the agent writes, by ``deadline`` (``time.monotonic()``)."""
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE_BYTES:
                raise AgentFault("invalid", f"answer longer than {MAX_LINE_BYTES} bytes "
                                 "without a newline")
            left = deadline - time.monotonic()
            if left <= 0:
                raise AgentFault("timeout", "no answer in time")
            if self._poll.poll(max(1, math.ceil(left * 1000))) and not self._read_available():
                raise self._died()
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def _read_available(self) -> bool:
        """Read what is there; False at end of file (the agent closed stdout or exited)."""
        while True:
            try:
                chunk = os.read(self._out, 65536)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            self._buf += chunk
            if len(self._buf) > MAX_LINE_BYTES:
                return True

    def _died(self) -> AgentFault:
        """The fault of an agent whose output ended: how it exited, and its stderr."""
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return self._fault or AgentFault("crash", "closed its stdout")
        if self._fault is not None:
            return self._fault
        if self.tree is not None and code > 128:  # bwrap exits 128 + the signal's number
            code = 128 - code
        if code == -signal.SIGXCPU:
            return AgentFault("timeout", f"CPU limit ({self.limits.cpu} s per game) exceeded")
        how = f"killed by {_signal_name(-code)}" if code < 0 else f"exited with code {code}"
        self._err_done.wait(timeout=1)
        text = self.stderr()
        if self.limits.memory_mb is not None and ("MemoryError" in text
                                                  or "out of memory" in text):
            how += f" (memory limit {self.limits.memory_mb} MiB)"
        return AgentFault("crash", how)

    def renew_cpu(self) -> None:
        """Give the process (each of a sandbox's) a fresh CPU allowance (a new game in
        ``match`` mode)."""
        if self.limits.cpu is None:
            return
        import resource

        if self.tree is not None:
            self.tree.renew()
        for pid in self.tree.pids() if self.tree is not None else [self.proc.pid]:
            with contextlib.suppress(OSError, ValueError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                used = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
                secs = math.ceil(used + self.limits.cpu)
                resource.prlimit(pid, resource.RLIMIT_CPU, (secs, secs + 1))

    def close(self, grace: float = 0.5) -> bool:
        """End the agent: close its stdin, give it ``grace`` seconds, then kill its session.
        True when it exited by itself in that time."""
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        exited = False
        if grace > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=grace)
                exited = True
        self.kill()
        return exited

    def kill(self) -> None:
        """Kill the agent and every process it started (in a sandbox: the whole namespace;
        trusted: its session), stop the watcher, close every pipe."""
        if self.tree is not None:
            self.tree.kill()
            self.tree.wait(timeout=5)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")
            self._watcher.join(timeout=5)
            os.close(self._wake_w)
            os.close(self._wake_r)
            self._wake_w = self._wake_r = -1
        for stream in (self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        if self.tree is not None:
            self.tree.close()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
