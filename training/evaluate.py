"""Head-to-head evaluation of two agents: win rates with 95% Wilson confidence intervals.

Games come in pairs: each deal (from ``seed`` and the pair's index) is played twice with the
seats swapped, so luck of the deal cancels out between the two agents. With more than two
players the seats alternate between the agents (A, B, A, ...; the second game of a pair
B, A, B, ...), or, with ``seating="one"``, A takes one seat and B every other: each deal is
then played once per seat, A in each seat in turn (one agent against a field, seats
rotated; with two players both seatings are the same games). Every game's seeds derive
from ``seed`` and the game's index alone, so a run gives the same numbers with any number
of worker processes.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from uno_env.agents.base import Agent, seed_agent
from uno_env.play import play_episode
from uno_env.stats import wilson_counts
from uno_env.training.seating import (
    Tally,
    agent_instance,
    agent_seed,
    deal_group,
    deal_seed,
    seat_owner,
)


@dataclass
class AgentResult:
    name: str
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_points: float


@dataclass
class EvalResult:
    variant: str
    num_players: int
    options: dict[str, Any]
    seed: int
    games: int
    agents: list[AgentResult]
    shared: int  # games both agents won (tied match winners)
    no_winner: int  # blocked rounds without a single lowest hand, or truncated games
    truncated: int
    decisions: int
    seconds: float
    seating: str = "alternate"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def format(self) -> str:
        a, b = self.agents
        opts = "".join(f", {k}={v}" for k, v in sorted(self.options.items()))
        lines = [
            f"{a.name} vs {b.name}: {self.games} games of {self.variant}, {self.num_players} "
            f"players{opts}, seed {self.seed} ({_seating_text(self.seating, self.num_players)})",
            f"{'agent':<24} {'wins':>7} {'win rate':>9}   {'95% CI':<17} {'mean points':>11}",
        ]
        for r in self.agents:
            ci = f"[{100 * r.ci_low:.1f}%, {100 * r.ci_high:.1f}%]"
            lines.append(f"{r.name:<24} {r.wins:>7} {100 * r.win_rate:>8.1f}%   {ci:<17} "
                         f"{r.mean_points:>11.1f}")
        rate = self.games / self.seconds if self.seconds > 0 else float("inf")
        lines.append(
            f"no winner: {self.no_winner} (truncated {self.truncated}), shared wins: "
            f"{self.shared}; {self.decisions / max(self.games, 1):.0f} decisions per game, "
            f"{rate:.1f} games/s")
        return "\n".join(lines)


SEATINGS = ("alternate", "one")
ENGINES = ("auto", "batch", "python")


def _seating_text(seating: str, num_players: int) -> str:
    if seating == "one" and num_players > 2:
        return (f"A in one seat, B in the other {num_players - 1}; each deal played "
                f"{num_players} times, A in every seat")
    return "each deal played twice, seats swapped"


def _play_chunk(args: tuple[Any, ...]) -> dict[str, Any]:
    """A worker process's share of the games."""
    return play_games(*args)


def play_games(specs: Sequence[Any], variant: str, num_players: int, options: dict[str, Any],
               seed: int, start: int, stop: int, max_steps: int | None,
               on_game: Callable[[], None] | None = None,
               seating: str = "alternate") -> dict[str, Any]:
    """Play games ``start..stop-1`` of a run; returns the tallies."""
    from uno_env import raw_env

    e = raw_env(variant, num_players, max_steps=max_steps, **options)
    # one instance per (agent, seat): agents may remember the game they are in
    seated = [[agent_instance(specs[i], variant, num_players, options, s) for i in range(2)]
              for s in range(num_players)]
    tally = Tally()
    group = deal_group(num_players, seating)
    for k in range(start, stop):
        e.reset(seed=deal_seed(seed, k, group))
        owner = [seat_owner(k, s, num_players, seating) for s in range(num_players)]
        players: list[Agent] = [seated[s][owner[s]] for s in range(num_players)]
        for s, ag in enumerate(players):
            seed_agent(ag, agent_seed(seed, k, s))
            ag.reset()
        episode = play_episode(e, players)
        g = e.engine
        tally.add(owner, g.scores, g.winners(), episode.truncated, episode.steps)
        if on_game is not None:
            on_game()
    return tally.as_dict()


def evaluate(agent_a: str | Agent, agent_b: str | Agent, games: int, variant: str = "classic",
             num_players: int = 2, seed: int = 0, options: dict[str, Any] | None = None,
             workers: int = 1, max_steps: int | None = None,
             progress: bool = False, seating: str = "alternate",
             engine: str = "auto") -> EvalResult:
    """Play ``games`` games between A and B (specs such as ``"rule"`` or agent objects).

    ``seating``: ``"alternate"`` (A, B, A, ... and swapped) or ``"one"`` (A in one seat,
    B in all others, A's seat rotated over each deal's games).

    ``workers > 1`` splits the games over processes (agents must then be given as specs).
    ``max_steps`` truncates games after that many decisions (a truncated game has no
    winner and counts as a loss for both).

    ``engine``: ``"batch"`` plays on the compiled batch engine (agents ``random``, ``rule``,
    greedy ``ppo:...`` only; one process, ``workers`` unused), ``"python"`` the Python
    loop, ``"auto"`` (default) the batch engine when the agents allow it. Both give the same
    games and the same results (``training/evaluate_batch.py``).
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be an integer >= 1, got {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if seating not in SEATINGS:
        raise ValueError(f"unknown seating {seating!r}; choose one of {', '.join(SEATINGS)}")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    opts = dict(options or {})
    specs = [agent_a, agent_b]
    if workers > 1 and not all(isinstance(s, str) for s in specs):
        raise ValueError("workers > 1 needs agents given as spec strings (each process "
                         "loads its own)")
    names = [s if isinstance(s, str) else getattr(s, "name", type(s).__name__) for s in specs]
    if names[0] == names[1]:
        names = [f"A: {names[0]}", f"B: {names[1]}"]
    # fail early (bad spec, option or player count) in this process
    from uno_env import Game

    Game(variant, num_players, **opts)
    for s in specs:
        agent_instance(s, variant, num_players, opts, 0)
    batch = False
    if engine != "python":
        from uno_env.training.evaluate_batch import batch_unsupported

        why = batch_unsupported(specs, variant, num_players, opts)
        if why is not None and engine == "batch":
            raise ValueError(f"engine='batch' cannot play these games: {why}")
        batch = why is None
    bar: Any = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game")
    t0 = time.perf_counter()
    parts: list[dict[str, Any]] = []
    if batch:
        from uno_env.training.evaluate_batch import play_games_batch

        tick = None if bar is None else (lambda: bar.update(1))
        parts.append(play_games_batch([str(x) for x in specs], variant, num_players, opts,
                                      seed, 0, games, max_steps, tick, seating))
    elif workers == 1:
        tick = None if bar is None else (lambda: bar.update(1))
        parts.append(play_games(specs, variant, num_players, opts, seed, 0, games, max_steps,
                                tick, seating))
    else:
        group = deal_group(num_players, seating)
        chunk = max(group, min(1000, math.ceil(games / (workers * 4) / group) * group))
        jobs = [(specs, variant, num_players, opts, seed, lo, min(lo + chunk, games),
                 max_steps, None, seating) for lo in range(0, games, chunk)]
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for job, part in zip(jobs, pool.imap(_play_chunk, jobs), strict=True):
                parts.append(part)
                if bar is not None:
                    bar.update(job[6] - job[5])
    seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    wins = [sum(p["wins"][i] for p in parts) for i in range(2)]
    points = [sum(p["points"][i] for p in parts) for i in range(2)]
    results = []
    for i in range(2):
        lo, hi = wilson_counts(wins[i], games)
        results.append(AgentResult(names[i], wins[i], wins[i] / games, lo, hi,
                                   points[i] / games))
    return EvalResult(
        variant=variant, num_players=num_players, options=opts, seed=seed, games=games,
        agents=results, shared=sum(p["shared"] for p in parts),
        no_winner=sum(p["no_winner"] for p in parts),
        truncated=sum(p["truncated"] for p in parts),
        decisions=sum(p["decisions"] for p in parts), seconds=seconds, seating=seating,
        extra={"engine": "batch" if batch else "python"})


def to_json(result: EvalResult) -> str:
    return json.dumps(result.to_dict(), indent=2)
