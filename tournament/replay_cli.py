"""``uno-env replay``: a recorded game in the terminal or as a web page.

Apart from :mod:`uno_env.tournament.replay` so that the record functions there stay below the pages
of :mod:`uno_env.tournament.web` (which build on them)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from uno_env.tournament.replay import pick, read_records, show
from uno_env.tournament.web.pages import replay_html


# --- CLI ------------------------------------------------------------------------------------
def add_parser(sub: Any) -> None:
    p = sub.add_parser("replay", help="show a recorded game move by move",
                       description="Show a game of a JSONL game log (games.jsonl of a "
                                   "tournament, or the file `uno-env play` saves) move by "
                                   "move.")
    p.add_argument("file", type=Path)
    p.add_argument("--game", type=int, default=None,
                   help="the game index to show (default: the first in the file)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, default=None,
                     help="show the table from this seat's chair (default: the acting seat)")
    who.add_argument("--reveal", action="store_true", help="show every hand")
    p.add_argument("--step", action="store_true", help="wait for Enter after each move")
    p.add_argument("--list", action="store_true", help="list the games in the file")
    p.add_argument("--html", type=Path, default=None, metavar="FILE",
                   help="write the game as one self-contained web page instead (open it in "
                        "any browser: step, jump, play, any seat's view or every hand)")
    p.set_defaults(func=cmd_replay)


def cmd_replay(a: argparse.Namespace) -> int:
    records = read_records(a.file)
    if a.list:
        for i, r in enumerate(records):
            res = r.get("result") or {}
            won = ",".join(str(w) for w in res.get("winners", [])) or "-"
            print(f"game {r.get('game', i)}: {', '.join(r.get('agents') or [])}; winners "
                  f"{won}; {len(r['actions'])} decisions")
        return 0
    rec = pick(records, a.game)
    if a.html is not None:
        a.html.parent.mkdir(parents=True, exist_ok=True)
        a.html.write_text(replay_html(rec, seat=a.seat, reveal=a.reveal), encoding="utf-8")
        print(f"wrote {a.html} ({len(rec['actions'])} decisions)")
        return 0
    tty = sys.stdout.isatty()
    pause = None
    if a.step:
        def pause() -> None:
            input("  [Enter] ")
    try:
        diffs = show(rec, seat=a.seat, reveal=a.reveal, color=tty, pause=pause)
    except (EOFError, KeyboardInterrupt):
        print()
        return 0
    except BrokenPipeError:  # the reader left (`| head`): stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - replaces the closed stdout
        return 0
    return 1 if diffs else 0
