"""HTML pages built from package files: the replay of one game, and the shared assets.

A replay page holds the whole game as data (the card table, one frame per decision, every
move with its meaning, the legal alternatives and what it caused) and the script that draws
it; with ``inline`` the styles and script are inside the file too, so it opens anywhere
without a network. Tournaments write their replays next to one shared copy of the assets.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from uno_env.tournament.replay import _differences, new_env, outcome, replay_into
from uno_env.tournament.web.view import PHASE_LABELS, card_table, effects, frame, public_facts

ASSETS = ("uno.css", "uno.js", "replay.js")


def asset(name: str) -> str:
    """The text of a file of ``tournament/web/static``."""
    return resources.files("uno_env.tournament.web").joinpath("static", name).read_text("utf-8")


def script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def replay_data(record: dict[str, Any]) -> dict[str, Any]:
    """Everything the replay page draws, computed by replaying the record."""
    env = new_env(record)
    game = env.game
    n = record["num_players"]
    names = [f"player_{s}" for s in range(n)]
    frames = [frame(env.engine)]
    moves: list[dict[str, Any]] = []
    meanings = game.actions.meanings
    types = game.actions.types

    def finish(move: dict[str, Any], facts: dict[str, Any]) -> None:
        state = env.engine
        move["effects"] = effects(facts, public_facts(state), names, move["seat"],
                                  types[move["action"]])
        frames.append(frame(state))
        moves.append(move)

    pending: tuple[dict[str, Any], dict[str, Any]] | None = None
    for e, seat, action in replay_into(env, record):
        if pending is not None:
            finish(*pending)
        state = e.engine
        move = {"seat": seat, "action": action, "phase": PHASE_LABELS.get(state.phase),
                "legal": [a for a in state.legal if a != action]}
        pending = (move, public_facts(state))
    if pending is not None:
        finish(*pending)
    table = card_table(game)
    table["cards"] = [[side[c] for side in game.side_faces] for c in range(game.num_cards)]
    result = dict(record.get("result") or {})
    got = outcome(env, record)
    return {
        "title": _title(record),
        "table": table, "meanings": meanings, "names": names,
        "agents": record.get("agents") or ["?"] * n,
        "dealer": record["dealer"], "seed": record["seed"], "options": record["options"],
        "frames": frames, "moves": moves,
        "result": {**got, "forfeit": result.get("forfeit"), "quit": bool(result.get("quit")),
                   "checked": bool(result) and not result.get("quit"),
                   "differences": _differences(env, record) if result else []},
    }


def _title(record: dict[str, Any]) -> str:
    head = f"{record['variant']}, {record['num_players']} players"
    if "game" in record:
        head = f"game {record['game']}: " + head
    return head


def replay_html(record: dict[str, Any], seat: int | None = None, reveal: bool = False,
                assets: str | None = None) -> str:
    """The replay page of one game. ``assets``: a relative folder holding :data:`ASSETS`
    to link instead of inlining them (a tournament's many replays share one copy)."""
    n = record["num_players"]
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat must be 0-{n - 1}, got {seat}")
    data = replay_data(record)
    data["start_view"] = "all" if reveal or seat is None else seat
    if assets is None:
        css = f"<style>\n{asset('uno.css')}</style>"
        js = f"<script>\n{asset('uno.js')}\n{asset('replay.js')}</script>"
    else:
        css = f'<link rel="stylesheet" href="{html.escape(assets)}/uno.css">'
        js = "".join(f'<script src="{html.escape(assets)}/{name}"></script>'
                     for name in ASSETS if name.endswith(".js"))
    return (asset("replay.html")  # the data last: nothing is replaced inside it
            .replace("{{CSS}}", css).replace("{{JS}}", js)
            .replace("{{TITLE}}", html.escape("UNO replay — " + data["title"]))
            .replace("{{DATA}}", script_json(data)))


def write_assets(folder: Path) -> None:
    """Copy the shared styles and scripts of the replay pages into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        (folder / name).write_text(asset(name), encoding="utf-8")
