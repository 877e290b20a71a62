"""Search labels from games against ``rule``, many games at once (docs/expert-iteration.md).

``generate`` plays ``games`` games on the compiled batch engine
(``uno_env.batch.learner.LearnerVectorEnv``): one learner seat per game, every other seat
the compiled ``rule`` opponent. At each tick every game waits at a learner decision; all of
them that have something to compare are searched together (:class:`BatchPIMC`), each yields a
label, and the learner plays the search's move (``play="search"``: the run measures the
search's win rate against ``rule``) or the network's (``play="network"``).

Games are played in chunks of ``chunk`` games, ``parallel`` of them at a time (a finished game's
slot deals the chunk's next game); chunk ``k`` depends on ``seed``, ``iteration`` and ``k``
alone, and is written to the store in one piece. A run stopped at any point and started again
with the same arguments skips the chunks listed, plays the others, and ends with the same
labels as a run that never stopped.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.aec import DEFAULT_MAX_STEPS
from uno_env.agents.pimc_batch import (
    ROWS,
    BatchPIMC,
    Position,
    SeatMemory,
    draw_samples,
    search_actions,
)
from uno_env.batch.learner import LearnerVectorEnv
from uno_env.rules.game import Game
from uno_env.seeding import derive_seed
from uno_env.stats import wilson_counts
from uno_env.training.expert.labels import FIELDS, LabelStore, empty_labels

PLAYS = ("search", "network")  # whose move the learner plays


@dataclass(frozen=True)
class Generation:
    """What a run did: ``games`` played (all chunks, resumed ones included), the learner's
    ``wins`` and their rate with its 95% Wilson interval, ``labels`` made, and this call's
    ``seconds`` and freshly searched positions (``searched``)."""

    games: int
    wins: int
    win_rate: float
    low: float
    high: float
    labels: int
    seconds: float
    searched: int
    play: str


class _Chunk:
    """The labels and results of one chunk of games while it is played."""

    def __init__(self) -> None:
        self.rows: dict[str, list[Any]] = {k: [] for k in FIELDS}
        self.games = self.wins = self.truncated = 0

    def arrays(self, obs_dim: int, num_actions: int) -> dict[str, np.ndarray]:
        if not self.rows["move"]:
            return empty_labels(obs_dim, num_actions)
        return {k: np.asarray(np.stack(v) if FIELDS[k][1] == 2 else v, dtype=FIELDS[k][0])
                for k, v in self.rows.items()}


def network_digest(net: Any) -> str:
    """A digest of the network's weights: a store's labels come from one network."""
    h = hashlib.blake2b(digest_size=8)
    for name, t in net.state_dict().items():
        h.update(name.encode())
        h.update(t.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


def generate(net: Any, out: str | Path | None, games: int, *, variant: str = "classic",
             players: int = 2, options: dict[str, Any] | None = None, samples: int = 200,
             play: str = "search", seed: int = 0, iteration: int = 0, chunk: int = 256,
             parallel: int | None = None, opponent: str = "prior", z: float = 1.5,
             rows: int = ROWS, max_steps: int | None = DEFAULT_MAX_STEPS,
             searcher: BatchPIMC | None = None,
             progress: Callable[[int, int], None] | None = None) -> Generation:
    """Play ``games`` games of the learner (``net`` deciding through the search) against
    ``rule``; labels go to the store in ``out`` (``None``: none are kept, e.g. to measure the
    win rate alone). ``samples`` determinizations per searched position; ``opponent``, ``z``
    as in :class:`~uno_env.agents.policy_pimc.PolicyPIMC`; ``searcher`` reuses a
    :class:`BatchPIMC` built for this table. ``progress(games, labels)``, if given, is
    called after each chunk (a resumed one too) with the games and labels so far, e.g. to
    move a progress bar."""
    options = dict(options or {})
    for name, v, least in (("games", games, 1), ("samples", samples, 1), ("chunk", chunk, 1),
                         ("parallel", 1 if parallel is None else parallel, 1),
                         ("seed", seed, 0), ("iteration", iteration, 0)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {v!r}")
    if play not in PLAYS:
        raise ValueError(f"play must be one of {', '.join(PLAYS)}, got {play!r}")
    game = Game(variant, players, **options)
    search = searcher or BatchPIMC(game, options, net, opponent=opponent, z=z, rows=rows)
    if (search.game.variant.name, search.game.num_players, search.game.options) != (
            game.variant.name, game.num_players, game.options):
        raise ValueError("the searcher was built for another table (variant, players or "
                         "rule options differ)")
    if (search.net, search.opponent, search.z) != (net, opponent, float(z)):
        raise ValueError(f"the searcher searches with another network or settings "
                         f"(opponent={search.opponent!r}, z={search.z}); pass its net, "
                         f"opponent and z")
    slots = min(int(parallel or chunk), int(chunk))
    env = LearnerVectorEnv(slots, variant, players, opponents=["rule"], max_steps=max_steps,
                           copy=True, **options)
    meta = {"variant": game.variant.name, "players": players, "options": dict(game.options),
            "env_version": game.variant.version, "seed": int(seed),
            "iteration": int(iteration), "network": network_digest(net),
            "samples": int(samples), "play": play,
            "opponent": opponent, "z": float(z), "chunk": int(chunk), "games": int(games),
            "max_steps": max_steps}
    store = None if out is None else LabelStore(out, meta)
    began = time.perf_counter()
    total_games = total_wins = total_labels = searched = 0
    for k in range((games + chunk - 1) // chunk):
        n = min(chunk, games - k * chunk)
        if store is not None and store.done(k):
            c = store.chunks[k]
            total_games, total_wins = total_games + c["games"], total_wins + c["wins"]
            total_labels += c["labels"]
            if progress is not None:
                progress(total_games, total_labels)
            continue
        part = _play_chunk(env, search, game, k * chunk, n, int(samples), play,
                           derive_seed(int(seed), int(iteration), k))
        labels = part.arrays(env.obs_dim, env.num_actions)
        searched += len(labels["move"])
        total_games, total_wins = total_games + part.games, total_wins + part.wins
        total_labels += len(labels["move"])
        if store is not None:
            store.write(k, labels, {"games": part.games, "wins": part.wins,
                                    "truncated": part.truncated})
        if progress is not None:
            progress(total_games, total_labels)
    low, high = wilson_counts(total_wins, total_games)
    return Generation(total_games, total_wins, total_wins / total_games, low, high,
                      total_labels, time.perf_counter() - began, searched, play)


def _play_chunk(env: LearnerVectorEnv, search: BatchPIMC, game: Game, first: int, n: int,
                samples: int, play: str, chunk_seed: int) -> _Chunk:
    """Games ``first .. first+n-1``, ``env.num_envs`` at a time; their labels and results."""
    slots = env.num_envs
    obs, info = env.reset(seed=[derive_seed(chunk_seed, i) for i in range(slots)])
    mask = info["action_mask"]
    gid = [first + i if i < n else -1 for i in range(slots)]  # -1: the slot is idle
    started = min(n, slots)
    steps = [0] * slots
    memory = [SeatMemory(game) for _ in range(slots)]
    part = _Chunk()
    while any(g >= 0 for g in gid):
        actions = np.zeros(slots, np.int64)
        positions: list[Position] = []
        who: list[int] = []
        for i in range(slots):
            if gid[i] < 0:  # an idle slot plays on, unrecorded, until the chunk ends
                actions[i] = int(np.flatnonzero(mask[i])[0])
                continue
            memory[i].observe(obs[i])
            legal = search_actions(game, mask[i])
            if len(legal) == 1:
                actions[i] = legal[0]
                continue
            rng = random.Random(derive_seed(chunk_seed, gid[i], steps[i]))
            states, seeds = draw_samples(game, obs[i], mask[i], rng, samples,
                                         memory[i].recall, memory[i].known())
            positions.append(Position(obs[i], mask[i], legal, states, seeds))
            who.append(i)
        if positions:
            results = search.search(positions)
            prior = search.policy(obs[who], mask[who])
            for r, i, p in zip(results, who, prior, strict=True):
                actions[i] = r.move if play == "search" else r.first
                row = part.rows
                for key, v in (("obs", obs[i]), ("mask", mask[i]), ("q", r.q),
                               ("visits", r.visits), ("prior", p), ("move", r.move),
                               ("game", gid[i]), ("seat", info["seat"][i]),
                               ("step", steps[i]), ("samples", samples)):
                    row[key].append(v)
        for i in range(slots):
            if gid[i] >= 0:
                memory[i].acted(obs[i], int(actions[i]))
                steps[i] += 1
        obs, rewards, term, trunc, info = env.step(actions)
        mask = info["action_mask"]
        for i in np.flatnonzero(term | trunc).tolist():
            if gid[i] < 0:
                continue
            part.games += 1
            part.wins += int(rewards[i] > 0)
            part.truncated += int(trunc[i])
            gid[i], steps[i] = (first + started, 0) if started < n else (-1, 0)
            started += int(gid[i] >= 0)
            memory[i].reset()
    return part
