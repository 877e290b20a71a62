"""``uno-env demo``: one rendered game (rule against random), a simulation summary and a short
tournament of the shipped agents. It lives here, above ``agents`` and ``tournament``, because
it uses both; ``uno_env`` only lists it."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from uno_env import agents
from uno_env.aec import raw_env
from uno_env.cli import COMMANDS, add_game_args, format_summary, simulate
from uno_env.play import play_episode
from uno_env.shipped import shipped_configs


def add_parser(sub: Any) -> None:
    p = sub.add_parser("demo", help=COMMANDS["demo"].help)
    add_game_args(p, players=2)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_demo)


def cmd_demo(a: argparse.Namespace) -> int:
    names = ["rule", "random"]
    players = [agents.load(name, variant=a.variant, num_players=2, seed=i)
               for i, name in enumerate(names)]
    e = raw_env(a.variant, 2, render_mode="ansi", reveal_hands=True)
    e.reset(seed=a.seed)
    print(f"=== one game of {a.variant}: {', '.join(names)} ===")

    def show(name: str, action: int) -> None:
        print(e.render())
        print(f"  -> {name} chooses: {e.action_meanings[action]}\n")

    turn = play_episode(e, players, on_step=show).steps
    g = e.engine
    winners = ", ".join(e.possible_agents[s] for s in g.winners()) or "nobody"
    print(f"=== {winners} won after {turn} decisions; points {g.round_results[-1]['points']} ===")
    print()
    print(format_summary(simulate(a.variant, a.players, a.games, a.seed, {},
                                  progress=False)))
    print()
    demo_tournament(a.variant)
    return 0


def demo_tournament(variant: str) -> None:
    """A short 2-player tournament between the shipped agents (random, rule, and the PPO
    checkpoint of ``variant`` when one is shipped), printed as a table."""
    from uno_env.tournament.cli import run_meta
    from uno_env.tournament.results import format_table, summarize
    from uno_env.tournament.runner import TournamentConfig, run_tournament

    specs = ["random", "rule"]
    checkpoint = Path(agents.__file__).resolve().parent / "checkpoints" / f"{variant}_2p.pt"
    options: dict[str, Any] = {}
    if checkpoint.exists():
        specs.append(f"ppo:{variant}")
        options = agents.trained_options(f"ppo:{variant}")  # the table it was trained at
    cfg = TournamentConfig(agents=specs, variant=variant, players=2, games=60, seed=0,
                           max_steps=2000, workers=1, options=options)
    print(f"=== a short tournament: {', '.join(specs)} ({cfg.games} games, duplicate deals) ===")
    t0 = time.perf_counter()
    records = run_tournament(cfg, progress=False)
    print(format_table(summarize(records, cfg.names, meta=run_meta(cfg))))
    longer = (f"uno-env tournament {variant}_2p" if f"{variant}_2p" in shipped_configs(
        "tournament") else
              f"uno-env tournament --variant {variant} --agents {','.join(specs)} --games 600")
    print(f"({time.perf_counter() - t0:.1f}s; a longer one: {longer})")
