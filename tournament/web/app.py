"""The web app of ``uno-env serve``: a person plays against agents in the browser.

FastAPI serves one page (``static/play.html``) and a small JSON API; the game
logic is :class:`~uno_env.tournament.web.session.Session`. The server binds to 127.0.0.1 unless told
otherwise, answers only requests whose ``Host`` is ``localhost`` or ``127.0.0.1`` (or the
address it was told to serve on: a page from another site cannot reach it through DNS
rebinding), offers only the agents it was started with (a page cannot make it import
code), and answers bad input with a 4xx and ``{"error": message}``, leaving the game
unchanged:

- ``POST /api/games`` ``{"variant", "opponents": [spec, ...], "seat", "seed"?, "options"?}``
- ``GET /api/games/ID``: the person's view, legal actions and the table's log
- ``POST /api/games/ID/action`` ``{"seat": int, "action": int}``
- ``POST /api/games/ID/leave``; ``GET /api/games/ID/record`` and ``.../replay.html`` (once over)
- ``GET /api/tables/VARIANT``: how the deck's faces look (public, the same for every game)
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, StrictInt
from starlette.exceptions import HTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from uno_env import Game, list_variants
from uno_env.tournament.cli import coerce_option
from uno_env.tournament.replay import append_record
from uno_env.tournament.web.pages import replay_html
from uno_env.tournament.web.session import Refused, Session
from uno_env.tournament.web.view import card_table

LOCAL_HOSTS = ("localhost", "127.0.0.1")
"""The ``Host`` headers the app answers by default (anything else is a 400)."""
MAX_GAMES = 64
"""Games kept in memory; the oldest finished (else oldest) one makes room for a new one."""


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: str = "classic"
    opponents: list[str]
    seat: StrictInt = 0
    seed: StrictInt | None = None
    options: dict[str, Any] = {}


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: StrictInt
    action: StrictInt


def create_app(agents: list[str], save: Path | None = None,
               hosts: Sequence[str] = LOCAL_HOSTS) -> FastAPI:
    """The app, offering ``agents`` (specs as ``uno-env tournament`` takes them), answering
    requests for the ``hosts`` names only."""
    if not agents:
        raise ValueError("serve needs at least one agent spec for the opponents")
    app = FastAPI(title="uno-env", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))
    games: OrderedDict[str, Session] = OrderedDict()
    app.state.games = games
    static = resources.files("uno_env.tournament.web").joinpath("static")

    def fail(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    @app.exception_handler(Refused)
    def refused(_: Request, err: Refused) -> JSONResponse:
        return fail(err.status, err.message)

    @app.exception_handler(RequestValidationError)
    def malformed(_: Request, err: RequestValidationError) -> JSONResponse:
        parts = []
        for e in err.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            parts.append(f"{where}: {e.get('msg', 'invalid')}")
        return fail(422, "malformed request: " + "; ".join(parts))

    @app.exception_handler(HTTPException)
    def http_error(_: Request, err: HTTPException) -> JSONResponse:
        return fail(err.status_code, str(err.detail))

    def find(gid: str) -> Session:
        session = games.get(gid)
        if session is None:
            raise Refused(404, f"no game {gid!r} on this server (games live in memory until "
                               "the server stops); start one with POST /api/games")
        return session

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return static.joinpath("play.html").read_text("utf-8")

    @app.get("/api/config")
    def config() -> dict[str, Any]:
        return {"agents": agents, "variants": list_variants()}

    @app.get("/api/tables/{variant}")
    def table(variant: str) -> dict[str, Any]:
        try:
            return card_table(Game(variant, 2))
        except ValueError as err:
            raise Refused(404, str(err)) from None

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame) -> dict[str, Any]:
        unknown = [s for s in body.opponents if s not in agents]
        if unknown:
            raise Refused(400, f"agent {unknown[0]!r} is not offered by this server; "
                               f"allowed: {', '.join(agents)}")
        if not body.opponents:
            raise Refused(400, "opponents must name at least one agent")
        try:  # an unknown variant, option or value, a bad seat: the request's fault
            options = {k: coerce_option(body.variant, k, v) for k, v in body.options.items()}
            session = Session(body.variant, body.opponents, body.seat, body.seed, options)
        except (ValueError, TypeError, LookupError) as err:
            raise Refused(400, str(err)) from None
        if len(games) >= MAX_GAMES:
            done = [k for k, s in games.items() if s.over]
            games.pop(done[0] if done else next(iter(games)))
        games[session.id] = session
        return session.public()

    @app.get("/api/games/{gid}")
    def show(gid: str) -> dict[str, Any]:
        return find(gid).public()

    @app.post("/api/games/{gid}/action")
    def act(gid: str, body: Action) -> dict[str, Any]:
        session = find(gid)
        was_over = session.over
        session.act(body.seat, body.action)
        _saved(session, was_over)
        return session.public()

    @app.post("/api/games/{gid}/leave")
    def leave(gid: str) -> dict[str, Any]:
        session = find(gid)
        was_over = session.over
        session.leave()
        _saved(session, was_over)
        return session.public()

    def _saved(session: Session, was_over: bool) -> None:
        if save is not None and session.over and not was_over:
            append_record(save, session.record())

    @app.get("/api/games/{gid}/record")
    def record(gid: str) -> Response:
        rec = find(gid).record()
        return Response(json.dumps(rec, separators=(",", ":")) + "\n",
                        media_type="application/x-ndjson",
                        headers={"Content-Disposition":
                                 f'attachment; filename="uno-{rec["variant"]}-{gid}.jsonl"'})

    @app.get("/api/games/{gid}/replay.html", response_class=HTMLResponse)
    def replay(gid: str) -> str:
        session = find(gid)
        return replay_html(session.record(), seat=session.seat)

    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    return app
