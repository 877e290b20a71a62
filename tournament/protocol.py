"""The agent protocol, version 1: the JSON lines a runner and an agent exchange over stdio.

Pure message building and checking, no processes (those are :mod:`uno_env.tournament.process`), so
the runner, the Python host (:mod:`uno_env.tournament.host`), ``check-agent`` and the tests share
one definition. The protocol is specified in ``docs/protocol.md``; every message is an
instance of ``docs/protocol.schema.json``.

runner -> agent: ``hello`` (once per game), ``act`` (once per decision), ``result`` (once
per game). agent -> runner: ``{"action": i}`` to each ``act``, nothing else on stdout.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 1 << 16
"""An answer longer than this (without a newline) is ``invalid``: a reply is a few bytes."""

STATUSES = ("ok", "timeout", "crash", "invalid")
"""How an agent's game ended: ``ok``, or the fault that forfeited the game."""


class AgentFault(Exception):
    """An agent forfeits the game: ``status`` is one of timeout, crash, invalid."""

    def __init__(self, status: str, reason: str) -> None:
        if status not in STATUSES[1:]:
            raise ValueError(f"status {status!r} is not a fault; allowed: {STATUSES[1:]}")
        super().__init__(f"{status}: {reason}")
        self.status = status
        self.reason = reason


def layout(env: Any) -> dict[str, Any]:
    """The observation layout of ``env`` (a ``raw_env``): named pieces of the flat vector."""
    lay = env.layout
    return {
        "size": lay.size,
        "pieces": [{"name": p.name, "start": p.start, "size": p.size,
                    "high": None if math.isinf(p.high) else p.high, "doc": p.doc}
                   for p in lay.pieces],
        "face_names": list(lay.face_names),
    }


def hello(env: Any, seat: int, game: int, seed: int, limits: dict[str, Any]) -> dict[str, Any]:
    """The first message of a game: everything fixed for its length."""
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "variant": env.variant,
        "num_players": env.num_players,
        "seat": seat,
        "seed": seed,
        "options": dict(env.options),
        "max_steps": env.max_steps,
        "action_meanings": list(env.action_meanings),
        "observation": layout(env),
        "limits": limits,
    }


def numbers(obs: np.ndarray) -> list[Any]:
    """The observation as JSON numbers: integers where the values are whole (they all are
    today), floats otherwise. Both read back into the same float32 values."""
    if np.all(np.floor(obs) == obs):
        whole: list[Any] = obs.astype(np.int64).tolist()
        return whole
    return [float(x) for x in obs]


def act(env: Any, obs: np.ndarray, mask: np.ndarray, step: int, move_ms: int,
        bank_ms: int) -> dict[str, Any]:
    """A decision to take, with the time for it: ``move_ms`` plus what is left of the bank."""
    flat = numbers(obs)
    return {
        "type": "act",
        "step": step,
        "phase": env.phase,
        "observation": flat,
        "pieces": {p.name: flat[p.start:p.stop] for p in env.layout.pieces},
        "legal": np.flatnonzero(mask).tolist(),
        "move_ms": move_ms,
        "bank_ms": bank_ms,
        "time_left_ms": move_ms + bank_ms,
    }


def result(seat: int, winners: list[int], points: list[Any], statuses: list[str],
           forfeit: dict[str, Any] | None, truncated: bool) -> dict[str, Any]:
    """The last message of a game."""
    return {"type": "result", "seat": seat, "winners": winners,
            "points": [float(p) for p in points], "statuses": statuses,
            "forfeit": None if forfeit is None else {k: forfeit[k] for k in
                                                     ("seat", "status", "reason")},
            "truncated": truncated}


def encode(message: dict[str, Any]) -> bytes:
    """One line of compact JSON."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode() + b"\n"


def parse_answer(line: bytes, legal: list[int]) -> int:
    """The action of an agent's answer line; :class:`AgentFault` ``invalid`` says what is
    wrong with it (bad JSON, not an object, no integer ``action``, an illegal index)."""
    shown = line[:80].decode("utf-8", "replace")
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError) as err:  # bad JSON or UTF-8, a 5000-digit
        # integer (int's digit limit), 20,000 nested brackets: the answer's fault, never ours
        why = "" if isinstance(err, json.JSONDecodeError) else f" ({type(err).__name__}: " \
            f"{str(err)[:80]})"
        raise AgentFault("invalid", f"answer is not JSON: {shown!r}{why}") from None
    if not isinstance(msg, dict):
        raise AgentFault("invalid", f"answer must be a JSON object like {{\"action\": 3}}, "
                                    f"got {shown!r}")
    action = msg.get("action")
    if isinstance(action, float) and action.is_integer():  # JSON has one number type
        action = int(action)
    if not isinstance(action, int) or isinstance(action, bool):
        raise AgentFault("invalid", f"answer needs an integer \"action\", got {shown!r}")
    if action not in legal:
        raise AgentFault("invalid", f"illegal action {action} (legal: {legal[:20]}"
                                    f"{'...' if len(legal) > 20 else ''})")
    return action
