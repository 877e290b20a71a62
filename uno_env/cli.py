"""The ``uno-env`` command. Every subcommand is named in :data:`COMMANDS`; its module is
imported only when that command runs, so ``uno_env`` never imports the layers above it
(``agents``, ``training``, ``tournament``), and a command whose module fails to import
fails with that error instead of vanishing from the list.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from uno_env.variants import list_variants


@dataclass(frozen=True)
class Command:
    """A subcommand: the one-line help ``uno-env --help`` lists, and ``"module:function"``,
    a function that takes the argparse subparsers object, adds the parser of this command
    (under this name) and sets its ``func`` default. ``agents``: the command plays agents one
    decision at a time, so the ``uno-env`` program runs torch on one thread (:func:`console`)."""

    help: str
    adder: str
    agents: bool = False


# The subcommands, in the order ``uno-env --help`` lists them. To add one, write
# ``add_parser(sub)`` in your module and name it here; nothing is imported until it runs.
COMMANDS: dict[str, Command] = {
    "simulate": Command("random agents play many games; print a summary",
                        "uno_env.cli:add_simulate_parser"),
    "bench": Command("decisions/s against RLCard's UNO, side by side",
                     "uno_env.cli:add_bench_parser"),
    "verify": Command("compare the batch engine with the Python engine decision by decision",
                      "uno_env.batch.verify:add_parser"),
    "demo": Command("one rendered game, a short simulation and a short tournament",
                    "uno_env.tournament.demo:add_parser", agents=True),
    "play": Command("play UNO in the terminal against agents",
                    "uno_env.tournament.play:add_parser", agents=True),
    "replay": Command("show a recorded game move by move (or write it as a web page)",
                      "uno_env.tournament.replay_cli:add_parser"),
    "serve": Command("play UNO in the browser against agents (a local web server)",
                     "uno_env.tournament.web.server:add_parser", agents=True),
    "tournament": Command("a fair, duplicate-dealt tournament between agents",
                          "uno_env.tournament.cli:add_tournament_parser", agents=True),
    "check-agent": Command("play a few games with an agent; report every protocol error",
                           "uno_env.tournament.check:add_parser", agents=True),
    "train": Command("train an agent from a YAML config", "uno_env.training.cli:add_train_parser"),
    "expert": Command("expert iteration: search labels -> train -> the new network searches",
                      "uno_env.training.cli:add_expert_parser"),
    "evaluate": Command("head-to-head win rates of two agents (seats swapped)",
                        "uno_env.training.cli:add_evaluate_parser", agents=True),
    "exploit": Command("approximate exploitability: a fresh learner trained against an agent",
                       "uno_env.training.exploit:add_parser"),
    "benchmark": Command("the reference table: every variant's agents against each other",
                         "uno_env.training.benchmark:add_parser"),
}


def parse_option(text: str) -> tuple[str, Any]:
    """``k=v`` with v read as bool (true/false), None (none), int, or string (so that
    ``uno_catch=off`` stays the string ``"off"``)."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"option must look like name=value, got {text!r}")
    key, raw = text.split("=", 1)
    low = raw.strip().lower()
    value: Any
    if low == "true":
        value = True
    elif low == "false":
        value = False
    elif low in ("none", "null"):
        value = None
    else:
        try:
            value = int(raw)
        except ValueError:
            value = raw.strip()
    return key.strip(), value


def parse_settings(items: Sequence[str], allowed: Collection[str] | None = None
                   ) -> list[tuple[str, Any]]:
    """``--set KEY=VALUE`` items as ``(KEY, value)`` pairs, each value read as YAML
    (``0.5``, ``[64, 64]``, ``true``; YAML 1.1 reads ``1e-4`` as a string), the key
    stripped; ``allowed``: the keys accepted. The commands that take ``--set`` (train,
    expert, exploit, benchmark) read it here."""
    import yaml

    out = []
    for item in items:
        key, eq, raw = item.partition("=")
        if not eq or (allowed is not None and key not in allowed):
            keys = "" if allowed is None else f" with KEY one of {', '.join(allowed)}"
            raise ValueError(f"--set needs KEY=VALUE{keys}, got {item!r}")
        out.append((key.strip(), yaml.safe_load(raw)))
    return out


def options_dict(items: Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    return dict(items or [])


def add_game_args(p: argparse.ArgumentParser, players: int = 2) -> None:
    p.add_argument("--variant", default="classic", choices=list_variants())
    p.add_argument("--players", type=int, default=players)
    p.add_argument("--option", action="append", type=parse_option, metavar="K=V",
                   help="rule option, repeatable (e.g. --option stacking=true)")


def random_policy(seed: int) -> Callable[[dict[str, np.ndarray]], int]:
    rnd = random.Random(seed)

    def act(obs: dict[str, np.ndarray]) -> int:
        legal = obs["action_mask"].nonzero()[0]
        return int(legal[rnd.randrange(len(legal))])

    return act


def simulate(variant: str, players: int, games: int, seed: int, options: dict[str, Any],
             max_steps: int | None = None, progress: bool = True) -> dict[str, Any]:
    """Random agents play ``games`` games; returns the summary that ``simulate`` prints."""
    from uno_env.aec import raw_env
    from uno_env.play import play_episode

    e = raw_env(variant, players, max_steps=max_steps, **options)
    act = random_policy(seed)
    seat_policies = [lambda o, m: act({"observation": o, "action_mask": m})] * players
    wins = [0] * players
    points = [0.0] * players
    steps_total = 0
    truncated = 0
    bar: Any = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", file=sys.stderr)
    t0 = time.perf_counter()
    for k in range(games):
        e.reset(seed=seed + k)
        steps_total += play_episode(e, seat_policies).steps
        g = e.engine
        if g.is_over:
            for s in g.winners():
                wins[s] += 1
            for s, pts in enumerate(g.round_results[-1]["points"]):
                points[s] += pts
        else:
            truncated += 1
        if bar is not None:
            bar.update(1)
    dt = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    return {
        "variant": variant, "players": players, "games": games, "seconds": dt,
        "games_per_s": games / dt, "steps_per_s": steps_total / dt,
        "mean_decisions": steps_total / games, "truncated": truncated,
        "wins_by_seat": wins, "mean_points_by_seat": [p / games for p in points],
    }


def format_summary(r: dict[str, Any]) -> str:
    lines = [
        f"{r['games']} games of {r['variant']} with {r['players']} players in "
        f"{r['seconds']:.1f}s: {r['games_per_s']:.1f} games/s, {r['steps_per_s']:,.0f} "
        f"decisions/s, {r['mean_decisions']:.0f} decisions per game"
        + (f", {r['truncated']} truncated" if r["truncated"] else ""),
        "seat   wins   win%   mean points",
    ]
    for s, (w, pts) in enumerate(zip(r["wins_by_seat"], r["mean_points_by_seat"],
                                     strict=True)):
        lines.append(f"{s:4d} {w:6d} {100 * w / r['games']:6.1f} {pts:13.1f}")
    return "\n".join(lines)


def cmd_simulate(a: argparse.Namespace) -> int:
    r = simulate(a.variant, a.players, a.games, a.seed, options_dict(a.option),
                 max_steps=a.max_steps, progress=not a.no_progress)
    print(format_summary(r))
    return 0


def cmd_bench(a: argparse.Namespace) -> int:
    from uno_env.bench import bench, report

    variants = a.variant or ["classic"]
    for v in variants:
        include = v == "classic" and not a.no_rlcard
        print(report(bench(v, a.players, seconds=a.seconds, rounds=a.rounds,
                           include_rlcard=include, seed=a.seed,
                           options=options_dict(a.option),
                           vector=a.batch if a.vector else 0)))
        print()
    if a.vector:
        from uno_env.batch.bench import vector_report

        print(vector_report(variants if a.variant else None, a.seconds))
    return 0


def add_simulate_parser(sub: Any) -> None:
    p = sub.add_parser("simulate", help=COMMANDS["simulate"].help)
    add_game_args(p, players=4)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=None)
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_simulate)


def add_bench_parser(sub: Any) -> None:
    p = sub.add_parser("bench", help=COMMANDS["bench"].help)
    p.add_argument("--variant", action="append", choices=list_variants(),
                   help="variant(s) to measure (default classic; repeatable)")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seconds", type=float, default=3.0, help="per contender per round")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-rlcard", action="store_true")
    p.add_argument("--option", action="append", type=parse_option, metavar="K=V",
                   help="rule option of our contenders, repeatable (e.g. voluntary_draw=true)")
    p.add_argument("--vector", action="store_true",
                   help="also the batch engine (vector_env): side by side, then a table of "
                   "variants, player counts and batch sizes, memory, compile/cached start")
    p.add_argument("--batch", type=int, default=1024, help="games of the side-by-side run")
    p.set_defaults(func=cmd_bench)


def load_command(name: str, sub: Any) -> None:
    """Import the module of command ``name`` and let it add its parser to ``sub``. An import
    error is raised, naming the command, never skipped."""
    spec = COMMANDS[name].adder
    module, _, func = spec.partition(":")
    try:
        adder = getattr(importlib.import_module(module), func)
    except (ImportError, AttributeError) as err:
        raise ImportError(f"uno-env {name}: cannot load {spec}: {err}") from err
    adder(sub)
    if name not in sub.choices:
        raise RuntimeError(f"uno-env {name}: {spec} did not add a parser named {name!r}")


def build_parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``uno-env`` parser with the commands in ``load`` (default: all) fully built; the
    others are listed by their help alone and their modules are not imported."""
    parser = argparse.ArgumentParser(
        prog="uno-env", description="UNO, UNO Flip, UNO Flex and UNO Express: simulate, "
        "benchmark, play, replay, run tournaments, train and evaluate agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, cmd in COMMANDS.items():
        if load is None or name in load:
            load_command(name, sub)
        else:
            sub.add_parser(name, help=cmd.help)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, or None (``--help``, no command, an unknown one)."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return first if first in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_in(argv)
    args = build_parser([] if command is None else [command]).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as err:  # bad variant, option or player count: say what is allowed
        print(f"uno-env: error: {err}", file=sys.stderr)
        return 2


def console() -> None:
    """The ``uno-env`` program (and ``python -m uno_env.cli``), which owns its process: a
    command that plays agents (``Command.agents``) runs torch on one thread unless the user
    set ``OMP_NUM_THREADS``. One decision at a time through a small network gains nothing
    from more threads, and a search's per-move time budget is a budget per core; on a busy
    2-core machine an SB3 forward pass ran 60x slower with 2 threads. Set here, before torch
    is imported, never by an agent or a library call (the trainer, ``uno-env train``, sets its
    own ``threads``). :func:`main` itself changes nothing in the process."""
    command = _command_in(sys.argv[1:])
    if command is not None and COMMANDS[command].agents:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())


if __name__ == "__main__":
    console()
