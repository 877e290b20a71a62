"""``uno-env serve``: a local web server (FastAPI on uvicorn) to play against agents.

Only this small module is imported by the command line; the app (:mod:`uno_env.tournament.web.app`)
and its framework load when the command runs, so the rest of ``uno-env`` works without the
``web`` extra.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


# --- CLI ------------------------------------------------------------------------------------
def add_parser(sub: Any) -> None:
    p = sub.add_parser("serve", help="play UNO in the browser against agents",
                       description="A local web server where you play against agents in the "
                                   "browser; finished games download as replays.")
    p.add_argument("--agents", default="rule,random",
                   help="comma-separated agent specs the page may pick opponents from "
                        "(random, rule, ppo:VARIANT, ppo:PATH, ...); default rule,random")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--save", type=Path, default=None,
                   help="also append every finished game to this JSONL file")
    p.set_defaults(func=cmd_serve)


def cmd_serve(a: argparse.Namespace) -> int:
    try:
        import uvicorn

        from uno_env.tournament.web.app import LOCAL_HOSTS, create_app
    except ImportError as err:
        raise ValueError(f"serve needs the web extra (pip install 'uno-env[web]'): {err}"
                         ) from None
    specs = [s.strip() for s in a.agents.split(",") if s.strip()]
    for spec in specs:
        _check_playable(spec)
    local = ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::")
    app = create_app(specs, save=a.save,
                     hosts=LOCAL_HOSTS + (() if a.host in local else (a.host,)))
    print(f"uno-env: open http://{a.host}:{a.port}/ (opponents: {', '.join(specs)}); "
          "Ctrl-C stops", flush=True)
    if a.host in ("0.0.0.0", "::"):
        print(f"uno-env: note: listening on {a.host}, but answering only requests for "
              "localhost or 127.0.0.1 (the Host header); give --host ADDRESS to be reached "
              "at that address", flush=True)
    elif a.host not in local:
        print(f"uno-env: note: listening on {a.host}: anyone who can reach it can start and "
              "play games here", flush=True)
    uvicorn.run(app, host=a.host, port=a.port, log_level="warning")
    return 0


def _check_playable(spec: str) -> None:
    """Refuse at start an agent that cannot play any variant with 2 players (a typo), rather
    than offer it on the page; which games it suits is checked when one starts."""
    from uno_env import list_variants
    from uno_env.tournament.runner import check_agent

    errors = []
    for variant in list_variants():
        try:
            check_agent(spec, variant, 2, {})
            return
        except ValueError as err:
            errors.append(str(err))
    raise ValueError(errors[0])
