"""One game of a tournament: its task (everything that fixes it) and playing it.

A game is a pure function of its :class:`GameTask`, whichever process plays it. Each seat
is a :mod:`uno_env.tournament.players` seat (in process, or a program over the protocol); any
:class:`~uno_env.tournament.protocol.AgentFault` forfeits the game for that seat only.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Protocol

from uno_env.tournament.players import seat_for
from uno_env.tournament.process import Limits
from uno_env.tournament.protocol import AgentFault
from uno_env.tournament.protocol import result as result_message


@dataclass(frozen=True)
class GameTask:
    """One game, fully determined: what a worker needs to play it."""

    index: int
    deal: int
    variant: str
    num_players: int
    options: dict[str, Any]
    max_steps: int | None
    seed: int
    deck: tuple[str, ...]
    dealer: int
    seats: tuple[int, ...]
    agents: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    limits: Limits = Limits()
    isolate: bool = False
    cwd: str | None = None
    """The folder relative program paths of ``cmd:`` specs are resolved in."""
    trusted: bool = False
    """Agent processes run without a sandbox (``--trusted-agents``, docs/sandbox.md)."""


_ENVS: dict[str, Any] = {}


def _config_key(task: GameTask) -> str:
    return json.dumps([task.variant, task.num_players, task.options, task.max_steps],
                      sort_keys=True)


def _env_for(task: GameTask) -> Any:
    key = _config_key(task)
    env = _ENVS.get(key)
    if env is None:
        from uno_env import raw_env

        env = _ENVS[key] = raw_env(task.variant, task.num_players, max_steps=task.max_steps,
                                   **task.options)
    return env


def _seats(task: GameTask, tracker: Tracker | None) -> list[Any]:
    key = _config_key(task)
    out = []
    for s in range(task.num_players):
        if tracker is not None:
            tracker.turn(s)
        out.append(seat_for(key, task.agents[s], s, task.variant, task.num_players,
                            task.agent_seeds[s], task.options, task.limits, task.isolate,
                            task.cwd, task.trusted))
    return out


def _forfeit(task: GameTask, seat: int, player: Any, fault: AgentFault) -> dict[str, Any]:
    """The record of a forfeit; the agent is stopped (a fresh one plays the next game)."""
    player.fault()
    out = {"seat": seat, "agent": task.agents[seat], "status": fault.status,
           "reason": fault.reason}
    stderr = player.stderr()
    if stderr:
        out["stderr"] = stderr
    return out


class Tracker(Protocol):
    """Told, as a game goes, whose turn it is (the seat whose agent is loaded, started,
    asked or told the result, or whose move the engine is playing) and each action taken,
    so that the host can record the game of a worker that dies
    (:mod:`uno_env.tournament.pool`)."""

    def turn(self, seat: int) -> None: ...

    def action(self, action: int) -> None: ...


def play_game(task: GameTask, tracker: Tracker | None = None) -> dict[str, Any]:
    """Play one game and return its record (a replayable JSON object, see ``replay``).

    An agent's fault (timeout, crash, invalid answer) forfeits this game only: it loses,
    every other seat wins, and the record says which status and why.
    """
    t0 = time.perf_counter()
    env = _env_for(task)
    env.reset(seed=task.seed, options={"deck": list(task.deck), "dealer": task.dealer})
    players = _seats(task, tracker)
    try:
        return _play_seats(task, env, players, t0, tracker)
    except BaseException:  # Ctrl-C or a bug: leave no agent process behind
        for p in players:
            p.fault()
        raise


def _play_seats(task: GameTask, env: Any, players: list[Any], t0: float,
                tracker: Tracker | None) -> dict[str, Any]:
    actions: list[int] = []
    forfeit: dict[str, Any] | None = None
    for seat, player in enumerate(players):
        if tracker is not None:
            tracker.turn(seat)
        try:
            player.begin(env, task.index, seat, task.agent_seeds[seat])
        except AgentFault as fault:
            forfeit = _forfeit(task, seat, player, fault)
            break
    engine = env.engine
    # own loop, not play_episode: players get env and step count, an AgentFault forfeits
    while forfeit is None and not engine.is_over and not any(env.truncations.values()):
        name = env.agent_selection
        seat = env.agent_name_mapping[name]
        if tracker is not None:
            tracker.turn(seat)
        obs = env.observe(name)
        try:
            action = players[seat].act(env, obs["observation"], obs["action_mask"],
                                       len(actions))
        except AgentFault as fault:
            forfeit = _forfeit(task, seat, players[seat], fault)
            break
        env.step(action)
        actions.append(action)
        if tracker is not None:
            tracker.action(action)
        engine = env.engine
    return _record(task, env, actions, forfeit, players, tracker, t0)


def _record(task: GameTask, env: Any, actions: list[int], forfeit: dict[str, Any] | None,
            players: list[Any], tracker: Tracker | None, t0: float) -> dict[str, Any]:
    """The record of a game that ended (tells the ``players`` still in it the result)."""
    engine = env.engine
    n = task.num_players
    truncated = forfeit is None and not engine.is_over
    if forfeit is not None:
        winners = [s for s in range(n) if s != forfeit["seat"]]
    else:
        winners = engine.winners()
    statuses = ["ok"] * n
    if forfeit is not None:
        statuses[forfeit["seat"]] = forfeit["status"]
    for seat, player in enumerate(players):
        if forfeit is None or seat != forfeit["seat"]:
            if tracker is not None:
                tracker.turn(seat)
            player.end(result_message(seat, winners, list(engine.scores), statuses, forfeit,
                                      truncated))
    record: dict[str, Any] = {
        "game": task.index,
        "deal": task.deal,
        "variant": task.variant,
        "num_players": n,
        "options": dict(env.options),
        "max_steps": task.max_steps,
        "seed": task.seed,
        "deck": list(task.deck),
        "dealer": task.dealer,
        "seats": list(task.seats),
        "agents": list(task.agents),
        "agent_seeds": list(task.agent_seeds),
        "actions": actions,
        "result": {
            "winners": winners,
            "points": list(engine.scores),
            "steps": len(actions),
            "rounds": len(engine.round_results),
            "truncated": truncated,
            "forfeit": forfeit,
            "statuses": statuses,
        },
    }
    timing = [p.timing() for p in players]
    if any(t is not None for t in timing):
        record["limits"] = task.limits.message()
        record["timing"] = {"seconds": round(time.perf_counter() - t0, 3), "seats": timing}
    return record


def lost_game(task: GameTask, actions: list[int], seat: int, reason: str) -> dict[str, Any]:
    """The record of a game whose worker process died while ``seat``'s agent was being
    waited for, after ``actions``: a crash forfeit of that agent (the host replays the
    actions to rebuild the position, so the record stays replayable)."""
    env = _env_for(task)
    env.reset(seed=task.seed, options={"deck": list(task.deck), "dealer": task.dealer})
    for action in actions:
        env.step(action)
    forfeit = {"seat": seat, "agent": task.agents[seat], "status": "crash", "reason": reason}
    return _record(task, env, list(actions), forfeit, [], None, time.perf_counter())
