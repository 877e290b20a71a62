"""Greedy evaluation of a self-play policy during training: the policy's network in one seat,
an ``agents.load`` opponent in every other, all running games' policy decisions batched.

(``uno_env.training.evaluate`` is the head-to-head evaluation of any two agents, each deal played
twice with the seats swapped; the results tables use that one.)"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from uno_env import raw_env
from uno_env.agents.policy import PolicyNet
from uno_env.seeding import slot_seed
from uno_env.stats import wilson_counts
from uno_env.training.selfplay.rollout import sample_actions


def evaluate_policy(net: PolicyNet, opponent: str, games: int, variant: str = "classic",
                    num_players: int = 2, options: dict[str, Any] | None = None,
                    max_steps: int | None = 2000, seed: int = 0, num_envs: int = 64,
                    greedy: bool = True) -> dict[str, Any]:
    """``net`` in one seat (seat ``g % num_players`` in game ``g``), ``opponent`` (an
    ``agents.load`` spec) in every other seat; game ``g`` is dealt from ``seed + g``.

    Policy decisions of all running games are batched. A game counts as won when the
    policy's seat is paid a positive reward; truncated games count as not won.
    """
    from uno_env import agents

    opts = dict(options or {})
    k = max(1, min(num_envs, games))
    envs = [raw_env(variant, num_players, max_steps=max_steps, **opts) for _ in range(k)]
    names = envs[0].possible_agents
    opp = [[agents.load(opponent, variant=variant, num_players=num_players,
                        seed=slot_seed(seed, i, s), **opts) for s in range(num_players)]
           for i in range(k)]
    rng = np.random.default_rng(seed)
    game_of = [-1] * k
    seat_of = [0] * k
    ret = [0.0] * k
    started = 0
    wins = truncated = finished = 0

    def start(i: int) -> None:
        nonlocal started
        if started >= games:
            game_of[i] = -1
            return
        g = started
        started += 1
        game_of[i] = g
        seat_of[i] = g % num_players
        ret[i] = 0.0
        envs[i].reset(seed=seed + g)
        for a in opp[i]:
            a.reset()

    for i in range(k):
        start(i)
    d = envs[0].layout.size
    a_n = envs[0].game.num_actions
    obs = np.zeros((k, d), dtype=np.float32)
    mask = np.zeros((k, a_n), dtype=np.bool_)
    acts = np.zeros(k, dtype=np.int64)
    was_training = net.training
    net.eval()
    # own loop, not play_episode: one step across all envs per tick, batched network calls
    while finished < games:
        mine: list[int] = []
        live = [i for i in range(k) if game_of[i] >= 0]
        for i in live:
            e = envs[i]
            agent = e.agent_selection
            s = e.agent_name_mapping[agent]
            o = e.observe(agent)
            if s == seat_of[i]:
                obs[i] = o["observation"]
                mask[i] = o["action_mask"]
                mine.append(i)
            else:
                acts[i] = opp[i][s].act(o["observation"], o["action_mask"])
        if mine:
            mi = np.asarray(mine)
            with torch.no_grad():
                logits, _ = net(torch.from_numpy(obs[mi]), torch.from_numpy(mask[mi]))
            acts[mi] = sample_actions(logits.numpy(), rng, greedy)[0]
        for i in live:
            e = envs[i]
            e.step(int(acts[i]))
            ret[i] += e.rewards[names[seat_of[i]]]
            if e.terminations[names[0]] or e.truncations[names[0]]:
                wins += int(ret[i] > 0)
                truncated += int(e.truncations[names[0]])
                finished += 1
                start(i)
    net.train(was_training)
    lo, hi = wilson_counts(wins, games)
    return {"opponent": opponent, "games": games, "wins": wins, "truncated": truncated,
            "win_rate": wins / games if games else 0.0, "ci_low": lo, "ci_high": hi,
            "seed": seed}


def evaluate_policy_batch(net: PolicyNet, opponent: str, games: int, variant: str = "classic",
                          num_players: int = 2, options: dict[str, Any] | None = None,
                          max_steps: int | None = 2000, seed: int = 0, num_envs: int = 64,
                          greedy: bool = True) -> dict[str, Any]:
    """:func:`evaluate_policy` on the batch engine: ``k`` slots play ``ceil(games / k)``
    games each (so long games count as often as short ones), slot ``i`` dealt from
    ``seed + i`` and continuing its seeder, the policy in seat ``(i + g) % num_players`` of
    the slot's ``g``-th game. Reports the games actually played (``>= games``)."""
    from uno_env import agents
    from uno_env.batch.vector import VectorEnv

    opts = dict(options or {})
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    quota = -(-games // max(1, num_envs))
    k = -(-games // quota)
    n = num_players
    env = VectorEnv(variant, n, k, max_steps=max_steps, **opts)
    opp = [[agents.load(opponent, variant=variant, num_players=n, seed=slot_seed(seed, i, s),
                        **opts) for s in range(n)] for i in range(k)]
    rng = np.random.default_rng(seed)
    dev = next(net.parameters()).device
    played = np.zeros(k, dtype=np.int64)
    seat = np.arange(k) % n
    ret = np.zeros(k)
    wins = truncated = 0
    acts = np.zeros(k, dtype=np.int64)
    was_training = net.training
    net.eval()
    obs, info = env.reset(seed=seed)
    while (played < quota).any():
        mask, cur = info["action_mask"], info["current_player"]
        mine = np.flatnonzero(cur == seat)
        for i in np.flatnonzero(cur != seat).tolist():
            acts[i] = opp[i][cur[i]].act(obs[i], mask[i])
        if len(mine):
            with torch.inference_mode():
                logits, _ = net(torch.from_numpy(obs[mine]).to(dev),
                                torch.from_numpy(mask[mine]).to(dev))
            acts[mine] = sample_actions(logits.cpu().numpy(), rng, greedy)[0]
        obs, rew, term, trunc, info = env.step(acts)
        ret += rew[np.arange(k), seat]
        for i in np.flatnonzero(term | trunc).tolist():
            if played[i] < quota:
                wins += int(ret[i] > 0)
                truncated += int(trunc[i])
            played[i] += 1
            ret[i] = 0.0
            seat[i] = (i + played[i]) % n
            for a in opp[i]:
                a.reset()
    net.train(was_training)
    total = k * quota
    lo, hi = wilson_counts(wins, total)
    return {"opponent": opponent, "games": total, "wins": wins, "truncated": truncated,
            "win_rate": wins / total, "ci_low": lo, "ci_high": hi, "seed": seed}
