"""Game records (one JSON line per game) and ``uno-env replay``.

A record holds what makes a game reproducible: ``variant``, ``num_players``, ``options``,
``max_steps``, ``seed`` (the engine seed given to ``reset``), ``deck`` (card names, top of
the pile first), ``dealer`` and ``actions`` (action indices, in order); plus who played
(``agents``, per seat) and the ``result`` (``winners``, ``points``, ``steps``, ``rounds``,
``truncated``, ``forfeit``). Tournaments write them to ``games.jsonl``; ``uno-env play``
appends the games people play. Replaying resets the env with the seed, deck and dealer and
steps the actions: the game comes out exactly as it was played.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

RECORD_KEYS = ("variant", "num_players", "options", "seed", "deck", "dealer", "actions")


def read_records(path: Path | str) -> list[dict[str, Any]]:
    """Every complete record in a JSONL file (a torn last line is skipped)."""
    out = []
    with Path(path).open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as err:
                if not line.endswith("\n"):
                    break  # a game being written when its writer was stopped
                raise ValueError(f"{path}:{n} is not a game record: {err}") from err
            missing = [k for k in RECORD_KEYS if k not in rec]
            if missing:
                raise ValueError(f"{path}:{n} is not a game record: missing {missing}")
            out.append(rec)
    return out


def append_record(path: Path | str, record: dict[str, Any]) -> None:
    """Add one record to a JSONL file (created with its folder when missing)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, separators=(",", ":")) + "\n")


def pick(records: list[dict[str, Any]], game: int | None) -> dict[str, Any]:
    """The record with ``"game": game`` (else the game-th line); the first when None."""
    if not records:
        raise ValueError("the file holds no game records")
    if game is None:
        return records[0]
    for rec in records:
        if rec.get("game") == game:
            return rec
    if all("game" not in r for r in records) and 0 <= game < len(records):
        return records[game]
    have = [r.get("game", i) for i, r in enumerate(records)]
    shown = f"{have[0]}-{have[-1]}" if len(have) > 3 else ", ".join(map(str, have))
    raise ValueError(f"no game {game} in the file; it holds games {shown}")


def new_env(record: dict[str, Any], reveal: bool = False) -> Any:
    """A fresh ``raw_env`` of the record's configuration, reset to its deal."""
    from uno_env import raw_env

    env = raw_env(record["variant"], record["num_players"], render_mode="ansi",
                  reveal_hands=reveal, max_steps=record.get("max_steps"),
                  **record["options"])
    env.reset(seed=record["seed"], options={"deck": record["deck"], "dealer": record["dealer"]})
    return env


def replay(record: dict[str, Any], reveal: bool = False) -> Iterator[tuple[Any, int, int]]:
    """Yield ``(env, seat, action)`` before each recorded action is applied; the env has
    taken every action once the iteration ends."""
    return replay_into(new_env(record, reveal), record)


def replay_into(env: Any, record: dict[str, Any]) -> Iterator[tuple[Any, int, int]]:
    """:func:`replay` on an env already reset to the record's deal."""
    for i, action in enumerate(record["actions"]):
        engine = env.engine
        if engine.is_over or action not in engine.legal:
            raise ValueError(f"action {i} ({action}) is not legal in the replayed game: the "
                             "record does not belong to this version of the rules")
        yield env, engine.current, action
        env.step(action)


def outcome(env: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The result fields of the game the env holds (as ``result`` in a record)."""
    engine = env.engine
    forfeit = (record.get("result") or {}).get("forfeit")
    n = record["num_players"]
    if forfeit is not None:
        winners = [s for s in range(n) if s != forfeit["seat"]]
    else:
        winners = engine.winners()
    return {"winners": winners, "points": list(engine.scores),
            "steps": len(record["actions"]), "rounds": len(engine.round_results),
            "truncated": forfeit is None and not engine.is_over
            and any(env.truncations.values())}


def reproduce(record: dict[str, Any]) -> tuple[Any, list[str]]:
    """Replay the whole game; return the env at the end and the result fields that differ
    from the recorded ones (empty: reproduced exactly)."""
    env = new_env(record)
    for _env, _seat, _action in replay_into(env, record):
        pass
    return env, _differences(env, record)


def _differences(env: Any, record: dict[str, Any]) -> list[str]:
    want = record.get("result")
    if not want or want.get("quit"):
        return []
    got = outcome(env, record)
    return [f"{k}: recorded {want[k]!r}, replayed {got[k]!r}" for k in got
            if k in want and want[k] != got[k]]


def show(record: dict[str, Any], seat: int | None = None, reveal: bool = False,
         write: Callable[[str], None] = print, color: bool = False,
         pause: Callable[[], None] | None = None) -> list[str]:
    """Print the game move by move (from ``seat``'s chair, everyone's hands with
    ``reveal``, else the chair of whoever acts); returns the result differences."""
    from uno_env.render import render_text

    n = record["num_players"]
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat must be 0-{n - 1}, got {seat}")
    agents = record.get("agents") or ["?"] * n
    names = [f"player_{s}" for s in range(n)]
    label = [f"{names[s]} ({agents[s]})" for s in range(n)]
    head = (f"{record['variant']}, {n} players, seed {record['seed']}, dealer "
            f"{names[record['dealer']]}; " + ", ".join(label))
    if "game" in record:
        head = f"game {record['game']}: " + head
    write(head)
    env = new_env(record, reveal)
    meanings = env.action_meanings
    for i, (e, actor, action) in enumerate(replay_into(env, record), 1):
        view = actor if seat is None else seat
        write(render_text(e.engine, view, reveal=reveal, names=names, color=color))
        write(f"  move {i}: {label[actor]} -> {meanings[action]}\n")
        if pause is not None:
            pause()
    engine = env.engine
    write(render_text(engine, 0 if seat is None else seat, reveal=True, names=names,
                      color=color))
    result = record.get("result") or {}
    forfeit = result.get("forfeit")
    if forfeit is not None:
        write(f"{label[forfeit['seat']]} forfeits: {forfeit['reason']}")
    if result.get("quit"):
        write("the game was left unfinished")
    got = outcome(env, record)
    won = ", ".join(label[s] for s in got["winners"]) or "nobody"
    write(f"winner: {won}; points {got['points']}; {got['steps']} decisions")
    diffs = _differences(env, record)
    if diffs:
        write("WARNING: the replay differs from the record: " + "; ".join(diffs))
    elif result and not result.get("quit"):
        write("replay matches the recorded result")
    return diffs
