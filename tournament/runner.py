"""Playing the games of a tournament: in this process, over local processes, or on Ray.

A game is a pure function of its :class:`GameTask` (deal, seating, agent specs and seeds),
so the same tournament gives the same records whichever backend plays it and however many
workers there are; results are ordered by game index and rated in that order.

Nothing is lost: every finished game is appended to ``games.jsonl`` in the output folder
as soon as it ends (one JSON line, see :mod:`uno_env.tournament.replay`), by this process
only; a tournament stopped by Ctrl-C or a killed process continues from that log with
``resume=True`` and ends with exactly the records of an uninterrupted run. An agent that
fails (a timeout, a crash, an invalid answer: see :mod:`uno_env.tournament.game`) forfeits
that game only; a worker process that dies is replaced, and its game is a crash forfeit of
the agent it was waiting for (:mod:`uno_env.tournament.pool`). Agent processes run in
sandboxes unless ``trusted_agents`` (docs/sandbox.md).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from uno_env.tournament.game import GameTask, play_game
from uno_env.tournament.players import CMD_PREFIX, check_agent, close_processes
from uno_env.tournament.players import load_agent as load_agent  # re-exported: play.py loads agents
from uno_env.tournament.pool import WorkerDied, play_on_workers
from uno_env.tournament.process import Limits
from uno_env.tournament.sandbox import require as require_sandbox
from uno_env.tournament.schedule import Fixture, agent_seed, cycle_length, make_deal, make_schedule

BACKENDS = ("local", "ray")
DEFAULT_MAX_STEPS = 20_000
"""A tournament game ends after this many decisions unless ``max_steps`` says otherwise:
recorded as truncated (no winner, ratings unchanged). Games between sensible agents are a
few hundred decisions; random agents rarely pass 20,000 (docs/sandbox.md), and the env's
own cap (500,000) is minutes of a worker's time."""
LOG_NAME = "games.jsonl"
META_NAME = "tournament.json"


class TournamentInterrupted(RuntimeError):
    """The tournament stopped before its last game; the log holds every finished game."""


@dataclass
class TournamentConfig:
    """Everything a tournament needs. ``workers`` and ``backend`` never change the results."""

    agents: list[str]
    variant: str = "classic"
    players: int = 2
    games: int = 100
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    duplicate: bool = True
    max_steps: int | None = DEFAULT_MAX_STEPS
    move_time: float | None = None
    """Seconds per decision for agents in their own processes (None: 1 s, and the Python
    specs play in this process, unlimited; a number: every agent plays in a process)."""
    bank_time: float = 10.0
    first_move_time: float = 10.0
    memory_mb: int | None = 2048
    cpu_time: float | None = 60.0
    agent_process: str = "game"
    isolate_python: bool | None = None
    """Python specs in processes too; None: exactly when ``move_time`` is set."""
    workers: int = 1
    backend: str = "local"
    trusted_agents: bool = False
    """Agent processes without a sandbox (docs/sandbox.md): only for agents you trust."""

    @property
    def limits(self) -> Limits:
        return Limits(move=1.0 if self.move_time is None else self.move_time,
                      bank=self.bank_time, first_move=self.first_move_time,
                      memory_mb=self.memory_mb, cpu=self.cpu_time,
                      process=self.agent_process)

    @property
    def isolate(self) -> bool:
        """Whether the Python specs play in processes too (a time limit was set)."""
        return self.move_time is not None if self.isolate_python is None else self.isolate_python

    def identity(self) -> dict[str, Any]:
        """The settings the results depend on (what ``--resume`` must find unchanged)."""
        d = asdict(self)
        del d["workers"], d["backend"], d["trusted_agents"]
        d["options"] = dict(sorted(self.options.items()))
        return d

    def validate(self) -> None:
        from uno_env import Game

        if not self.agents or any(not isinstance(a, str) or not a.strip() for a in self.agents):
            raise ValueError(f"agents must be a non-empty list of agent specs, got {self.agents}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend={self.backend!r} is not valid; allowed: "
                             f"{', '.join(BACKENDS)}")
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.games < 1:
            raise ValueError(f"games must be >= 1, got {self.games}")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError(f"max_steps must be None or >= 1, got {self.max_steps}")
        self.limits.validate()
        Game(self.variant, self.players, **self.options)  # variant, player count, options

    @property
    def uses_processes(self) -> bool:
        """Whether any agent plays in a process of its own (a sandbox, unless trusted)."""
        return self.isolate or any(a.startswith(CMD_PREFIX) for a in self.agents)

    @property
    def names(self) -> list[str]:
        """Display names of the agents: the spec, with ``#2``, ``#3`` for repeated specs."""
        seen: dict[str, int] = {}
        out = []
        for spec in self.agents:
            seen[spec] = seen.get(spec, 0) + 1
            out.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
        return out

    def schedule(self) -> list[Fixture]:
        return make_schedule(len(self.agents), self.players, self.games, self.duplicate)

    @property
    def cycle(self) -> int:
        return cycle_length(len(self.agents), self.players)


def make_tasks(config: TournamentConfig) -> list[GameTask]:
    """The tasks of every scheduled game, in game-index order."""
    from uno_env import Game

    game = Game(config.variant, config.players, **config.options)
    names = list(game.card_names)
    limits, cwd = config.limits, os.getcwd()
    deals: dict[int, Any] = {}
    out = []
    for fx in config.schedule():
        deal = deals.get(fx.deal)
        if deal is None:
            deal = deals[fx.deal] = make_deal(config.seed, fx.deal, names, config.players)
        out.append(GameTask(
            index=fx.index, deal=fx.deal, variant=config.variant, num_players=config.players,
            options=dict(config.options), max_steps=config.max_steps, seed=deal.seed,
            deck=deal.deck, dealer=deal.dealer, seats=fx.seats,
            agents=tuple(config.agents[a] for a in fx.seats),
            agent_seeds=tuple(agent_seed(config.seed, fx.index, s)
                              for s in range(config.players)),
            limits=limits, isolate=config.isolate, cwd=cwd, trusted=config.trusted_agents,
        ))
    return out


def _init_worker() -> None:
    """Workers leave Ctrl-C to the parent, which stops the pool and keeps the log; one
    thread each for numerical libraries (the parallelism is the processes). A worker stops
    the agent processes it kept for ``match`` mode (kill and reap) as it exits, so none is
    still alive when the pool's shutdown returns (left alone, the parent-death signal ends
    them a moment after the worker, racing the caller)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    multiprocessing.util.Finalize(None, close_processes, exitpriority=10)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")


# --- the results log ------------------------------------------------------------------------
class GameLog:
    """``games.jsonl``: one line per finished game, appended and flushed as each ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: Any = None

    def read(self) -> list[dict[str, Any]]:
        """The complete records in the log; a torn last line (a killed writer) is dropped
        and the file cut back to the last complete line."""
        if not self.path.exists():
            return []
        records = []
        good = 0
        with self.path.open("rb") as fh:
            for raw in fh:
                if not raw.endswith(b"\n"):
                    break
                try:
                    records.append(json.loads(raw))
                except json.JSONDecodeError:
                    break
                good += len(raw)
        if good != self.path.stat().st_size:
            with self.path.open("r+b") as fh:
                fh.truncate(good)
        return records

    def append(self, record: dict[str, Any]) -> None:
        if self._fh is None:
            self._fh = self.path.open("a", encoding="utf-8")
        self._fh.write(json.dumps(record, separators=(",", ":")) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def rewrite(self, records: Iterable[dict[str, Any]]) -> None:
        """Replace the log by ``records`` (in game order) atomically."""
        self.close()
        tmp = self.path.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r, separators=(",", ":")) + "\n")
        os.replace(tmp, self.path)


def _check_meta(out: Path, config: TournamentConfig, resume: bool) -> None:
    """Refuse to mix two tournaments in one folder; write the config on a fresh start."""
    meta_path = out / META_NAME
    log_path = out / LOG_NAME
    if resume and meta_path.exists():
        want = json.loads(meta_path.read_text()).get("config", {})
        want = {**TournamentConfig(agents=config.agents).identity(), **want}  # older logs
        have = config.identity()
        if want != have:
            diff = {k: (want.get(k), have.get(k)) for k in sorted(set(want) | set(have))
                    if want.get(k) != have.get(k)}
            raise ValueError(f"{out} holds another tournament; differences (logged, given): "
                             f"{diff}")
    if not resume and log_path.exists() and log_path.stat().st_size:
        raise ValueError(f"{log_path} already holds games; pass --resume to continue that "
                         "tournament, or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    meta_path.write_text(json.dumps({"config": config.identity()}, indent=2) + "\n")


def load_config(out: Path) -> TournamentConfig:
    """The configuration saved in an output folder (for ``--resume --out DIR`` alone)."""
    meta_path = out / META_NAME
    if not meta_path.exists():
        raise ValueError(f"{meta_path} not found: nothing to resume there")
    return TournamentConfig(**json.loads(meta_path.read_text())["config"])


# --- running --------------------------------------------------------------------------------
def run_tournament(config: TournamentConfig, out: Path | None = None, resume: bool = False,
                   progress: bool = True) -> list[dict[str, Any]]:
    """Play every scheduled game not yet in the log; return all records in game order.

    Raises :class:`TournamentInterrupted` (or ``KeyboardInterrupt``) when stopped early;
    the log then holds every game that finished.
    """
    config.validate()
    tasks = make_tasks(config)
    for spec in dict.fromkeys(config.agents):  # a bad spec or checkpoint fails here, once
        check_agent(spec, config.variant, config.players, config.options, os.getcwd())
    if not config.trusted_agents and config.uses_processes:
        require_sandbox(os.getcwd())
    log: GameLog | None = None
    done: dict[int, dict[str, Any]] = {}
    if out is not None:
        _check_meta(out, config, resume)
        log = GameLog(out / LOG_NAME)
        by_index = {t.index: t for t in tasks}
        for rec in log.read() if resume else []:
            t = by_index.get(rec.get("game", -1))
            if t is not None and rec.get("seed") == t.seed and tuple(rec["agents"]) == t.agents:
                done[t.index] = rec
    todo = [t for t in tasks if t.index not in done]
    bar = _progress(len(tasks), len(done)) if progress else None
    games = _play(todo, config)
    try:
        for rec in games:
            done[rec["game"]] = rec
            if log is not None:
                log.append(rec)
            if bar is not None:
                bar.update(1)
    except WorkerDied as err:
        where = f"; {len(done)}/{len(tasks)} games are saved in {log.path}" if log else ""
        raise TournamentInterrupted(f"{err}{where}; run again with --resume to play the "
                                    "rest") from err
    finally:
        close = getattr(games, "close", None)
        if close is not None:
            close()  # stop the workers now, whatever stopped the loop
        if bar is not None:
            bar.close()
        if log is not None:
            log.close()
        close_processes()
    records = [done[t.index] for t in tasks]
    if log is not None:
        log.rewrite(records)
    return records


def _progress(total: int, initial: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", file=sys.stderr,
                desc="tournament", dynamic_ncols=True)


def _play(tasks: list[GameTask], config: TournamentConfig) -> Iterator[dict[str, Any]]:
    if not tasks:
        return iter(())
    if config.backend == "ray":
        return _play_ray(tasks, config.workers)
    if config.workers == 1:
        return (play_game(t) for t in tasks)
    return play_on_workers(tasks, config.workers, _init_worker)


def _play_ray(tasks: list[GameTask], workers: int) -> Iterator[dict[str, Any]]:
    """The same games as Ray tasks (a running cluster via RAY_ADDRESS, else a local one)."""
    try:
        import ray
    except ImportError as err:
        raise ValueError("backend 'ray' needs Ray: pip install 'uno-env[ray]'") from err
    started = False
    pending: list[Any] = []
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if "RAY_ADDRESS" not in os.environ:
            kwargs["num_cpus"] = workers
        ray.init(**kwargs)
        started = True
    remote: Callable[..., Any] = ray.remote(num_cpus=1)(play_game).remote
    try:
        queue = iter(tasks)
        pending = [remote(t) for _, t in zip(range(4 * workers), queue, strict=False)]
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            for ref in finished:
                yield ray.get(ref)
                nxt = next(queue, None)
                if nxt is not None:
                    pending.append(remote(nxt))
    finally:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref)
        if started:
            ray.shutdown()
