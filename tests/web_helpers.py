"""Helpers of the web tests: what a seat may have seen, leak checks, a live server, Chromium.

``entitled(record, seat)`` replays a game with the full engine and lists, after each
decision, every face the person in ``seat`` has been able to see so far (their hand, every
card on top of the discard pile, what they played or saw played, Flip's visible sides, a hand
shown to them by a challenge). A page or response that names any other face leaks a card.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from uno_env.actions import PLAY, PLAY_FLEX, PLAY_TWO
from uno_env.tournament.replay import new_env

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
DOCS = Path(__file__).resolve().parent.parent / "docs"


def visible(state: Any, seat: int) -> set[str]:
    """The faces ``seat`` sees in this state (G-hidden, F-visibility)."""
    g = state.game
    names = g.face_names
    seen = {names[state.faces_of[c]] for c in state.hands[seat]}
    seen.add(names[state.faces_of[state.discard[-1]]])
    if g.num_sides > 1:
        other = g.side_faces[state.side ^ 1]
        for s, hand in enumerate(state.hands):
            seen.update(names[other[c]] for c in hand if s != seat or state.known[c])
        if state.draw_pile:
            seen.add(names[other[state.draw_pile[-1]]])
    shown = state.revealed[seat]
    if shown is not None:
        seen.update(names[f] for f, k in enumerate(shown[1]) if k)
    # Flex: a card's flex face is printed on it, and its name can be another card's name
    flex = [g.flex_faces[f] for f in range(g.num_faces) if names[f] in seen]
    seen.update(x.name for x in flex if x is not None)
    return seen


def entitled(record: dict[str, Any], seat: int) -> list[set[str]]:
    """``out[k]``: every face ``seat`` could have seen once ``k`` decisions were taken."""
    env = new_env(record)
    game = env.game
    A = game.actions
    seen = visible(env.engine, seat)
    out = [set(seen)]
    for action in record["actions"]:
        if A.types[action] in (PLAY, PLAY_TWO, PLAY_FLEX):
            seen.add(game.face_names[A.args[action]])
        env.step(action)
        seen |= visible(env.engine, seat)
        out.append(set(seen))
    return out


def leaked(text: str, face_names: list[str], allowed: set[str]) -> list[str]:
    """The faces outside ``allowed`` that ``text`` names (as whole card names)."""
    return [name for name in face_names if name not in allowed and re.search(
        rf"(?<![\w/-]){re.escape(name)}(?![\w/*-])", text)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Run ``app`` on uvicorn in a thread on 127.0.0.1; yield its base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def chromium_or_skip() -> Any:
    """Playwright's sync API, or a skip that says why the browser tests cannot run."""
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.skip("browser tests SKIPPED: Debian's chromium is not installed "
                    "(apt-get install chromium; .ci/run does it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests SKIPPED: playwright is not installed (the web extra)")
    return sync_playwright
