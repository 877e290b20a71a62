"""The sandbox of an agent process: bubblewrap namespaces, a private view of the files, and
limits that hold for the agent's whole process tree (``docs/sandbox.md``).

Every agent program runs under ``bwrap`` (Debian's ``bubblewrap`` package) in PID, network,
mount, IPC, UTS, cgroup and user namespaces of its own, as an unprivileged user with no
capabilities: it sees the system's programs and libraries, the Python runtime and this
project's packages, and the files named on its command line, all read-only; a private
``/tmp`` of :data:`TMP_MB` MiB; its own ``/proc``; no network but an unconnected loopback;
nothing of the tournament's folder, of the host's processes or of other agents. Killing the
namespace's first process kills every process the agent started.

Memory and CPU limits hold for the whole tree: each process keeps the host's ``RLIMIT_AS``
and ``RLIMIT_CPU``, and :class:`Tree` measures the namespace's processes together (their
proportional set size and CPU time) every :data:`POLL_S` seconds, so the host kills the
sandbox when the sum passes the limit. (cgroups would be exact, but the machines this is
developed and tested on mount cgroup v1 with no controller in their cgroup v2 hierarchy;
polling works wherever ``bwrap`` does; docs/sandbox.md says what it leaves.)
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

TMP_MB = 64
"""Size of the agent's private ``/tmp`` (a tmpfs: its pages are not in any process's RSS)."""
POLL_S = 0.2
"""How often the host measures a sandbox's processes."""
MAX_PROCESSES = 64
"""More live processes than this in one sandbox is a crash (a fork bomb)."""
SANDBOX_UID = 65534
"""The agent runs as ``nobody`` inside its user namespace, with no capabilities."""

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
                "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf",
                "/etc/ld.so.conf.d", "/etc/localtime", "/etc/ssl/certs")
"""The system an agent sees (read-only); the rest of ``/etc`` (hosts, passwd, ...) is not
shown. A symlink (``/bin -> usr/bin`` on merged-/usr systems) is recreated as a symlink."""

TRUSTED_FLAG = "--trusted-agents"


class SandboxUnavailable(ValueError):
    """This host cannot build agent sandboxes (the runner refuses untrusted agents)."""


def _runtime_paths() -> list[str]:
    """The Python runtime and this project's packages: what hosted Python specs and
    ``cmd:python agent.py`` agents need (the interpreter, the venv, ``uno_env``)."""
    import uno_env

    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable))}
    package = Path(uno_env.__file__).resolve().parent
    paths.add(str(package))
    for entry in package.iterdir():  # uno_env/agents -> ../agents, ...: bind the targets
        if entry.is_symlink():
            paths.add(str(entry.resolve()))
    return sorted(p for p in paths if os.path.exists(p))


def _holds(folder: str, path: str) -> bool:
    """Whether ``folder`` is ``path`` or one of its parents."""
    return _under(os.path.realpath(path), os.path.realpath(folder))


def _under(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies in it, by name (as the sandbox's mounts do)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def named_paths(argv: Sequence[str], cwd: str) -> list[str]:
    """The files and folders named on an agent's command line (relative to ``cwd``): the
    agent's own files, shown to it read-only. A folder that holds ``cwd`` (the tournament's
    folder, ``.``, ``/``) is never shown."""
    out = []
    for arg in argv:
        if not arg or arg.startswith("-"):
            continue
        path = os.path.normpath(os.path.join(cwd, arg))
        if os.path.exists(path) and not (os.path.isdir(path) and _holds(path, cwd)):
            out.append(path)
    return out


def command(argv: Sequence[str], cwd: str, env: dict[str, str], files: Iterable[str],
            info_fd: int, tmp_mb: int = TMP_MB) -> list[str]:
    """The ``bwrap`` command line that runs ``argv`` in a sandbox: ``cwd`` exists (empty but
    for ``files``), ``env`` is the whole environment, ``info_fd`` gets the child's pid."""
    exe = shutil.which("bwrap")
    if exe is None:
        raise SandboxUnavailable(problem() or "bwrap is not installed")
    # no user namespaces inside (bwrap >= 0.8; older ones still drop every capability)
    nested = ["--disable-userns"] if _version(exe) >= (0, 8) else []
    args = [exe, "--unshare-all", "--unshare-user", *nested,
            "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL",
            "--die-with-parent", "--new-session", "--info-fd", str(info_fd),
            "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
            "--size", str(tmp_mb << 20), "--tmpfs", "/tmp"]
    shown: list[str] = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
            shown.append(path)
    for path in [*_runtime_paths(), *files]:
        if not any(_under(path, folder) for folder in shown):  # there already
            args += ["--ro-bind", path, path]
            shown.append(path)
    args += ["--dir", cwd, "--chdir", cwd, "--remount-ro", "/", "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return [*args, "--", *argv]


@functools.cache
def _version(exe: str) -> tuple[int, ...]:
    """``bwrap --version`` as numbers ("bubblewrap 0.8.0" -> (0, 8, 0)); () if unknown."""
    try:
        text = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10,
                              check=False).stdout
        return tuple(int(x) for x in text.split()[-1].split("."))
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return ()


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a sandboxed agent: the host's ``PATH`` and locale, a home
    in the private ``/tmp``, and ``extra``; nothing else of the host's environment."""
    env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "HOME": "/tmp",
           "TMPDIR": "/tmp"}
    for key in ("LANG", "LC_ALL", "TZ"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra or {})
    return env


def read_child_pid(fd: int, timeout: float = 10.0) -> int | None:
    """The host pid of the sandbox's first process, from ``--info-fd`` (None: bwrap failed
    before starting it; its reason is on its stderr)."""
    data = b""
    poll = select.poll()
    poll.register(fd, select.POLLIN | select.POLLHUP)
    try:
        while b"}" not in data:
            if not poll.poll(round(timeout * 1000)):
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                return None
            data += chunk
        pid = json.loads(data[:data.index(b"}") + 1]).get("child-pid")
        return pid if isinstance(pid, int) else None
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


@functools.cache
def problem() -> str | None:
    """Why this host cannot build sandboxes, or None when it can (found once, by running
    the Python interpreter in one)."""
    if sys.platform != "linux":
        return f"agent sandboxes need Linux namespaces (bubblewrap); this is {sys.platform}"
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    read, write = os.pipe()
    try:
        argv = command([sys.executable, "-c", "pass"], "/tmp", environment(), (), write)
        done = subprocess.run(argv, pass_fds=(write,), capture_output=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError) as err:
        return f"bwrap could not be run: {err}"
    finally:
        os.close(write)
        os.close(read)
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip()[-300:]
        return f"bwrap failed (exit code {done.returncode}): {text or 'no message'}"
    return None


def require(cwd: str | None = None) -> None:
    """Raise :class:`SandboxUnavailable`, saying why and what to do, when sandboxes cannot
    be built here, or would show every agent the tournament's folder ``cwd``."""
    where = os.path.abspath(cwd or os.getcwd())
    for path in (*SYSTEM_PATHS, *_runtime_paths()):
        if os.path.isdir(path) and not os.path.islink(path) and _holds(path, where):
            raise SandboxUnavailable(
                f"the tournament's folder {where} lies in {path}, which every sandboxed "
                "agent sees: start the tournament from another folder")
    why = problem()
    if why is not None:
        raise SandboxUnavailable(
            f"cannot sandbox agent processes on this host: {why}. Agents that are not "
            f"sandboxed can read the tournament's files and harm the host: install "
            f"bubblewrap, or pass {TRUSTED_FLAG} (trusted_agents=True) to run only agents "
            "you trust without a sandbox")


class Tree:
    """The processes of one sandbox, found by their PID namespace: measured together and
    killed at once (SIGKILL to the namespace's first process ends them all)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        ns = os.stat(f"/proc/{pid}/ns/pid")
        self.ns = (ns.st_dev, ns.st_ino)
        self.baseline = 0.0

    def pids(self) -> list[int]:
        out = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    st = os.stat(f"/proc/{name}/ns/pid")
                except OSError:
                    continue
                if (st.st_dev, st.st_ino) == self.ns:
                    out.append(int(name))
        return out

    def usage(self) -> tuple[int, float, int]:
        """(bytes of memory, CPU seconds since :meth:`renew`, live processes) of the tree.
        Memory is the proportional set size (shared pages split between their users); CPU
        time counts the processes alive and the children they have reaped."""
        memory, ticks, count = 0, 0, 0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                ticks += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
                memory += _pss(pid)
                count += 1
            except (OSError, ValueError, IndexError):
                continue  # it exited meanwhile
        return memory, ticks / os.sysconf("SC_CLK_TCK") - self.baseline, count

    def renew(self) -> None:
        """Start counting CPU time afresh (a new game for a process kept between games)."""
        self.baseline += self.usage()[1]

    def kill(self) -> None:
        if self.pidfd < 0:
            return
        with contextlib.suppress(ProcessLookupError, OSError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def wait(self, timeout: float) -> bool:
        """Wait until the first process has exited, which it does only once every other
        process of the namespace is gone; False if it is still there after ``timeout``."""
        if self.pidfd < 0:  # closed: it was waited for
            return True
        poll = select.poll()
        poll.register(self.pidfd, select.POLLIN)
        return bool(poll.poll(round(timeout * 1000)))

    def close(self) -> None:
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1


def _pss(pid: int) -> int:
    """Proportional set size of a process in bytes (its RSS where smaps_rollup is absent)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) << 10
    except OSError:
        pass
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
