"""``uno-env play``: a person plays against agents in the terminal.

The table is drawn from the person's chair before each of their decisions (in colour when
the output is a terminal), the legal actions are listed by number and meaning, and a move
is typed as its number or its meaning (``play red-7``, or just ``red-7``; any unambiguous
start such as ``dr`` for ``draw``). Bad input is explained and asked again. ``quit``,
Ctrl-D or Ctrl-C end the game cleanly; the game, finished or not, is saved as one record
(see :mod:`uno_env.tournament.replay`) so it can be replayed.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_SAVE = Path("results/play/games.jsonl")
QUIT = ("q", "quit", "exit")
HELP = ("h", "help", "?")


class Quit(Exception):
    """The person ended the game."""


def parse_move(text: str, legal: list[int], meanings: list[str]) -> int:
    """The action the person means by ``text``; ``ValueError`` explains what went wrong."""
    t = " ".join(text.strip().lower().split())
    k = len(legal)
    if not t:
        raise ValueError(f"type a number 1-{k} or an action such as {meanings[legal[0]]!r}")
    if t.isdigit():
        i = int(t)
        if 1 <= i <= k:
            return legal[i - 1]
        raise ValueError(f"{i} is not in the list: choose a number from 1 to {k}")
    names = {a: meanings[a].lower() for a in legal}
    for a, m in names.items():
        if t in (m, m.removeprefix("play ")):
            return a
    starts = [a for a, m in names.items()
              if m.startswith(t) or m.removeprefix("play ").startswith(t)]
    if len(starts) == 1:
        return starts[0]
    if starts:
        raise ValueError(f"{text.strip()!r} could be "
                         + " or ".join(repr(meanings[a]) for a in starts) + ": say which")
    if t in (m.lower() for m in meanings) or f"play {t}" in (m.lower() for m in meanings):
        raise ValueError(f"{text.strip()!r} is not allowed now; the legal actions are "
                         "listed above")
    raise ValueError(f"{text.strip()!r} is not an action; type a number 1-{k}, an action "
                     "from the list, 'help' or 'quit'")


HELP_TEXT = """\
Type the number of an action from the list, or its meaning: 'play red-7' or just 'red-7',
'draw', 'color blue', 'uno', ... The start of a meaning is enough when only one action
begins with it ('dr' for 'draw'). 'quit' (or Ctrl-D) ends the game; it is saved either way."""


def play_game(variant: str, opponents: list[str], seat: int = 0, seed: int | None = None,
              options: dict[str, Any] | None = None, save: Path | None = DEFAULT_SAVE,
              color: bool = False, read: Callable[[str], str] = input,
              write: Callable[[str], None] = print) -> dict[str, Any]:
    """Play one game with a person in ``seat``; return (and save) its record."""
    from uno_env import Game, raw_env
    from uno_env.render import render_text
    from uno_env.tournament.replay import append_record
    from uno_env.tournament.runner import check_agent, load_agent
    from uno_env.tournament.schedule import agent_seed, make_deal

    options = dict(options or {})
    n = 1 + len(opponents)
    game = Game(variant, n, **options)  # says what is wrong with the variant, players, options
    if not 0 <= seat < n:
        raise ValueError(f"seat must be 0-{n - 1} with {len(opponents)} opponents, got {seat}")
    if seed is None:
        seed = secrets.randbelow(2**31)
    deal = make_deal(seed, 0, game.card_names, n)
    specs = list(opponents)
    specs.insert(seat, "human")
    for spec in dict.fromkeys(opponents):
        check_agent(spec, variant, n, options)
    agents = {s: load_agent(specs[s], variant, n, agent_seed(seed, 0, s), options)
              for s in range(n) if s != seat}
    env = raw_env(variant, n, **options)
    env.reset(seed=deal.seed, options={"deck": list(deal.deck), "dealer": deal.dealer})
    meanings = env.action_meanings
    names = ["you" if s == seat else f"player_{s}" for s in range(n)]
    actions: list[int] = []
    quit_game = False
    forfeit: dict[str, Any] | None = None
    held = Counter(env.engine.hands[seat])
    write(f"UNO ({variant}, {n} players, seed {seed}): you are seat {seat}; "
          + ", ".join(f"player_{s} is {specs[s]}" for s in range(n) if s != seat)
          + ". Type 'help' for how to play.")
    try:
        # own loop, not play_episode: a person's turns interleave, a failing agent forfeits
        while not env.engine.is_over:
            g = env.engine
            cur = g.current
            if cur == seat:
                _report_draws(g, seat, held, color, write)
                action = _ask(g, seat, names, meanings, color, read, write, render_text)
            else:
                obs = env.observe(env.agent_selection)
                try:
                    action = int(agents[cur].act(obs["observation"], obs["action_mask"]))
                except Exception as err:
                    forfeit = {"seat": cur, "agent": specs[cur],
                               "reason": f"raised {type(err).__name__}: {err}"[:300]}
                    break
                if action not in g.legal:
                    forfeit = {"seat": cur, "agent": specs[cur],
                               "reason": f"illegal action {action!r}"}
                    break
                write(f"  {names[cur]} ({specs[cur]}): {meanings[action]}")
            if cur == seat:
                held = Counter(g.hands[seat])
            env.step(action)
            actions.append(action)
    except (Quit, KeyboardInterrupt):
        quit_game = True
    g = env.engine
    write("")
    write(_table(render_text(g, seat, reveal=True, names=names, color=color)))
    winners = g.winners() if forfeit is None else [s for s in range(n) if s != forfeit["seat"]]
    if quit_game:
        write("game left unfinished.")
    elif forfeit is not None:
        write(f"{names[forfeit['seat']]} ({forfeit['agent']}) forfeits: {forfeit['reason']}")
    elif seat in winners:
        write(f"you won! ({g.scores[seat]} points)")
    else:
        write(f"{', '.join(names[s] for s in winners) or 'nobody'} won.")
    record = {
        "variant": variant, "num_players": n, "options": dict(env.options), "max_steps": None,
        "seed": deal.seed, "deck": list(deal.deck), "dealer": deal.dealer,
        "agents": specs, "human_seat": seat, "play_seed": seed, "actions": actions,
        "result": {"winners": [] if quit_game else winners, "points": list(g.scores),
                   "steps": len(actions), "rounds": len(g.round_results), "truncated": False,
                   "forfeit": forfeit, "quit": quit_game},
    }
    if save is not None:
        k = _count_lines(save)
        append_record(save, record)
        write(f"saved as game {k} of {save}; replay it with: uno-env replay {save} --game {k}")
    return record


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as fh:
        return sum(1 for line in fh if line.strip())


def _ask(g: Any, seat: int, names: list[str], meanings: list[str], color: bool,
         read: Callable[[str], str], write: Callable[[str], None],
         render_text: Callable[..., str]) -> int:
    """Draw the table, list the legal actions, and read a move until one is valid."""
    legal = list(g.legal)
    write("")
    write(_table(render_text(g, seat, names=names, color=color)))
    for i, a in enumerate(legal, 1):
        write(f"  {i:2d}) {_colored(meanings[a], color)}")
    while True:
        try:
            raw = read("your move> ")
        except (EOFError, KeyboardInterrupt):
            write("")
            raise Quit from None
        word = raw.strip().lower()
        if word in QUIT:
            raise Quit
        if word in HELP:
            write(HELP_TEXT)
            continue
        try:
            return parse_move(raw, legal, meanings)
        except ValueError as err:
            write(f"  {err}")


def _table(text: str) -> str:
    """The rendered table as the person reads it: their own view, no action-index line."""
    return "\n".join(line.replace("you's view", "your view") for line in text.splitlines()
                     if not line.startswith("legal: "))


def _report_draws(g: Any, seat: int, before: Counter[int], color: bool,
                  write: Callable[[str], None]) -> None:
    """Say which cards reached the person's hand since their last move (draws, penalties),
    by their active face (in Flip the table lists the other sides the person has seen)."""
    from uno_env.render import card_text

    new = Counter(g.hands[seat]) - before
    if new:
        names = g.game.face_names
        cards = " ".join(card_text(names[g.faces_of[c]], color) for c in sorted(new.elements()))
        write(f"  you received {sum(new.values())}: {cards}")


def _colored(meaning: str, color: bool) -> str:
    from uno_env.render import card_text

    verb, _, card = meaning.partition(" ")
    if not color or not card:
        return meaning
    return f"{verb} {card_text(card, True)}"


# --- CLI ------------------------------------------------------------------------------------
def add_parser(sub: Any) -> None:
    from uno_env.variants import list_variants

    p = sub.add_parser("play", help="play UNO in the terminal against agents",
                       description="Play a game against agents; the game is saved for "
                                   "`uno-env replay`.")
    p.add_argument("--variant", default="classic", choices=list_variants())
    p.add_argument("--opponents", default="rule",
                   help="comma-separated agent specs, one per opponent (random, rule, "
                        "ppo:PATH, ppo:VARIANT); default: rule")
    p.add_argument("--seat", type=int, default=0,
                   help="your seat, 0 to the number of opponents (default 0)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--option", action="append", default=[], metavar="K=V",
                   help="rule option, repeatable (e.g. --option stacking=true)")
    p.add_argument("--save", type=Path, default=DEFAULT_SAVE,
                   help=f"JSONL file the game is appended to (default {DEFAULT_SAVE})")
    p.add_argument("--no-save", action="store_true")
    p.add_argument("--no-color", action="store_true")
    p.set_defaults(func=cmd_play)


def cmd_play(a: argparse.Namespace) -> int:
    from uno_env.tournament.cli import parse_options

    opponents = [s.strip() for s in a.opponents.split(",") if s.strip()]
    if not opponents:
        raise ValueError("--opponents needs at least one agent spec")
    play_game(a.variant, opponents, seat=a.seat, seed=a.seed,
              options=parse_options(a.variant, a.option),
              save=None if a.no_save else a.save,
              color=sys.stdout.isatty() and not a.no_color)
    return 0
