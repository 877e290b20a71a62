"""``uno-env serve``'s API: games play to the end, bad input is refused with a 4xx and a clear
message and leaves the game exactly as it was, and no response names a hidden card."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx2")  # what starlette.testclient uses

from fastapi.testclient import TestClient  # noqa: E402
from web_helpers import entitled, leaked  # noqa: E402

from uno_env.tournament.replay import reproduce  # noqa: E402
from uno_env.tournament.web.app import create_app  # noqa: E402
from uno_env.tournament.web.session import Session  # noqa: E402


@pytest.fixture()
def client() -> TestClient:
    return TestClient(create_app(["rule", "random"]), base_url="http://localhost")


def start(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"variant": "classic", "opponents": ["rule"],
                                        "seat": 0, "seed": 7, **body})
    assert r.status_code == 201, r.text
    return r.json()


def session_of(client: TestClient, gid: str) -> Session:
    return client.app.state.games[gid]  # type: ignore[attr-defined]


def frozen(s: Session) -> str:
    """Everything about a game that a refused request must leave alone."""
    return json.dumps([s.env.snapshot(), s.actions, s.log, s.forfeit, s.quit], default=str)


def test_a_game_starts_with_the_persons_view_only(client: TestClient) -> None:
    g = start(client)
    s = session_of(client, g["id"])
    assert g["view"]["seat"] == 0 and g["seat"] == 0
    names = s.env.game.face_names
    own = sorted(names[s.env.engine.faces_of[c]] for c in s.env.engine.hands[0])
    assert sorted(g["view"]["players"][0]["cards"]) == own
    assert g["view"]["players"][1]["cards"] is None  # opponents: a count, no cards
    assert g["view"]["players"][1]["hand"] == len(s.env.engine.hands[1])
    assert [a["action"] for a in g["legal"]] == list(s.env.engine.legal)
    assert client.get(f"/api/games/{g['id']}").json() == g


def play_out(client: TestClient, g: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Take the first legal action until the end; every response is checked for leaks."""
    s = session_of(client, g["id"])
    texts = [(len(s.actions), json.dumps(g))]
    while not g["over"]:
        r = client.post(f"/api/games/{g['id']}/action",
                        json={"seat": g["seat"], "action": g["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        g = r.json()
        texts.append((len(s.actions), r.text))
    rec = client.get(f"/api/games/{g['id']}/record")
    assert rec.status_code == 200
    record = json.loads(rec.text)
    seen = entitled(record, g["seat"])
    names = s.env.game.face_names
    leaks = [f"after {k} decisions: {leaked(t, names, seen[k])}" for k, t in texts
             if leaked(t, names, seen[k])]
    return record, leaks


@pytest.mark.parametrize("variant,opponents,seat", [
    ("classic", ["rule"], 0), ("flip", ["rule", "random"], 1), ("flex", ["rule", "rule"], 2),
    ("express", ["random", "rule"], 0)])
def test_a_whole_game_plays_replays_and_never_names_a_hidden_card(
        client: TestClient, variant: str, opponents: list[str], seat: int) -> None:
    g = start(client, variant=variant, opponents=opponents, seat=seat, seed=3)
    record, leaks = play_out(client, g)
    assert leaks == []
    assert record["agents"][seat] == "human" and record["human_seat"] == seat
    env, diffs = reproduce(record)  # the downloaded log replays to the same result
    assert diffs == [] and env.engine.is_over
    page = client.get(f"/api/games/{g['id']}/replay.html")
    assert page.status_code == 200 and "replay-data" in page.text


def test_the_leak_check_catches_a_leak(client: TestClient) -> None:
    """The check above is not blind: the opponent's hand names cards the person never saw."""
    g = start(client)
    s = session_of(client, g["id"])
    record = {"variant": "classic", "num_players": 2, "options": dict(s.env.options),
              "max_steps": None, "seed": s.deal.seed, "deck": list(s.deal.deck),
              "dealer": s.deal.dealer, "actions": list(s.actions)}
    seen = entitled(record, 0)[-1]
    hand = json.dumps(s.env.engine.to_dict()["hands"][1])
    assert leaked(hand, s.env.game.face_names, seen)


def test_rule_options_come_as_text_or_values(client: TestClient) -> None:
    g = start(client, options={"stacking": "true", "target_score": "200", "uno_catch": "off"})
    s = session_of(client, g["id"])
    assert s.env.options["stacking"] is True and s.env.options["target_score"] == 200
    assert s.env.options["uno_catch"] == "off"


def test_unknown_game_id_is_404(client: TestClient) -> None:
    for method, path, body in [("get", "/api/games/nope", None),
                               ("post", "/api/games/nope/action", {"seat": 0, "action": 0}),
                               ("post", "/api/games/nope/leave", None),
                               ("get", "/api/games/nope/record", None)]:
        r = getattr(client, method)(path, **({"json": body} if body else {}))
        assert r.status_code == 404
        assert "no game 'nope'" in r.json()["error"]


def test_an_illegal_action_is_409_and_changes_nothing(client: TestClient) -> None:
    g = start(client)
    s = session_of(client, g["id"])
    before = frozen(s)
    illegal = next(a for a in range(s.env.game.num_actions) if a not in s.env.engine.legal)
    for action in (illegal, -1, 10_000):
        r = client.post(f"/api/games/{g['id']}/action", json={"seat": 0, "action": action})
        assert r.status_code == 409, r.text
        assert "is not legal" in r.json()["error"] and "legal:" in r.json()["error"]
        assert frozen(s) == before


def test_an_action_for_another_seat_is_403_and_changes_nothing(client: TestClient) -> None:
    g = start(client)
    s = session_of(client, g["id"])
    before = frozen(s)
    for seat in (1, 5, -1):
        r = client.post(f"/api/games/{g['id']}/action",
                        json={"seat": seat, "action": g["legal"][0]["action"]})
        assert r.status_code == 403
        assert "you sit at seat 0" in r.json()["error"]
        assert frozen(s) == before


@pytest.mark.parametrize("body", [
    b"not json", b"{}", b'{"seat": 0}', b'{"action": 3}', b'{"seat": 0, "action": "3"}',
    b'{"seat": 0, "action": 3.0}', b'{"seat": 0, "action": true}', b'{"seat": "0", "action": 1}',
    b'{"seat": 0, "action": 1, "extra": 1}', b"[1, 2]"])
def test_a_malformed_action_request_is_422_and_changes_nothing(client: TestClient,
                                                               body: bytes) -> None:
    g = start(client)
    s = session_of(client, g["id"])
    before = frozen(s)
    r = client.post(f"/api/games/{g['id']}/action", content=body,
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["error"].startswith("malformed request: ")
    assert frozen(s) == before


@pytest.mark.parametrize("body,status,message", [
    ({"opponents": ["py:os:system"]}, 400, "not offered by this server; allowed: rule, random"),
    ({"opponents": []}, 400, "at least one agent"),
    ({"opponents": ["rule"], "variant": "uno-x"}, 400, "unknown variant 'uno-x'; allowed"),
    ({"opponents": ["rule"], "seat": 2}, 400, "seat must be 0-1"),
    ({"opponents": ["rule"], "options": {"stacking": "maybe"}}, 400, "option stacking"),
    ({"opponents": ["rule"], "options": {"nope": 1}}, 400, "unknown option 'nope'"),
    ({"opponents": ["rule"], "variant": "uno-x", "options": {"stacking": "on"}}, 400,
     "unknown variant 'uno-x'; allowed"),
    ({"opponents": ["rule"], "options": {"stacking": {"a": [1]}}}, 400, "option stacking"),
    ({"opponents": "rule"}, 422, "opponents"),
    ({}, 422, "opponents: Field required"),
])
def test_a_bad_new_game_is_refused(client: TestClient, body: dict[str, Any], status: int,
                                   message: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == status, r.text
    assert message in r.json()["error"]
    assert not client.app.state.games  # type: ignore[attr-defined]


@pytest.mark.parametrize("host", ["evil.example", "localhost.evil.example", "10.0.0.1"])
def test_a_foreign_host_header_is_refused(client: TestClient, host: str) -> None:
    """DNS rebinding: a page of another site must not reach the local server."""
    for r in (client.get("/api/config", headers={"Host": host}),
              client.post("/api/games", json={"opponents": ["rule"]}, headers={"Host": host})):
        assert r.status_code == 400, r.text
    assert not client.app.state.games  # type: ignore[attr-defined]
    for local in ("localhost:8000", "127.0.0.1:8000"):
        assert client.get("/api/config", headers={"Host": local}).status_code == 200


def test_the_record_is_given_only_once_the_game_is_over(client: TestClient) -> None:
    g = start(client)
    for path in ("record", "replay.html"):
        r = client.get(f"/api/games/{g['id']}/{path}")
        assert r.status_code == 409 and "still being played" in r.json()["error"]
    left = client.post(f"/api/games/{g['id']}/leave").json()
    assert left["over"] and left["result"]["quit"] and left["legal"] == []
    r = client.get(f"/api/games/{g['id']}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = json.loads(r.text)
    assert record["result"]["quit"] and reproduce(record)[1] == []
    after = client.post(f"/api/games/{g['id']}/action",
                        json={"seat": 0, "action": g["legal"][0]["action"]})
    assert after.status_code == 409 and "the game is over" in after.json()["error"]


def test_tables_and_config(client: TestClient) -> None:
    assert client.get("/api/config").json()["agents"] == ["rule", "random"]
    flex = client.get("/api/tables/flex").json()
    assert flex["power_cards"] and flex["faces"]["red-1/blue-1"]["flex"]["name"] == "blue-1"
    assert client.get("/api/tables/nope").status_code == 404
    assert client.get("/").status_code == 200
    assert client.get("/static/uno.js").status_code == 200


def test_uno_env_serve_answers_on_the_loopback_address() -> None:
    """The command itself: it starts, binds 127.0.0.1 by default and serves the page."""
    import os
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    from web_helpers import free_port

    port = free_port()
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "uno_env.cli", "serve", "--port", str(port),
                             "--agents", "random"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config",
                                            timeout=2) as r:
                    assert json.loads(r.read())["agents"] == ["random"]
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                assert time.monotonic() < deadline, "uno-env serve did not answer"
                time.sleep(0.2)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert f"open http://127.0.0.1:{port}/" in out


def test_a_target_choice_names_the_player(client: TestClient) -> None:
    """X-effects: "target +k" counts seats from the player; the buttons and the log say whom."""
    g = start(client, variant="flex", opponents=["rule", "rule"], seed=0)
    offered: list[str] = []
    while not g["over"]:
        targets = [a for a in g["legal"] if a["kind"] == "target"]
        flex = [a for a in g["legal"] if a["kind"] == "play-flex" and "target" in a["meaning"]]
        offered += [a["meaning"] for a in targets]
        pick = targets[-1] if targets else flex[0] if flex else g["legal"][0]
        g = client.post(f"/api/games/{g['id']}/action",
                        json={"seat": 0, "action": pick["action"]}).json()
    assert offered and all(re.fullmatch(r"target \+[12]: player_[12] \(rule\) draws", m)
                           for m in offered)
    mine = [e for e in g["log"] if e["seat"] == 0 and e["text"].startswith("target +")]
    assert mine
    # the player named is the one who then draws (a Wild Target Draw Two is not challenged)
    assert any(f"{e['text'].split(': ')[1]} draws" in "; ".join(e["effects"]) for e in mine)
