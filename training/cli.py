"""``uno-env train`` and ``uno-env evaluate`` (listed in ``uno_env.cli.COMMANDS``).

``uno-env train CONFIG [--set key=value ...]`` reads a YAML config (a path, or the name of
one shipped in ``configs/train/``: ``uno-env train --list``) and runs the trainer its
``trainer:`` key names (``sb3``: :mod:`uno_env.training.sb3_train`,
``selfplay``: :mod:`uno_env.training.selfplay`). ``--set`` overrides a key; dotted keys reach into
sections (``--set ppo.learning_rate=1e-4``) and values are read as YAML.

``uno-env evaluate --agents A,B --games N`` plays a seat-swapped head-to-head
(:mod:`uno_env.training.evaluate`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any

from uno_env.cli import add_game_args, options_dict, parse_settings
from uno_env.shipped import find_config, format_list, shipped_configs

TRAINERS = {"sb3": "uno_env.training.sb3_train", "selfplay": "uno_env.training.selfplay",
            "expert": "uno_env.training.expert.loop"}


def add_train_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("train", help="train an agent from a YAML config",
                              description="Train an agent from a YAML config: a path, or the "
                              "name of a shipped one (--list shows them).")
    p.add_argument("config", nargs="?",
                   help="YAML file or shipped config name, e.g. classic_selfplay (its "
                   f"`trainer:` key picks the trainer: {', '.join(TRAINERS)})")
    p.add_argument("--list", action="store_true", help="list the shipped configs and exit")
    p.add_argument("--set", dest="overrides", action="append", default=[],
                   metavar="KEY=VALUE",
                   help="override a config key (dotted for sections: ppo.ent_coef=0.02); "
                   "repeatable")
    p.set_defaults(func=cmd_train)


def add_expert_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "expert", help="expert iteration: search labels -> train -> the new network searches",
        description="Expert iteration from a YAML config with trainer: expert (a path or a "
        "shipped name, e.g. expert_classic_vd or expert_tiny): each iteration generates "
        "search labels with the current network, trains it on them and evaluates it "
        "against rule; report.md in output_dir gets a row per iteration. --set resume=auto "
        "continues a stopped run (docs/expert-loop.md).")
    p.add_argument("config", help="YAML file or shipped config name")
    p.add_argument("--set", dest="overrides", action="append", default=[],
                   metavar="KEY=VALUE", help="override a config key; repeatable")
    p.set_defaults(func=cmd_expert)


def cmd_expert(a: argparse.Namespace) -> int:
    config = load_config(a.config, a.overrides)
    if config.get("trainer") != "expert":
        raise ValueError(f"uno-env expert needs a config with trainer: expert, got trainer: "
                         f"{config.get('trainer')!r} (uno-env train runs the others)")
    from uno_env.training.expert.loop import ExpertLoop

    result = ExpertLoop(config).run()
    print(f"report: {result['report']}; last network: {result['policy']}")
    return 0


def add_evaluate_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "evaluate", help="head-to-head win rates of two agents (seats swapped)",
        description="Play N games between agents A and B, each deal twice with the seats "
        "swapped; report wins, win rates with 95% Wilson intervals and mean points. "
        "Agent specs: random, rule, ppo:PATH, ppo:VARIANT, sb3:PATH, ismcts[:k=v;...] "
        "(quote it: ismcts:simulations=100;prior=ppo:classic).")
    p.add_argument("--agents", required=True, metavar="A,B",
                   help="two agent specs separated by a comma, e.g. rule,random")
    p.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    add_game_args(p, players=2)
    p.add_argument("--seed", type=int, default=0, help="seeds every deal and agent")
    p.add_argument("--workers", type=int, default=1, help="processes to play games in")
    p.add_argument("--max-steps", type=int, default=None,
                   help="truncate a game after this many decisions (no winner)")
    p.add_argument("--seating", choices=["alternate", "one"], default="alternate",
                   help="alternate: seats A, B, A, ... and swapped; one: A in one seat and B "
                   "in every other, A's seat rotated (one agent against a field)")
    p.add_argument("--engine", choices=["auto", "batch", "python"], default="auto",
                   help="auto (default): the compiled batch engine when both agents are "
                   "random, rule or a ppo: policy, else the Python loop; python: force the "
                   "Python loop (same games, same results)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_evaluate)


def _with_base(p: Path, seen: list[Path]) -> dict[str, Any]:
    """The YAML mapping at ``p`` on top of its ``base:`` (a config beside it, or a shipped
    name): a later stage is its earlier stage's config plus the keys that change. Each key
    here replaces the base's value whole (a map too)."""
    import yaml

    config = yaml.safe_load(p.read_text()) or {}
    if not isinstance(config, dict):
        raise ValueError(f"config {str(p)!r} must be a YAML mapping")
    base = config.pop("base", None)
    if base is None:
        return config
    here = p.resolve()
    if here in seen:
        chain = " -> ".join(str(x.name) for x in [*seen, here])
        raise ValueError(f"config {str(p)!r}: base configs form a cycle ({chain})")
    name = str(base) if str(base).endswith((".yaml", ".yml")) else f"{base}.yaml"
    beside = p.parent / name
    parent = _with_base(beside if beside.is_file() else find_config("train", str(base)),
                        [*seen, here])
    return {**parent, **config}


def load_config(path: str | Path, overrides: list[str] | None = None) -> dict[str, Any]:
    """The YAML config at ``path`` (or shipped under that name) with ``KEY=VALUE``
    overrides applied."""
    config = _with_base(find_config("train", path), [])
    for key, value in parse_settings(overrides or []):
        parts = key.split(".")
        node = config
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ValueError(f"--set {key}: {part!r} is not a section")
            node = child
        node[parts[-1]] = value
    return config


def run_config(config: dict[str, Any]) -> Any:
    """Dispatch on ``config["trainer"]``."""
    trainer = config.get("trainer")
    if trainer not in TRAINERS:
        raise ValueError(f"config key trainer={trainer!r}; allowed: {', '.join(TRAINERS)}")
    module = importlib.import_module(TRAINERS[trainer])
    return module.train(config)


def cmd_train(a: argparse.Namespace) -> int:
    if a.list:
        print(format_list("train"))
        return 0
    if a.config is None:
        raise ValueError("uno-env train needs a config: a YAML path or a shipped name "
                         f"({', '.join(shipped_configs('train'))})")
    result = run_config(load_config(a.config, a.overrides))
    if result is not None:
        print(f"saved {result}")
    return 0


def cmd_evaluate(a: argparse.Namespace) -> int:
    from uno_env.training.evaluate import evaluate, to_json

    specs = [s.strip() for s in a.agents.split(",")]
    if len(specs) != 2 or not all(specs):
        raise ValueError(f"--agents needs two specs separated by a comma, got {a.agents!r}")
    result = evaluate(specs[0], specs[1], a.games, variant=a.variant, num_players=a.players,
                      seed=a.seed, options=options_dict(a.option), workers=a.workers,
                      max_steps=a.max_steps, progress=not a.no_progress and sys.stderr.isatty(),
                      seating=a.seating, engine=a.engine)
    print(to_json(result) if a.json else result.format())
    return 0
