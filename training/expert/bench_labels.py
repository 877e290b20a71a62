"""Labels per second: one search at a time (``PolicyPIMC.decide`` on the Python
determinization, as the search agent plays) against the batched search (``BatchPIMC``, with
the Python and with the compiled determinization), on the same positions with the same
samples, side by side in one run.

``python -m uno_env.training.expert.bench_labels [--positions 48] [--samples 16]
[--threads 1] [--profile]``. Every side pays for its determinizations (:func:`draw_samples`),
its searches and the network's probabilities at each position; the printed ratios are
seconds one at a time / seconds batched. ``--profile`` runs the one-at-a-time and the
compiled batched sides again under cProfile and prints where their time goes
(determinization, network forward, kernels).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from typing import Any

import numpy as np

from uno_env import raw_env
from uno_env.agents.pimc_batch import BatchPIMC, Position, SeatMemory, draw_samples, search_actions
from uno_env.agents.policy import load_policy
from uno_env.agents.policy_pimc import PolicyPIMC
from uno_env.agents.ppo import checkpoint_path
from uno_env.rules.game import Game

# where the batched search's time goes: profile entries whose file:function contains a key
PARTS = {"determinization": ("determinize.py",), "network forward": ("policy.py:110(forward)",),
         "playout kernels": ("advance_kernel", "apply_kernel"),
         "loading samples into rows": ("(queue)",)}


def positions(game: Game, net: Any, count: int, seed: int) -> list[tuple[Any, ...]]:
    """``count`` decisions with a choice from games of the network against itself, each with
    its seat's memory: ``(obs, mask, legal, recall, known)``."""
    import torch

    env = raw_env(game.variant.name, num_players=game.num_players, **game.options)
    out: list[tuple[Any, ...]] = []
    g = seed
    while len(out) < count:
        env.reset(seed=g)
        g += 1
        memory = {a: SeatMemory(game) for a in env.possible_agents}
        for agent in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if len(out) >= count:
                break
            if term or trunc:
                env.step(None)
                continue
            obs, mask = o["observation"], o["action_mask"]
            m = memory[agent]
            m.observe(obs)
            legal = search_actions(game, mask)
            if len(legal) > 1:
                out.append((obs, mask, legal, m.recall, m.known()))
            with torch.no_grad():
                logits, _ = net(torch.from_numpy(obs[None]), torch.from_numpy(mask[None]))
            a = int(logits.argmax())
            m.acted(obs, a)
            env.step(a)
    return out


def _sampled(game: Game, p: tuple[Any, ...], samples: int, k: int,
             compiled: bool) -> Position:
    obs, mask, legal, recall, known = p
    states, seeds = draw_samples(game, obs, mask, random.Random(k), samples, recall, known,
                                 compiled=compiled)
    return Position(obs, mask, legal, states, seeds)


def one_at_a_time(game: Game, net: Any, pos: list[tuple[Any, ...]], samples: int,
                  search: BatchPIMC) -> tuple[float, list[int]]:
    one = PolicyPIMC(game, dict(game.options), net)
    began = time.perf_counter()
    moves = []
    for k, p in enumerate(pos):
        q = _sampled(game, p, samples, k, False)
        moves.append(one.decide(q.obs, q.mask, q.legal, iter(q.states), iter(q.seeds), None))
        one.branches.results()
        search.policy(q.obs[None], q.mask[None])
    return time.perf_counter() - began, moves


def batched(game: Game, pos: list[tuple[Any, ...]], samples: int, search: BatchPIMC,
            compiled: bool = True) -> tuple[float, list[int]]:
    began = time.perf_counter()
    todo = [_sampled(game, p, samples, k, compiled) for k, p in enumerate(pos)]
    results = search.search(todo)
    search.policy(np.stack([q.obs for q in todo]), np.stack([q.mask for q in todo]))
    return time.perf_counter() - began, [r.move for r in results]


def _profile(name: str, run: Any, *args: Any) -> None:
    """Run ``run(*args)`` under cProfile; print its time per part and its top functions."""
    prof = cProfile.Profile()
    prof.runcall(run, *args)
    stats = pstats.Stats(prof)
    table = stats.stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in table.values())
    cum = {f"{k[0]}:{k[1]}({k[2]})": v[3] for k, v in table.items()}
    print(f"profile, {name} ({total:.2f} s of own time):")
    for part, keys in PARTS.items():
        s = sum(max((v for f, v in cum.items() if key in f), default=0.0) for key in keys)
        print(f"  {part:28s} {s:8.2f} s  {100 * s / total:5.1f}%")
    stats.sort_stats("tottime").print_stats(8)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--prior", default="classic-vd", help="shipped policy (ppo:...) to search")
    ap.add_argument("--positions", type=int, default=48)
    ap.add_argument("--samples", type=int, default=16, help="determinizations per position")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (1: as the uno-env commands that play agents)")
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args(argv)
    import torch

    torch.set_num_threads(a.threads)  # this program's choice, as uno-env's commands make it
    game = Game(a.variant, a.players)
    net, _ = load_policy(checkpoint_path(a.prior, a.players))
    net.eval()
    search = BatchPIMC(game, {}, net)
    pos = positions(game, net, a.positions, a.seed)
    batched(game, pos[:2], 2, search)  # warm up (compiled kernels load)
    t_one, m_one = one_at_a_time(game, net, pos, a.samples, search)
    t_py, m_py = batched(game, pos, a.samples, search, compiled=False)
    t_batch, m_batch = batched(game, pos, a.samples, search)
    n = len(pos)
    print(f"{a.variant} {a.players}p, prior {a.prior}, {n} positions x {a.samples} samples "
          f"(every legal action on each), {a.threads} torch thread(s)")
    print(f"one search at a time (PolicyPIMC.decide): {t_one:8.2f} s  {n / t_one:8.2f} labels/s")
    print(f"batched, Python determinization        : {t_py:8.2f} s  {n / t_py:8.2f} labels/s"
          f"  x{t_one / t_py:.2f}")
    print(f"batched, compiled determinization      : {t_batch:8.2f} s  "
          f"{n / t_batch:8.2f} labels/s  x{t_one / t_batch:.2f}")
    print(f"same moves: {m_one == m_py == m_batch}")
    if a.profile:
        _profile("one at a time", one_at_a_time, game, net, pos, a.samples, search)
        _profile("batched", batched, game, pos, a.samples, search)

if __name__ == "__main__":
    main()
