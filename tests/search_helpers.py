"""Shared by the search agents' tests (test_ismcts.py, test_policy_pimc.py): a whole game
played by one agent per seat, and other deals that one seat cannot tell from the real one."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from uno_env import raw_env
from uno_env.determinize import determinize


def play_to_end(env: raw_env, players: Sequence[Any], seed: int = 11) -> int:
    """Play a game from ``reset(seed)`` with ``players[seat]``; every move must be legal and
    the game must end. Returns the decisions made."""
    env.reset(seed=seed)
    for p in players:
        p.reset()
    decisions = 0
    for agent in env.agent_iter(max_iter=5000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = players[env.agent_name_mapping[agent]].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        env.step(a)
        decisions += 1
    assert env.engine.is_over and decisions > 0
    return decisions


def hidden_variants(env: raw_env, count: int) -> list[dict[str, Any]]:
    """Snapshots of the same position with other hidden cards (each a consistent deal)."""
    s = env.engine
    seat = s.current
    obs = env.layout.build(s, seat)
    mask = np.zeros(env.game.num_actions, dtype=np.int8)
    mask[s.legal] = 1
    base = env.snapshot()
    out = []
    for i in range(count):
        alt = determinize(env.game, obs, mask, random.Random(1000 + i), seat=seat)
        d = alt.to_dict()
        snap = dict(base)
        snap.update({k: d[k] for k in ("draw_pile", "discard", "known_hidden")})
        snap["hands"] = {env.possible_agents[q]: h for q, h in enumerate(d["hands"])}
        out.append(snap)
    return out


def assert_blind_to_hidden_cards(env: raw_env, decide: Any, positions: int = 3,
                                 seed: int = 21) -> None:
    """At ``positions`` decisions with more than two legal actions, ``decide(observation,
    mask)`` (a fresh or reset agent's move) is the same over the real deal and other deals
    the player to act cannot tell from it; random moves lead from one position to the next."""
    env.reset(seed=seed)
    rng = random.Random(0)
    checked = 0
    while checked < positions and not env.engine.is_over:
        if len(env.engine.legal) > 2:
            moves, opp_hands = set(), set()
            real = env.snapshot()
            for snap in [real, *hidden_variants(env, 4)]:
                env.restore(snap)
                opp_hands.add(tuple(env.engine.counts[1 - env.engine.current]))
                o = env.observe(env.agent_selection)
                moves.add(decide(o["observation"], o["action_mask"]))
            assert len(opp_hands) > 1  # the deals really differ
            assert len(moves) == 1
            checked += 1
            env.restore(real)
        env.step(rng.choice(env.engine.legal))
    assert checked == positions
