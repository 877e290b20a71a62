"""The ``tournament`` command of ``uno-env`` (``replay`` and ``play`` live in their modules).

``uno-env tournament CONFIG`` reads a YAML file, or a config shipped in ``configs/tournament/``
by name (``uno-env tournament --list``) (keys: variant, players, agents, games, seed, options,
duplicate, max_steps, workers, backend, out, and the limits of agent processes: move_time,
bank_time, first_move_time, memory_mb, cpu_time, agent_process); every flag given on the
command line overrides the file. In YAML, agents may be a list (a ``cmd:`` spec whose
arguments hold a comma needs it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from uno_env.tournament.process import PROCESS_LIFETIMES, Limits
from uno_env.tournament.sandbox import TRUSTED_FLAG

_TRUE = ("true", "on", "yes", "1")
_FALSE = ("false", "off", "no", "0")


def coerce_option(variant: str, key: str, value: Any) -> Any:
    """A rule option value in the type the variant expects. Text from the command line and
    YAML's booleans (``off`` reads as False) are matched against the allowed values."""
    from uno_env.variants import find_variant

    spec = find_variant(variant).options.get(key)
    if spec is None:
        return value  # the Game names the unknown option and the allowed ones
    text = str(value).strip().lower()
    if spec.allowed is not None:
        for allowed in spec.allowed:
            if value is allowed or (type(value) is type(allowed) and value == allowed):
                return allowed
        for allowed in spec.allowed:
            if isinstance(allowed, str) and allowed.lower() == text:
                return allowed
        bools = {True: _TRUE, False: _FALSE}
        for allowed in spec.allowed:
            if isinstance(allowed, bool) and text in bools[allowed]:
                return allowed
        for allowed in spec.allowed:  # YAML read `off` as False: find the text it was
            if isinstance(allowed, str) and isinstance(value, bool) and (
                    allowed.lower() in bools[value]):
                return allowed
        return value
    if spec.kind is int and isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def parse_options(variant: str, items: Iterable[str]) -> dict[str, Any]:
    """``["k=v", ...]`` from ``--option`` as a dict of typed option values."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"option must look like name=value, got {item!r}")
        out[key.strip()] = coerce_option(variant, key.strip(), raw.strip())
    return out


# --- tournament -----------------------------------------------------------------------------
def add_tournament_parser(sub: Any) -> None:
    from uno_env.tournament.runner import DEFAULT_MAX_STEPS
    from uno_env.variants import list_variants

    p = sub.add_parser(
        "tournament", help="a fair, duplicate-dealt tournament between agents",
        description="Agents play a tournament: every agent in every seat equally often, each "
                    "deal replayed with the agents rotated through the seats. Prints win "
                    "rates with 95% intervals and openskill ratings; writes results.json, "
                    "results.csv, ratings.png and games.jsonl to --out.")
    p.add_argument("config", nargs="?", type=Path,
                   help="a YAML file, or the name of a shipped config (e.g. classic_2p)")
    p.add_argument("--list", action="store_true", help="list the shipped configs and exit")
    p.add_argument("--variant", default=None, choices=list_variants(),
                   help="default classic")
    p.add_argument("--players", type=int, default=None, help="2-10 (default 2)")
    p.add_argument("--agents", default=None,
                   help="comma-separated agent specs: random, rule, ppo:PATH, ppo:VARIANT, "
                        "sb3:PATH, py:MODULE:NAME, 'cmd:PROGRAM ARGS' (default random,rule)")
    p.add_argument("--games", type=int, default=None,
                   help="games to play, rounded up to whole schedule cycles (default 100)")
    p.add_argument("--seed", type=int, default=None,
                   help="the seed every deal and agent seed comes from (default 0)")
    p.add_argument("--option", action="append", default=[], metavar="K=V",
                   help="rule option, repeatable (e.g. --option stacking=true)")
    p.add_argument("--max-steps", type=int, default=None,
                   help="cut games after this many decisions (no winner; recorded as "
                        f"truncated; default {DEFAULT_MAX_STEPS:,})")
    p.add_argument("--random-deals", action="store_true",
                   help="a fresh deal for every game instead of duplicate deals")
    p.add_argument("--workers", type=int, default=None,
                   help="parallel processes (default: the CPU count, at most 8)")
    p.add_argument("--backend", choices=("local", "ray"), default=None,
                   help="ray: games as Ray tasks (on the cluster RAY_ADDRESS names, else a "
                        "local one)")
    add_limit_args(p, defaults=False)
    p.add_argument("--agent-process", choices=PROCESS_LIFETIMES, default=None,
                   help="game: a fresh process per agent per game (default); match: one "
                        "serves all the games a worker plays with it")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default results/tournament/NAME-TIME)")
    p.add_argument("--resume", action="store_true",
                   help="continue the tournament logged in --out")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--no-replay-pages", action="store_true",
                   help="index.html without a replay page per game (about 30 kB each)")
    p.set_defaults(func=cmd_tournament)


def add_limit_args(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    """The limit flags shared by ``tournament`` and ``check-agent`` (seconds, MiB)."""
    d = Limits()

    def default(value: Any) -> Any:
        return value if defaults else None

    p.add_argument("--move-time", type=float, default=None,
                   help=f"seconds per decision (default {d.move}); in a tournament, setting it "
                        "also runs the Python specs in their own processes")
    p.add_argument("--bank-time", type=float, default=default(d.bank),
                   help=f"overage bank per game, seconds (default {d.bank})")
    p.add_argument("--first-move-time", type=float, default=default(d.first_move),
                   help=f"seconds for an agent's first decision (default {d.first_move})")
    p.add_argument("--memory-mb", type=int, default=default(d.memory_mb),
                   help=f"address-space limit per agent process, MiB, and in the sandbox "
                        f"of its processes' memory together; 0: none (default {d.memory_mb})")
    p.add_argument("--cpu-time", type=float, default=default(d.cpu),
                   help=f"CPU seconds per agent per game; 0: none (default {d.cpu})")
    p.add_argument(TRUSTED_FLAG, action="store_true",
                   help="run agent processes without a sandbox (docs/sandbox.md): only for "
                        "agents you trust, or on a host that cannot build sandboxes")


def config_from_args(a: argparse.Namespace) -> tuple[Any, Path | None]:
    """The tournament configuration from the YAML file and flags, and the output folder."""
    from uno_env.tournament.runner import DEFAULT_MAX_STEPS, TournamentConfig, load_config

    data: dict[str, Any] = {}
    if a.config is not None:
        import yaml

        from uno_env.shipped import find_config

        a.config = find_config("tournament", a.config)
        loaded = yaml.safe_load(a.config.read_text())
        if not isinstance(loaded, dict):
            raise ValueError(f"{a.config} must hold a mapping of tournament settings")
        data = loaded
    out = a.out if a.out is not None else (Path(data["out"]) if data.get("out") else None)
    flags_given = any(v is not None for v in (a.variant, a.players, a.agents, a.games, a.seed))
    if a.resume and out is not None and a.config is None and not flags_given:
        cfg = load_config(out)
        cfg.workers = a.workers or min(8, os.cpu_count() or 1)
        cfg.backend = a.backend or cfg.backend
        cfg.trusted_agents = a.trusted_agents
        return cfg, out
    known = {"variant", "players", "agents", "games", "seed", "options", "duplicate",
             "max_steps", "workers", "backend", "out", *LIMIT_KEYS}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown keys in {a.config}: {unknown}; allowed: {sorted(known)}")
    variant = a.variant or data.get("variant", "classic")
    agents = a.agents if a.agents is not None else data.get("agents", "random,rule")
    if isinstance(agents, str):
        agents = [s.strip() for s in agents.split(",") if s.strip()]
    options = {k: coerce_option(variant, k, v) for k, v in (data.get("options") or {}).items()}
    options.update(parse_options(variant, a.option))
    cfg = TournamentConfig(
        agents=[str(s) for s in agents],
        variant=variant,
        players=a.players or int(data.get("players", 2)),
        games=a.games or int(data.get("games", 100)),
        seed=a.seed if a.seed is not None else int(data.get("seed", 0)),
        options=options,
        duplicate=False if a.random_deals else bool(data.get("duplicate", True)),
        max_steps=a.max_steps if a.max_steps is not None else data.get("max_steps",
                                                                        DEFAULT_MAX_STEPS),
        workers=a.workers or int(data.get("workers") or min(8, os.cpu_count() or 1)),
        backend=a.backend or data.get("backend", "local"),
        trusted_agents=a.trusted_agents,
        **_limits(a, data),
    )
    return cfg, out


LIMIT_KEYS = ("move_time", "bank_time", "first_move_time", "memory_mb", "cpu_time",
              "agent_process")


def _limits(a: argparse.Namespace, data: dict[str, Any]) -> dict[str, Any]:
    """The limit settings given by flag or YAML key (flags win); 0 turns memory/cpu off."""
    out: dict[str, Any] = {}
    for key in LIMIT_KEYS:
        value = getattr(a, key, None)
        if value is None:
            value = data.get(key)
        if value is None:
            continue
        if key in ("memory_mb", "cpu_time") and value == 0:
            value = None
        out[key] = value
    return out


def cmd_tournament(a: argparse.Namespace) -> int:
    from uno_env.tournament.runner import TournamentInterrupted, check_agent, run_tournament

    if a.list:
        from uno_env.shipped import format_list

        print(format_list("tournament"))
        return 0
    cfg, out = config_from_args(a)
    cfg.validate()
    for spec in dict.fromkeys(cfg.agents):
        check_agent(spec, cfg.variant, cfg.players, cfg.options, os.getcwd())
    if out is None:
        if a.resume:
            raise ValueError("--resume needs --out DIR (the folder of the interrupted run)")
        name = a.config.stem if a.config is not None else f"{cfg.variant}_{cfg.players}p"
        out = Path("results/tournament") / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    total = len(cfg.schedule())
    if total != cfg.games:
        print(f"note: {cfg.games} games rounded up to {total} (whole cycles of "
              f"{cfg.cycle} games: every agent in every seat equally often)", file=sys.stderr)
    print(f"logging every game to {out / 'games.jsonl'}", file=sys.stderr)
    t0 = time.perf_counter()
    try:
        records = run_tournament(cfg, out=out, resume=a.resume,
                                 progress=not a.no_progress and sys.stderr.isatty())
    except KeyboardInterrupt:
        print(f"\ninterrupted: the finished games are in {out / 'games.jsonl'}; continue "
              f"with: uno-env tournament --resume --out {out}", file=sys.stderr)
        return 130
    except TournamentInterrupted as err:
        print(f"uno-env: {err}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - t0
    return report(records, cfg, out, seconds, replay_pages=not a.no_replay_pages)


REPORT_FAILED = 3  # the exit code of a tournament that finished but could not write a report


def report(records: list[dict[str, Any]], cfg: Any, out: Path, seconds: float,
           replay_pages: bool = True) -> int:
    """Write and print the reports of a finished tournament. A report that fails is said
    plainly and sets the exit code to ``REPORT_FAILED``; it never loses the results: the
    games are in games.jsonl, and every other report is still written."""
    from uno_env.tournament.results import format_table, summarize, write_reports

    try:
        summary = summarize(records, cfg.names, meta=run_meta(cfg))
    except Exception as err:  # noqa: BLE001
        print(f"uno-env: the tournament finished ({len(records)} games in "
              f"{out / 'games.jsonl'}) but its summary failed: {type(err).__name__}: {err}",
              file=sys.stderr)
        return REPORT_FAILED
    failed = write_reports(out, summary)
    try:  # index.html, with a replay page per game (uno_env.tournament.web)
        from uno_env.tournament.web.report import write_index

        write_index(out, summary, records, replays=replay_pages)
    except Exception as err:  # noqa: BLE001
        failed.append(f"index.html: {type(err).__name__}: {err}")
    try:
        print(format_table(summary))
    except Exception as err:  # noqa: BLE001
        failed.append(f"the printed table: {type(err).__name__}: {err}")
    print(f"{len(records)} games in {seconds:.1f}s; reports in {out}/ (index.html, "
          "results.json, results.csv, ratings.png, games.jsonl)")
    for line in failed:
        print(f"uno-env: the tournament finished, but a report failed: {line}", file=sys.stderr)
    return REPORT_FAILED if failed else 0


def run_meta(cfg: Any) -> dict[str, Any]:
    return {"variant": cfg.variant, "players": cfg.players, "seed": cfg.seed,
            "duplicate": cfg.duplicate, "options": cfg.options, "max_steps": cfg.max_steps,
            "agent_specs": cfg.agents}
