"""The seat's view of the table (ansi render, ``uno-env play``, ``uno-env replay --seat``) is
drawn from that seat's observation and shows exactly what it holds (docs/environments.md, F-visibility,
X-power)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from conftest import VARIANTS, iter_steps, maximal_options, player_counts

import uno_env
from uno_env.render import render_text

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _faces(text: str, names: set[str]) -> Counter[str]:
    """The card faces named in ``text`` (colour codes off)."""
    return Counter(w for w in re.findall(r"[^\s,:\[\]()]+", ANSI.sub("", text)) if w in names)


def _counts(vec: np.ndarray, names: list[str]) -> Counter[str]:
    return Counter({names[f]: int(vec[f]) for f in np.flatnonzero(vec)})


def _positions(variant: str) -> Iterator[tuple[Any, int]]:
    """(env, seat) at many points of random games, for every seat, at two player counts and
    with every optional decision on (so challenges show hands and catches happen)."""
    opts = maximal_options(variant)
    for n in player_counts(variant, opts)[:2]:
        for seed in range(4):
            e = uno_env.raw_env(variant, n, **opts)
            e.reset(seed=seed)
            rng = random.Random(seed)
            for k, _ in enumerate(iter_steps(e, rng, 400)):
                if k % 7 == 0:
                    for seat in range(n):
                        yield e, seat


def _row(lines: list[str], name: str) -> str:
    (line,) = [ln for ln in lines if ln.strip().startswith(f"{name} score")]
    return line


@pytest.mark.parametrize("variant", VARIANTS)
def test_seat_view_shows_exactly_its_observation(variant: str) -> None:
    checked = Counter[str]()
    for e, seat in _positions(variant):
        g, layout = e.engine, e.layout
        n = g.n
        names = e.possible_agents
        faces = layout.face_names
        every = set(faces)
        obs = layout.decode(layout.build(g, seat))
        for color in (False, True):
            text = render_text(g, seat, names=names, color=color)
            lines = ANSI.sub("", text).splitlines()
            body = [ln for ln in lines if not ln.startswith("legal: ")]
            # own row: the hand; the header: the top card (and in Flip the pile's other side)
            own = _row(lines, names[seat])
            assert _faces(own, every) == _counts(obs["hand"], faces)
            assert f"score {int(obs['own_score'][0]):4d} " in own
            assert ("UNO" in own.split("|")[1]) == bool(obs["own_uno"][0])
            expected = _counts(obs["hand"], faces) + _counts(obs["top"], faces)
            assert _faces(lines[1], every) == _counts(obs["top"], faces) + (
                _counts(obs["pile_hidden"], faces) if layout.sides else Counter())
            others = [(seat + k) % n for k in range(1, n)]
            nf = len(faces)
            for k, q in enumerate(others):
                row = _row(lines, names[q])
                assert f"| {int(obs['opp_hand_size'][k]):2d} cards" in row
                assert ("UNO" in row.split("|")[1]) == bool(obs["opp_uno"][k])
                shown = (_counts(obs["opp_hidden"][k * nf:(k + 1) * nf], faces)
                         if layout.sides else Counter())
                assert _faces(row, every) == shown  # nothing of their active faces
                expected += shown
                if layout.power:  # X-power: every Power Card, from the observation
                    colour = "green" if obs["opp_power"][k] else "red"
                    assert f"power {colour}" in row
                    checked["power"] += 1
            if layout.power:
                assert f"power {'green' if obs['own_power'][0] else 'red'}" in own
            if layout.sides:  # F-visibility: the other sides this seat has seen
                (mine,) = [ln for ln in lines if "other side of the cards you have seen" in ln]
                assert _faces(mine, every) == _counts(obs["own_hidden"], faces)
                expected += _counts(obs["own_hidden"], faces) + _counts(obs["pile_hidden"],
                                                                        faces)
                checked["own_hidden"] += int(obs["own_hidden"].sum())
            if obs["revealed_from"].any():  # a hand this seat's challenge showed
                expected += _counts(obs["revealed"], faces)
                checked["revealed"] += 1
            else:
                assert not any("challenge showed it" in ln for ln in lines)
            # and nothing else: every face on the table is one the observation holds
            assert _faces("\n".join(body), every) == expected, text
            legal = [ln for ln in lines if ln.startswith("legal: ")]
            mask = e.observe(names[seat])["action_mask"] if g.current == seat else None
            if mask is not None and not g.is_over:
                assert legal == ["legal: " + ", ".join(
                    f"{a}:{e.action_meanings[a]}" for a in np.flatnonzero(mask))]
            else:
                assert legal == []
        checked["views"] += 1
    assert checked["views"] > 50
    if "flip" in variant:
        assert checked["own_hidden"] and checked["revealed"]
    if variant == "flex":
        assert checked["power"]


def test_flip_seat_view_never_shows_an_opponents_active_faces() -> None:
    """Independent of the observation: every face in the view is one the rules let the seat
    see (F-visibility, G-wd-challenge), counted from the state."""
    hidden_seen = 0
    for e, seat in _positions("flip"):
        g = e.engine
        names, back = e.game.face_names, e.game.side_faces[g.side ^ 1]
        allowed = Counter(names[g.faces_of[c]] for c in g.hands[seat])
        allowed[names[g.faces_of[g.discard[-1]]]] += 1
        allowed += Counter(names[back[c]] for c in g.hands[seat] if g.known[c])
        allowed += Counter(names[back[c]] for s in range(g.n) if s != seat for c in g.hands[s])
        if g.draw_pile:
            allowed[names[back[g.draw_pile[-1]]]] += 1
        if g.revealed[seat] is not None:
            allowed += Counter({names[f]: k for f, k in enumerate(g.revealed[seat][1]) if k})
        text = "\n".join(ln for ln in render_text(g, seat, names=e.possible_agents).splitlines()
                         if not ln.startswith("legal: "))
        assert _faces(text, set(names)) == allowed, text
        active = {names[g.faces_of[c]] for s in range(g.n) if s != seat for c in g.hands[s]}
        hidden_seen += len(active - set(allowed))
        assert "|" not in text.split("\n", 2)[2].replace(" | ", "")  # no two-sided card names
    assert hidden_seen  # the opponents held faces the seat must not see, and they stayed hidden


def test_play_and_replay_draw_the_seat_view(tmp_path: Any) -> None:
    from uno_env.tournament.play import play_game
    from uno_env.tournament.replay import show

    out: list[str] = []
    record = play_game("flip", ["rule"], seat=0, seed=5, save=None, read=lambda _: "1",
                       write=out.append)
    text = ANSI.sub("", "\n".join(out))
    assert "other side of the cards you have seen" in text and "other side:" in text
    assert "top shows" in text
    # cards reach the hand under their active face only: no "red-1|pink-3" pair names
    received = [ln for ln in text.splitlines() if "you received" in ln]
    assert received and not any("|" in ln for ln in received)
    lines: list[str] = []
    show(record, seat=1, write=lines.append)
    views = [ln for ln in "\n".join(lines).splitlines()
             if ln.strip().startswith("player_0 score")]
    assert any(", other side: " in ln and "cards:" not in ln for ln in views)
    classic: list[str] = []
    play_game("classic", ["rule"], seat=0, seed=5, save=None, read=lambda _: "1",
              write=classic.append)
    assert "other side" not in "\n".join(classic)  # classic: unchanged
