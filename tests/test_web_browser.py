"""The web pages in a real browser: Debian's chromium, headless, driven by Playwright.

Skipped (saying so) where chromium is not installed. Each page is also photographed; run
with ``UNO_ENV_SCREENSHOTS=1`` to refresh the pictures under ``docs/`` that docs/browser.md shows.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from web_helpers import CHROMIUM, CHROMIUM_ARGS, DOCS, chromium_or_skip, entitled, leaked

from uno_env.actions import PLAY
from uno_env.cli import main as uno_main
from uno_env.tournament.replay import read_records, reproduce
from uno_env.tournament.runner import TournamentConfig, run_tournament
from uno_env.tournament.web.view import seat_view


@pytest.fixture(scope="module")
def browser() -> Any:
    sync_playwright = chromium_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def new_page(browser: Any, errors: list[str]) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return page


def shoot(page: Any, tmp: Path, name: str) -> None:
    """Photograph the page; with UNO_ENV_SCREENSHOTS=1 also into docs/ (docs/browser.md's)."""
    shot = page.screenshot(path=str(tmp / name))
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 20_000  # a picture, not blank
    if os.environ.get("UNO_ENV_SCREENSHOTS") == "1":
        DOCS.mkdir(exist_ok=True)
        (DOCS / name).write_bytes(shot)


# --- replays ----------------------------------------------------------------------------------
GAMES = {  # variant: (players, game index) chosen to show what each variant adds
    "classic": (2, 1), "flip": (3, 1), "flex": (3, 1), "express": (3, 0)}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for variant, (players, _) in GAMES.items():
        folder = tmp_path_factory.mktemp(variant)
        run_tournament(TournamentConfig(agents=["rule", "random"], variant=variant,
                                        players=players, games=6, seed=1, max_steps=400),
                       out=folder, progress=False)
        out[variant] = folder / "games.jsonl"
    return out


def python_views(record: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Each replay frame's view from every seat, decoded from that seat's observation."""
    from uno_env.tournament.replay import new_env

    env = new_env(record)
    n = record["num_players"]

    def views() -> list[dict[str, Any]]:
        return [seat_view(env.layout, env.observe(f"player_{s}"), s) for s in range(n)]

    out = [views()]
    for action in record["actions"]:
        env.step(action)
        out.append(views())
    return out


@pytest.mark.parametrize("variant", list(GAMES))
def test_a_replay_steps_through_the_game(browser: Any, logs: dict[str, Path], variant: str,
                                         tmp_path: Path) -> None:
    game = GAMES[variant][1]
    record = read_records(logs[variant])[game]
    html = tmp_path / f"{variant}.html"
    assert uno_main(["replay", str(logs[variant]), "--game", str(game), "--seat", "0",
                     "--html", str(html)]) == 0
    errors: list[str] = []
    page = new_page(browser, errors)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(html.as_uri())
    n_moves = len(record["actions"])
    meanings = page.evaluate("REPLAY.data.meanings")
    assert "The deal" in page.inner_text("#move-now")
    assert page.input_value("#view") == "0"
    page.keyboard.press("ArrowRight")
    first = meanings[record["actions"][0]]
    assert "move 1: " in page.inner_text("#move-now") and first in page.inner_text("#move-now")
    page.keyboard.press("ArrowLeft")
    assert "The deal" in page.inner_text("#move-now")
    page.fill("#jump", "5")
    page.press("#jump", "Enter")
    assert page.evaluate("REPLAY.state.pos") == 5
    assert meanings[record["actions"][4]] in page.inner_text("#move-now")
    page.click("#moves li[data-pos='3']")
    assert page.evaluate("REPLAY.state.pos") == 3
    page.click("#next")
    assert page.evaluate("REPLAY.state.pos") == 4
    page.keyboard.press("End")
    assert page.evaluate("REPLAY.state.pos") == n_moves
    end = page.inner_text("#end")
    assert "final scores" in end and f"{n_moves} decisions" in end
    assert "the replay matches the recorded result" in end
    for s, pts in enumerate(record["result"]["points"]):
        assert page.inner_text(f"#end table tr:nth-child({s + 2}) td:nth-child(3)") == str(pts)
    page.keyboard.press("Home")
    page.select_option("#speed", "60")
    page.keyboard.press(" ")
    page.wait_for_function("REPLAY.state.pos >= 3")
    page.keyboard.press(" ")
    assert page.evaluate("REPLAY.state.playing") is False
    # the view from any seat is exactly what that seat's observation holds, at every step
    js = page.evaluate("""() => REPLAY.data.frames.map((fr) =>
        REPLAY.data.names.map((_, s) => UNO.seatView(REPLAY.data.table, fr, s)))""")
    assert js == python_views(record)
    # every hand revealed: each card of each hand is drawn
    page.keyboard.press("a")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    frame = page.evaluate("REPLAY.data.frames[1]")
    drawn = page.evaluate("[...document.querySelectorAll('.seat')].map(e => "
                          "e.querySelectorAll('.hand-cards > .slot > .card:not(.small)').length)")
    assert drawn == [len(h) for h in frame["h"]]
    _variant_marks(page, variant, record)
    assert errors == [] and all(u.startswith("file:") for u in requests)
    if variant == "flip":  # docs/browser.md's picture: Flip from a seat, both sides in view
        page.keyboard.press("0")
        page.select_option("#speed", "700")
        page.evaluate("document.activeElement.blur(); REPLAY.go(Math.min(6, REPLAY.data.moves.length))")
        shoot(page, tmp_path, "replay.png")


def _variant_marks(page: Any, variant: str, record: dict[str, Any]) -> None:
    """What each variant adds is drawn as such."""
    if variant == "flip":  # seat view: an opponent's cards show their other side
        page.keyboard.press("0")
        assert page.locator(".seats.others .hand-cards > .card.other").count() > 0
        assert page.locator(".pile .card.other").count() == 1  # the pile's top, other side
    if variant == "flex":
        assert page.locator(".card .flex").count() > 0  # flex faces
        assert page.locator(".badge.power-green, .badge.power-red").count() == 3
    if variant == "express":  # jump-ins are marked in the move list and the move box
        jumps = page.evaluate("REPLAY.data.moves.map((m, i) => m.phase === 'jump-in' ? i + 1 : 0)"
                              ".filter(Boolean)")
        assert jumps, "the chosen Express game has a jump-in"
        assert page.locator("#moves .badge.jump").count() == len(jumps)
        page.evaluate(f"REPLAY.go({jumps[0]})")
        assert "jump-in (out of turn)" in page.inner_text("#move-now")


# --- the tournament page ----------------------------------------------------------------------
def test_a_tournament_index_links_every_replay(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "t"
    assert uno_main(["tournament", "--agents", "rule,random", "--games", "8", "--seed", "2",
                     "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    records = read_records(out / "games.jsonl")
    summary = json.loads((out / "results.json").read_text())
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto((out / "index.html").as_uri())
    rows = page.locator("#standings tr").count()
    assert rows == 1 + len(summary["agents"])
    best = max(summary["agents"], key=lambda a: a["mu"])
    assert page.inner_text("#standings tr:nth-child(2) td:nth-child(2)") == best["agent"]
    ci = f"[{100 * best['ci_low']:.1f}, {100 * best['ci_high']:.1f}]"
    assert ci in page.inner_text("#standings")
    h2h = summary["head_to_head"]["rule"]["random"]
    assert f"{100 * h2h['win_rate']:.1f} ({h2h['games']})" in page.inner_text("#h2h")
    assert page.evaluate("document.getElementById('ratings').naturalWidth") > 0
    links = page.locator("#games a")
    assert links.count() == len(records)
    shoot(page, tmp_path, "tournament_index.png")
    links.nth(3).click()
    page.wait_for_selector("#move-now")
    assert "game 3:" in page.inner_text("header")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("REPLAY.state.pos") == 1
    assert page.evaluate("REPLAY.data.moves.length") == len(records[3]["actions"])
    assert errors == []


# --- playing in the browser --------------------------------------------------------------------
@pytest.mark.parametrize("variant,seed,asked", [
    ("classic", 4, {"challenge", "color"}), ("flip", 9, {"challenge", "color", "drawn"}),
    ("flex", 7, {"challenge", "play-flex"}), ("express", 4, {"jump-in"})])
def test_a_whole_game_against_rule_by_clicking(browser: Any, tmp_path: Path, variant: str,
                                               seed: int, asked: set[str]) -> None:
    """Only legal actions are clickable; every choice is a button (the seeds are picked so
    that the person is asked ``asked``); no hidden card ever reaches the DOM or a response."""
    pytest.importorskip("fastapi")
    from web_helpers import live_server

    from uno_env.tournament.web.app import create_app

    app = create_app(["rule", "random"])
    errors: list[str] = []
    with live_server(app) as url:
        page = new_page(browser, errors)
        hosts: list[str] = []
        page.on("request", lambda r: hosts.append(r.url))
        page.goto(url + "/")
        page.select_option("#variant", variant)
        page.fill("#seed", str(seed))
        with page.expect_response(lambda r: r.url.endswith("/api/games")) as first:
            page.click("#start")
        page.wait_for_selector("#actions")
        session = next(iter(app.state.games.values()))
        seen: list[tuple[int, str, str]] = []  # (decisions so far, response, page)
        body = first.value.text()
        clicks = 0
        met: set[str] = set()  # phases and kinds of decision the person was offered
        while True:
            page.wait_for_selector("#actions")
            seen.append((len(session.actions), body, _page_text(page)))
            if session.over:
                break
            phase = json.loads(body)["phase"]
            met.add(phase)
            met.update(page.eval_on_selector_all("#actions button[data-kind]",
                                                 "bs => bs.map(b => b.dataset.kind)"))
            if phase == "jump-in":  # offered as such, out of turn
                assert "JUMP-IN" in page.inner_text("#actions")
                assert page.locator("#actions button.jump").count() >= 1
            if phase == "color":
                colours = page.eval_on_selector_all("#actions button.color",
                                                    "bs => bs.map(b => b.textContent)")
                assert colours == list(session.env.game.colors[session.env.engine.side])
            engine = session.env.engine
            legal = set(engine.legal)
            buttons = page.eval_on_selector_all("#actions button[data-action]",
                                                "bs => bs.map(b => +b.dataset.action)")
            assert set(buttons) == legal  # every legal decision offered, nothing else
            A = session.env.game.actions
            faces = {session.env.game.face_names[A.args[a]] for a in legal if A.types[a] == PLAY}
            playable = page.eval_on_selector_all(".seats.mine .card.playable",
                                                 "cs => cs.map(c => c.dataset.face)")
            assert set(playable) == faces
            cards = page.locator(".seats.mine .card.playable")
            with page.expect_response(lambda r: r.url.endswith("/action")) as resp:
                if cards.count() and clicks % 3 != 2:
                    cards.first.click()
                else:
                    page.locator("#actions button[data-action]").nth(clicks % len(buttons)).click()
            body = resp.value.text()
            assert resp.value.status == 200, body
            clicks += 1
            assert clicks < 600
            if clicks == 4 and variant == "classic":
                shoot(page, tmp_path, "play.png")
        assert asked <= met, f"the game never asked {asked - met}: pick another seed"
        assert page.is_visible("#end") and page.is_visible("#download")
        with page.expect_download() as dl:
            page.click("#download")
        saved = tmp_path / "game.jsonl"
        dl.value.save_as(saved)
    record = read_records(saved)[0]
    assert record["agents"] == ["human", "rule"] and not record["result"]["quit"]
    assert reproduce(record)[1] == []
    allowed = entitled(record, 0)
    names = session.env.game.face_names
    for k, response, text in seen:
        assert leaked(response, names, allowed[k]) == [], f"response after {k} decisions"
        assert leaked(text, names, allowed[k]) == [], f"page after {k} decisions"
    assert all(h.startswith(url) for h in hosts)
    assert errors == []


def _page_text(page: Any) -> str:
    """The page's DOM (attributes included), without the script files' text."""
    return str(page.evaluate("document.body.outerHTML"))
