"""The seats of a game: an agent spec made into something that answers each decision.

Two kinds of seat, one contract (``begin`` a game, ``act`` on each decision, ``end`` it);
any failure is an :class:`~uno_env.tournament.protocol.AgentFault` that forfeits the game:

* :class:`InProcessSeat`: a Python agent (``random``, ``rule``, ``ppo:...``, ``sb3:...``,
  ``py:MODULE:NAME``) called directly: fast, but with no time or memory limit;
* :class:`ProcessSeat`: a program spoken to over the stdio protocol, with the limits of
  :class:`~uno_env.tournament.process.Limits`: every ``cmd:PROGRAM ARGS`` spec, and the Python
  specs too when the tournament sets a time limit (they run in :mod:`uno_env.tournament.host`).
  Unless the agents are trusted, each process runs in a sandbox
  (:mod:`uno_env.tournament.sandbox`) that shows it :func:`agent_files` only.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.tournament import protocol
from uno_env.tournament.process import AgentProcess, Limits
from uno_env.tournament.protocol import AgentFault

CMD_PREFIX = "cmd:"


# --- Python agents ---------------------------------------------------------------------------
def load_agent(spec: str, variant: str, num_players: int, seed: int | None,
               options: dict[str, Any]) -> Any:
    """``agents.load(spec, ...)``, plus ``py:MODULE:NAME`` for any importable agent factory
    (called as ``NAME(variant=, num_players=, seed=, **options)``)."""
    if spec.startswith(CMD_PREFIX):
        raise ValueError(f"agent spec {spec!r} is a program: it plays through the protocol, "
                         "not in this process")
    if spec.startswith("py:"):
        module, _, name = spec[3:].partition(":")
        if not module or not name:
            raise ValueError(f"agent spec {spec!r} must look like py:MODULE:NAME")
        factory = getattr(importlib.import_module(module), name)
        return factory(variant=variant, num_players=num_players, seed=seed, **options)
    from uno_env import agents

    return agents.load(spec, variant=variant, num_players=num_players, seed=seed, **options)


def command(spec: str) -> list[str]:
    """The argv of a ``cmd:PROGRAM ARGS`` spec (split like a shell, no shell run)."""
    argv = shlex.split(spec[len(CMD_PREFIX):])
    if not argv:
        raise ValueError(f"agent spec {spec!r} names no program; write cmd:PROGRAM ARGS")
    return argv


def check_agent(spec: str, variant: str, num_players: int, options: dict[str, Any],
                cwd: str | None = None) -> None:
    """A ``ValueError`` saying why ``spec`` cannot play this configuration (a Python agent is
    loaded once; a program must exist and be executable)."""
    try:
        if spec.startswith(CMD_PREFIX):
            program = command(spec)[0]
            if os.sep in program:
                path = Path(cwd or ".") / program
                if not (path.is_file() and os.access(path, os.X_OK)):
                    raise ValueError(f"{program!r} is not an executable file (a path is "
                                     "relative to the folder the tournament runs in)")
            elif shutil.which(program) is None:
                raise ValueError(f"{program!r} is not a program on PATH")
        else:
            load_agent(spec, variant, num_players, 0, options)
    except (OSError, ImportError, AttributeError, TypeError, ValueError) as err:
        raise ValueError(f"agent {spec!r} cannot play {variant} with {num_players} players: "
                         f"{err}") from err


def agent_files(spec: str, argv: list[str], cwd: str) -> list[str]:
    """The host files a sandboxed agent sees besides the system and the Python runtime: the
    program (given by its path) and the files named on its command line; for a hosted
    Python spec, its
    checkpoint (``ppo:PATH``, ``sb3:PATH``) or its module (``py:MODULE:NAME``)."""
    from uno_env.tournament.sandbox import named_paths

    if spec.startswith(CMD_PREFIX):
        # a bare program name is looked up on PATH inside the sandbox, among the system's
        # and the Python runtime's programs (a pyenv shim on the host's PATH would need all
        # of pyenv): a program elsewhere is named by its path
        return named_paths(argv if os.sep in argv[0] else argv[1:], cwd)
    kind, _, rest = spec.partition(":")
    if kind == "py":
        import importlib.util

        found = importlib.util.find_spec(rest.partition(":")[0].split(".")[0])
        places = [] if found is None else list(found.submodule_search_locations or [])
        if found is not None and found.origin and not places:
            places = [found.origin]
        return named_paths(places, cwd)
    return named_paths([rest], cwd) if rest else []


def host_command(spec: str) -> list[str]:
    """The argv that serves a Python spec over the protocol."""
    return [sys.executable, "-m", "uno_env.tournament.host", spec]


def host_environment() -> dict[str, str]:
    """The hosted agent imports what this process imports: the same ``sys.path``; one
    thread for the numerical libraries (the parallelism is the processes)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.setdefault(var, "1")
    return env


# --- seats -----------------------------------------------------------------------------------
class InProcessSeat:
    """A Python agent called in this process (reseeded for every game)."""

    def __init__(self, agent: Any, spec: str) -> None:
        self.agent = agent
        self.spec = spec

    def begin(self, env: Any, game: int, seat: int, seed: int) -> None:
        self.agent.reset()

    def act(self, env: Any, obs: np.ndarray, mask: np.ndarray, step: int) -> int:
        try:
            action = self.agent.act(obs, mask)
        except Exception as err:  # any agent failure forfeits the game, never the tournament
            raise AgentFault("crash", f"raised {type(err).__name__}: {err}"[:300]) from None
        if not (isinstance(action, int | np.integer) and not isinstance(action, bool)
                and 0 <= int(action) < len(mask) and mask[action]):
            raise AgentFault("invalid", f"illegal action {action!r}"[:300])
        return int(action)

    def fault(self) -> None:
        pass

    def end(self, result: dict[str, Any]) -> None:
        pass

    def stderr(self) -> str:
        return ""

    def timing(self) -> dict[str, Any] | None:
        return None


class ProcessSeat:
    """An agent program: the time limits and bank of one game, over :class:`AgentProcess`."""

    def __init__(self, argv: list[str], limits: Limits, cwd: str | None,
                 env: dict[str, str] | None, files: list[str] | None = None) -> None:
        """``files``: run sandboxed, showing the agent these host files (None: trusted)."""
        self.argv, self.limits, self.cwd, self.env = argv, limits, cwd, env
        self.files = files
        self.proc: AgentProcess | None = None
        self._reset_clock()

    def _reset_clock(self) -> None:
        self.bank = self.limits.bank
        self.moves = 0
        self.total = self.first = self.slowest = 0.0
        self.exited: bool | None = None
        self.others: int | None = None

    def begin(self, env: Any, game: int, seat: int, seed: int) -> None:
        if self.proc is not None and self.proc.alive and self.limits.process == "match":
            self.proc.renew_cpu()
        else:
            self.close()
            self.proc = AgentProcess(self.argv, self.limits, self.cwd, self.env,
                                     sandboxed=self.files is not None, files=self.files or ())
        self._reset_clock()
        self.proc.send(protocol.hello(env, seat, game, seed, self.limits.message()))

    def act(self, env: Any, obs: np.ndarray, mask: np.ndarray, step: int) -> int:
        assert self.proc is not None
        first = self.moves == 0
        allow = self.limits.first_move if first else self.limits.move
        msg = protocol.act(env, obs, mask, step, round(allow * 1000), round(self.bank * 1000))
        t0 = time.monotonic()
        deadline = t0 + allow + self.bank
        try:
            self.proc.send(msg, deadline)
            line = self.proc.ask(deadline)
        except AgentFault as err:
            if err.reason != "no answer in time":
                raise
            what = "first-move" if first else "move"
            raise AgentFault("timeout", f"no answer within the {what} limit "
                             f"({msg['move_ms']} ms) and the bank") from None
        took = time.monotonic() - t0
        self.bank = max(0.0, self.bank - max(0.0, took - allow))
        self.moves += 1
        self.total += took
        if first:
            self.first = took
        else:
            self.slowest = max(self.slowest, took)
        return protocol.parse_answer(line, msg["legal"])

    def fault(self) -> None:
        """The agent forfeited: stop it; the next game starts a fresh process."""
        if self.proc is not None:
            self.proc.kill()

    def end(self, result: dict[str, Any]) -> None:
        if self.proc is None or not self.proc.alive:
            return
        with contextlib.suppress(AgentFault):  # the game is decided: a late fault is moot
            self.proc.send(result)
        if self.proc.tree is not None:  # its first process, the agent, and any it started
            self.others = max(0, self.proc.tree.usage()[2] - 2)
        if self.limits.process == "game":
            self.exited = self.proc.close()

    def close(self) -> None:
        if self.proc is not None:
            self.proc.close(grace=0)
            self.proc = None

    def stderr(self) -> str:
        return self.proc.stderr() if self.proc is not None else ""

    def timing(self) -> dict[str, Any] | None:
        return {"moves": self.moves, "total_ms": round(self.total * 1000, 1),
                "first_ms": round(self.first * 1000, 1), "max_ms": round(self.slowest * 1000, 1),
                "bank_left_ms": round(self.bank * 1000, 1), "exited": self.exited,
                "other_processes": self.others}


_AGENTS: dict[tuple[str, str, int], Any] = {}
_PROCESSES: dict[tuple[str, str, int, Limits, bool], ProcessSeat] = {}
_HOSTED_ENV = ("PYTHONPATH", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
"""What a sandboxed hosted Python agent gets of :func:`host_environment`."""


def seat_for(config_key: str, spec: str, seat: int, variant: str, num_players: int,
             seed: int, options: dict[str, Any], limits: Limits, isolate: bool,
             cwd: str | None, trusted: bool = False) -> InProcessSeat | ProcessSeat:
    """The seat of ``spec`` for one game. In-process agents with a ``seed`` method are kept
    between games (one per seat) and reseeded; others are built afresh with the seed.
    Processes are kept between games only in ``match`` mode; unless ``trusted``, each runs
    in a sandbox."""
    is_cmd = spec.startswith(CMD_PREFIX)
    if is_cmd or isolate:
        argv, env = (command(spec), None) if is_cmd else (host_command(spec),
                                                          host_environment())
        files = None if trusted else agent_files(spec, argv, cwd or os.getcwd())
        if not trusted:
            env = {k: env[k] for k in _HOSTED_ENV if k in env} if env else None
        if limits.process != "match":
            return ProcessSeat(argv, limits, cwd, env, files)
        pkey = (config_key, spec, seat, limits, trusted)
        if pkey not in _PROCESSES:
            _PROCESSES[pkey] = ProcessSeat(argv, limits, cwd, env, files)
        return _PROCESSES[pkey]
    key = (config_key, spec, seat)
    agent = _AGENTS.get(key)
    if agent is not None and callable(getattr(agent, "seed", None)):
        agent.seed(seed)
    else:
        agent = _AGENTS[key] = load_agent(spec, variant, num_players, seed, options)
    return InProcessSeat(agent, spec)


def close_processes() -> None:
    """Stop the agent processes kept for ``match`` mode."""
    while _PROCESSES:
        _PROCESSES.popitem()[1].close()
