"""``uno-env check-agent SPEC``: play a few games against ``random`` and report every problem.

The agent plays every seat, through the protocol and under the tournament's limits, first
with a process per game, then with one process serving all its games (``match``), so an
agent that cannot take a second ``hello`` is caught too. Each forfeit (timeout, crash,
invalid answer) is an error, shown with the agent's stderr; an agent that does not exit
when its stdin closes, or that comes close to its limits, gets a warning.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from uno_env.tournament.process import Limits


def check(spec: str, variant: str = "classic", players: int = 2, games: int = 4,
          seed: int = 0, options: dict[str, Any] | None = None, opponent: str = "random",
          limits: Limits | None = None,
          trusted: bool = False) -> tuple[list[str], list[str], list[str]]:
    """Play the games; return (report lines, errors, warnings)."""
    from uno_env.tournament.runner import TournamentConfig, run_tournament

    lim = limits or Limits()
    lines: list[str] = [f"check-agent {spec}: {variant}, {players} players, against "
                        f"{opponent}; limits: move {lim.move} s, bank {lim.bank} s, first move "
                        f"{lim.first_move} s, memory {lim.memory_mb} MiB, cpu {lim.cpu} s; "
                        f"{'trusted: no sandbox' if trusted else 'sandboxed'}"]
    errors: list[str] = []
    warnings: list[str] = []
    for process in ("game", "match"):
        cfg = TournamentConfig(
            agents=[spec, opponent], variant=variant, players=players, games=games, seed=seed,
            options=dict(options or {}), duplicate=False, max_steps=3000, move_time=lim.move,
            bank_time=lim.bank, first_move_time=lim.first_move, memory_mb=lim.memory_mb,
            cpu_time=lim.cpu, agent_process=process,
            isolate_python=not spec.startswith("cmd:"),  # the opponent plays in process
            trusted_agents=trusted)
        records = run_tournament(cfg, progress=False)
        ok = 0
        first = later = 0.0
        lingered = others = 0
        for rec in records:
            mine = [s for s, a in enumerate(rec["agents"]) if a == spec]
            f = rec["result"]["forfeit"]
            if f is not None and f["agent"] == spec:
                err = f"game {rec['game']} (seat {f['seat']}, process per {process}): " \
                      f"{f['status']}: {f['reason']}"
                if f.get("stderr"):
                    err += "\n    stderr: " + f["stderr"].strip()[-600:].replace("\n",
                                                                               "\n    ")
                errors.append(err)
            elif f is not None:
                errors.append(f"game {rec['game']}: the opponent {f['agent']} forfeited "
                              f"({f['status']}: {f['reason']}); nothing learnt about {spec}")
            else:
                ok += 1
            for s in mine:
                t = rec["timing"]["seats"][s]
                if t["moves"]:
                    first = max(first, t["first_ms"])
                    later = max(later, t["max_ms"])
                lingered += t.get("exited") is False
                others += bool(t.get("other_processes"))
        lines.append(f"  process per {process}: {len(records)} games, {ok} without a forfeit; "
                     f"first move at most {first:.0f} ms (limit {lim.first_move * 1000:.0f}), "
                     f"other moves at most {later:.1f} ms (limit {lim.move * 1000:.0f})")
        if first > 0.5 * lim.first_move * 1000 or later > 0.5 * lim.move * 1000:
            warnings.append(f"process per {process}: moves took over half their limit")
        if lingered:
            warnings.append(f"process per {process}: {lingered} times the agent did not exit "
                            "within 0.5 s of its stdin closing (it was killed)")
        if others:
            warnings.append(f"process per {process}: {others} times the agent had other "
                            "processes still running when its game ended (the sandbox "
                            "killed them; without one they would outlive the tournament)")
    return lines, errors, warnings


def add_parser(sub: Any) -> None:
    from uno_env.cli import COMMANDS
    from uno_env.tournament.cli import add_limit_args
    from uno_env.variants import list_variants

    p = sub.add_parser(
        "check-agent", help=COMMANDS["check-agent"].help,
        description="Plays a few games between SPEC (any agent spec, e.g. 'cmd:node "
                    "examples/agents/random_agent.js') and an opponent, through the stdio "
                    "protocol and under time and memory limits, and reports every forfeit "
                    "(timeout, crash, invalid answer) with the agent's stderr. Exit code 1 "
                    "when there was any error.")
    p.add_argument("spec")
    p.add_argument("--variant", default="classic", choices=list_variants())
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=4, help="games per process mode (default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opponent", default="random")
    p.add_argument("--option", action="append", default=[], metavar="K=V")
    add_limit_args(p)
    p.set_defaults(func=cmd_check_agent)


def cmd_check_agent(a: argparse.Namespace) -> int:
    from uno_env.tournament.cli import parse_options
    from uno_env.tournament.players import check_agent

    options = parse_options(a.variant, a.option)
    check_agent(a.spec, a.variant, a.players, options)
    limits = replace(Limits(), move=a.move_time or Limits().move, bank=a.bank_time,
                     first_move=a.first_move_time, memory_mb=a.memory_mb or None,
                     cpu=a.cpu_time or None)
    limits.validate()
    lines, errors, warnings = check(a.spec, a.variant, a.players, a.games, a.seed, options,
                                    a.opponent, limits, a.trusted_agents)
    print("\n".join(lines))
    for w in warnings:
        print(f"warning: {w}")
    for e in errors:
        print(f"error: {e}")
    print(f"{len(errors)} errors, {len(warnings)} warnings")
    return 1 if errors else 0
