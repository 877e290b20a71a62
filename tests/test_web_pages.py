"""The pages as files (no browser): a replay page is self-contained and holds the whole game,
a tournament writes index.html with a replay per game, and the views say only what the
seat's observation holds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from uno_env import PHASES
from uno_env.cli import main as uno_main
from uno_env.tournament.replay import new_env, read_records
from uno_env.tournament.runner import TournamentConfig, run_tournament
from uno_env.tournament.web.pages import replay_data, replay_html, script_json
from uno_env.tournament.web.report import write_index
from uno_env.tournament.web.view import effects, public_facts, seat_view

CONFIG = TournamentConfig(agents=["rule", "random", "py:test_tournament:CrashAgent"],
                          variant="classic", players=2, games=6, seed=5, max_steps=20)


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Finished games, a forfeit and games cut at max_steps."""
    out = tmp_path_factory.mktemp("pages")
    run_tournament(CONFIG, out=out, progress=False)
    return out / "games.jsonl"


def page_data(text: str) -> dict[str, Any]:
    m = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', text, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def test_a_replay_page_is_one_self_contained_file(logged: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.html"
    assert uno_main(["replay", str(logged), "--game", "1", "--reveal", "--html", str(out)]) == 0
    text = out.read_text()
    # nothing to fetch (the icon is an empty data: URL, so the browser asks for no favicon)
    assert re.findall(r"<(?:script|img|link)[^>]+(?:src|href)=\"([^\"]*)", text) == ["data:,"]
    assert "http://" not in text and "https://" not in text
    data = page_data(text)
    record = read_records(logged)[1]
    assert data["start_view"] == "all"
    assert [m["action"] for m in data["moves"]] == record["actions"]
    assert len(data["frames"]) == len(record["actions"]) + 1
    assert data["result"]["points"] == record["result"]["points"]
    assert data["result"]["differences"] == []


def test_every_kind_of_record_makes_a_page(logged: Path) -> None:
    kinds = set()
    for rec in read_records(logged):
        data = replay_data(rec)
        res = data["result"]
        kinds.add("forfeit" if res["forfeit"] else "truncated" if res["truncated"] else "done")
        assert data["agents"] == rec["agents"]
        for m in data["moves"]:  # every decision: who, which action, the other choices
            assert m["action"] not in m["legal"]
    assert kinds == {"forfeit", "truncated", "done"}


def test_a_seat_out_of_range_is_refused(logged: Path) -> None:
    with pytest.raises(ValueError, match="seat must be 0-1, got 2"):
        replay_html(read_records(logged)[0], seat=2)


def test_data_cannot_close_the_script_element() -> None:
    text = script_json({"agent": "</script><script>alert(1)</script>&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["agent"].startswith("</script>")


def test_a_tournament_writes_index_html_with_a_replay_per_game(tmp_path: Path) -> None:
    out = tmp_path / "t"
    assert uno_main(["tournament", "--agents", "rule,random", "--games", "4", "--workers", "1",
                     "--out", str(out), "--no-progress"]) == 0
    records = read_records(out / "games.jsonl")
    index = (out / "index.html").read_text()
    links = re.findall(r"href='(replays/game-\d+\.html)'", index)
    assert len(links) == len(records) == 4
    for link, rec in zip(links, records, strict=True):
        page = (out / link).read_text()
        assert 'src="assets/uno.js"' in page
        assert [m["action"] for m in page_data(page)["moves"]] == rec["actions"]
    assert {p.name for p in (out / "replays" / "assets").iterdir()} == {
        "uno.css", "uno.js", "replay.js"}
    assert "head to head" in index and "ratings.png" in index and "standings" in index
    summary = json.loads((out / "results.json").read_text())
    for a in summary["agents"]:
        assert f"[{100 * a['ci_low']:.1f}, {100 * a['ci_high']:.1f}]" in index
        assert f"{a['mu']:.2f} ± {a['sigma']:.2f}" in index


def test_index_without_replay_pages(tmp_path: Path, logged: Path) -> None:
    from uno_env.tournament.results import summarize

    records = read_records(logged)
    write_index(tmp_path, summarize(records, CONFIG.names), records, replays=False)
    assert "replays/" not in (tmp_path / "index.html").read_text()
    assert not (tmp_path / "replays").exists()


@pytest.mark.parametrize("variant,players", [("classic", 3), ("flip", 3), ("flex", 4),
                                             ("express", 2)])
def test_a_seat_view_holds_only_the_observation(variant: str, players: int) -> None:
    """Opponents' hands are counts (Flip: their other sides; Flex: Power Cards); the own
    hand and the top card are the seat's."""
    cfg = TournamentConfig(agents=["rule", "random"], variant=variant, players=players,
                           games=players, seed=2, max_steps=60)
    record = run_tournament(cfg, progress=False)[0]
    env = new_env(record)
    for action in record["actions"][:30]:
        state = env.engine
        names = env.game.face_names
        for s in range(players):
            v = seat_view(env.layout, env.observe(f"player_{s}"), s)
            assert sorted(v["players"][s]["cards"]) == sorted(
                names[state.faces_of[c]] for c in state.hands[s])
            assert v["top"] == names[state.faces_of[state.discard[-1]]]
            for q in range(players):
                assert v["players"][q]["hand"] == len(state.hands[q])
                if q != s:
                    assert v["players"][q]["cards"] is None
                if variant == "flip" and q != s:
                    other = env.game.side_faces[state.side ^ 1]
                    assert sorted(v["players"][q]["backs"]) == sorted(
                        names[other[c]] for c in state.hands[q])
                if variant == "flex":
                    assert v["players"][q]["power"] == state.power[q]
            assert v["phase"] == (PHASES[state.phase] if s == state.current else None)
        env.step(action)


def test_effects_say_what_a_decision_caused() -> None:
    before = {"hand": [3, 5], "side": 0, "dir": 1, "power": [True, True], "rounds": 0,
              "scores": [0, 0]}
    after = {**before, "hand": [3, 9], "side": 1, "dir": -1, "power": [False, True]}
    names = ["you", "player_1"]
    assert effects(before, after, names, 0, 0) == [
        "player_1 draws 4", "everything flips to the dark side", "play turns counter-clockwise",
        "your Power Card turns red"]
    done = {**before, "rounds": 1, "scores": [0, 50]}
    assert effects(before, done, names, 1, 0) == ["round over: player_1 +50 points"]
    record = run_tournament(TournamentConfig(agents=["rule", "rule"], games=2, seed=1,
                                             max_steps=5), progress=False)[0]
    assert set(public_facts(new_env(record).engine)) == set(before)


def test_a_bigger_table_gets_a_shared_table_matrix(tmp_path: Path) -> None:
    from uno_env.tournament.results import summarize
    from uno_env.tournament.web.report import shared_tables

    cfg = TournamentConfig(agents=["rule", "random", "rule"], players=3, games=6, seed=4,
                           max_steps=200)
    records = run_tournament(cfg, progress=False)
    table = shared_tables(records, cfg.names)
    a, b = cfg.names[0], cfg.names[1]
    both = [r for r in records if 0 in r["seats"] and 1 in r["seats"]]
    wins = sum(s in r["result"]["winners"] for r in both for s, x in enumerate(r["seats"])
               if x == 0)
    assert table[a][b]["games"] == sum(r["seats"].count(0) for r in both)
    assert table[a][b]["wins"] == wins
    write_index(tmp_path, summarize(records, cfg.names), records, replays=False)
    assert "sat at the same table" in (tmp_path / "index.html").read_text()
