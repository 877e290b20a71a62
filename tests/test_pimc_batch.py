"""The batched network-playout search (uno_env.agents.pimc_batch, docs/expert-iteration.md):
per position the same q, visits and move as PolicyPIMC on the same samples and seeds."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import numpy as np
import pytest

from uno_env import raw_env
from uno_env.agents.ismcts import ISMCTSAgent
from uno_env.agents.pimc_batch import (
    BatchPIMC,
    Position,
    SeatMemory,
    draw_samples,
    search_actions,
)
from uno_env.agents.policy import load_policy
from uno_env.agents.policy_pimc import PolicyPIMC
from uno_env.agents.ppo import checkpoint_path
from uno_env.rules.game import Game

GAME = Game("classic", 2)


@cache
def _net() -> Any:
    net, _ = load_policy(checkpoint_path("classic", 2))
    return net.eval()


@cache
def _positions(samples: int) -> list[Position]:
    """Decisions with a choice from two games of the shipped network against itself, each
    with its samples drawn as the search agent draws them."""
    env = raw_env("classic", num_players=2)
    out: list[Position] = []
    for g in range(2):
        env.reset(seed=g)
        memory = {a: SeatMemory(GAME) for a in env.possible_agents}
        rng = random.Random(g)
        for agent in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs, mask = o["observation"], o["action_mask"]
            memory[agent].observe(obs)
            legal = search_actions(GAME, mask)
            if len(legal) > 1 and len(out) < 6 * (g + 1):
                states, seeds = draw_samples(GAME, obs, mask, rng, samples,
                                             memory[agent].recall, memory[agent].known())
                out.append(Position(obs, mask, legal, states, seeds))
            a = int(_net()(*_tensors(obs, mask))[0].argmax())
            memory[agent].acted(obs, a)
            env.step(a)
    return out


def _tensors(obs: np.ndarray, mask: np.ndarray) -> tuple[Any, Any]:
    import torch

    return torch.from_numpy(obs[None].astype(np.float32)), torch.from_numpy(mask[None])


@pytest.mark.parametrize(("opponent", "z"), [("prior", 1.5), ("rule", 0.0)])
def test_each_position_gets_policy_pimcs_q_visits_and_move(opponent: str, z: float) -> None:
    positions = _positions(5)
    one = PolicyPIMC(GAME, {}, _net(), opponent=opponent, z=z)
    # few rows: the positions' branches span several batches, split mid-position
    results = BatchPIMC(GAME, {}, _net(), opponent=opponent, z=z, rows=37).search(positions)
    assert len(results) == len(positions) == 12
    moved = 0
    for p, r in zip(positions, results, strict=True):
        move = one.decide(p.obs, p.mask, p.legal, iter(p.states), iter(p.seeds), None)
        wins = one.branches.results()
        np.testing.assert_array_equal(r.wins, wins)
        assert r.move == move
        q = np.full(GAME.num_actions, np.nan, np.float32)
        q[p.legal] = wins.mean(axis=0)
        np.testing.assert_array_equal(r.q, q)
        assert r.visits[p.legal].tolist() == [5] * len(p.legal)
        assert r.visits.sum() == 5 * len(p.legal)
        moved += r.move != r.first
    if z == 0.0:
        assert moved  # the search did overrule the network somewhere: the move is searched


def test_samples_are_drawn_as_the_search_agent_draws_them() -> None:
    """draw_samples with the agent's generator gives the agent's own decision."""
    agent = ISMCTSAgent("classic", 2, simulations=4, seed=3, search="pimc",
                        prior="ppo:classic", z=0.0)
    search = BatchPIMC(GAME, {}, _net(), z=0.0, rows=64)
    env = raw_env("classic", num_players=2)
    env.reset(seed=7)
    memory = SeatMemory(GAME)
    checked = 0
    while checked < 4 and not env.engine.is_over:
        o = env.observe(env.agent_selection)
        obs, mask = o["observation"], o["action_mask"]
        legal = search_actions(GAME, mask)
        if env.agent_selection == env.possible_agents[0]:
            memory.observe(obs)
            rng = agent._rng(obs, mask)  # before act: act reads the recall it then updates
            a = agent.act(obs, mask)
            if len(legal) > 1:
                states, seeds = draw_samples(GAME, obs, mask, rng, 4, memory.recall,
                                             memory.known())
                assert search.search([Position(obs, mask, legal, states, seeds)])[0].move == a
                checked += 1
            memory.acted(obs, a)
        else:
            a = legal[0]
        env.step(a)
    assert checked == 4


def test_bad_positions_and_settings_are_refused() -> None:
    p = _positions(5)[0]
    search = BatchPIMC(GAME, {}, _net(), rows=8)
    illegal = int(np.flatnonzero(p.mask == 0)[0])
    with pytest.raises(ValueError, match="position 0: legal must be distinct actions"):
        search.search([Position(p.obs, p.mask, [*p.legal, illegal], p.states, p.seeds)])
    with pytest.raises(ValueError, match="position 1: it needs at least one sample"):
        search.search([p, Position(p.obs, p.mask, p.legal, p.states, p.seeds[:2])])
    with pytest.raises(ValueError, match="mask must have 63 entries"):
        search.search([Position(p.obs, p.mask[:5], p.legal, p.states, p.seeds)])
    with pytest.raises(ValueError, match="opponent must be one of prior, rule"):
        BatchPIMC(GAME, {}, _net(), opponent="me")
    with pytest.raises(ValueError, match="rows must be a positive integer"):
        BatchPIMC(GAME, {}, _net(), rows=0)
    with pytest.raises(ValueError, match="no legal action"):
        search_actions(GAME, np.zeros(GAME.num_actions, np.int8))
