"""The ISMCTS search agent (uno_env.agents.ismcts): legal play everywhere, no reading of hidden cards,
specs and budgets."""

from __future__ import annotations

import time

import pytest
from search_helpers import assert_blind_to_hidden_cards, play_to_end

from uno_env import agents, raw_env
from uno_env.agents.ismcts import ISMCTSAgent
from uno_env.training.evaluate import evaluate

CONFIGS = [("classic", 2), ("classic", 3), ("classic", 4), ("flip", 2), ("flip", 3),
           ("flip", 4), ("flex", 2), ("flex", 3), ("flex", 4), ("express", 2),
           ("express", 3), ("express", 4)]


@pytest.mark.parametrize("search", ["tree", "pimc"])
@pytest.mark.parametrize(("variant", "n"), CONFIGS)
def test_every_variant_plays_legal_games_to_the_end(variant: str, n: int, search: str) -> None:
    env = raw_env(variant, num_players=n, uno_catch="decision")
    play_to_end(env, [ISMCTSAgent(variant, n, simulations=4, seed=s, search=search, rollouts=2,
                                  uno_catch="decision") for s in range(n)])


@pytest.mark.parametrize("search", ["tree", "pimc"])
@pytest.mark.parametrize("variant", ["classic", "flip"])
def test_decision_ignores_the_hidden_cards(variant: str, search: str) -> None:
    """The same observation over different actual deals gives the same move (fixed seed)."""
    assert_blind_to_hidden_cards(raw_env(variant, num_players=2), lambda obs, mask: ISMCTSAgent(
        variant, 2, simulations=30, seed=5, search=search).act(obs, mask))


def test_spec_strings() -> None:
    a = agents.load("ismcts:simulations=7;c=0.5", variant="classic", num_players=2, seed=1)
    assert isinstance(a, ISMCTSAgent) and a.simulations == 7 and a.c == 0.5
    b = agents.load("ismcts", variant="flip", num_players=3, time_per_move=0.1)
    assert isinstance(b, ISMCTSAgent) and b.time_per_move == 0.1 and b.simulations is None
    with pytest.raises(ValueError, match="bad ismcts setting 'depth=3'"):
        agents.load("ismcts:depth=3")
    with pytest.raises(ValueError, match="simulations must be a int"):
        agents.load("ismcts:simulations=many")
    with pytest.raises(ValueError, match="simulations must be a positive integer"):
        agents.load("ismcts:simulations=0")
    c = agents.load("ismcts:search=pimc;rollouts=3;infer=false", variant="classic",
                    num_players=2)
    assert isinstance(c, ISMCTSAgent) and c.mode == "pimc" and c.rollouts == 3
    assert c._draws is None
    assert agents.load("ismcts:simulations=5", variant="classic", num_players=2)._draws
    with pytest.raises(ValueError, match="infer must be a bool"):
        agents.load("ismcts:infer=maybe")
    with pytest.raises(ValueError, match="search must be 'tree'"):
        agents.load("ismcts:search=alphabeta")
    d = agents.load("ismcts:simulations=5;draws=forced", variant="classic", num_players=2,
                    voluntary_draw=True)
    assert isinstance(d, ISMCTSAgent) and d._draws is not None and d._draws.forced
    with pytest.raises(ValueError, match="draws must be one of rules, forced"):
        agents.load("ismcts:draws=sometimes")
    with pytest.raises(ValueError, match="prior=rule steers the tree search only"):
        agents.load("ismcts:search=pimc;prior=rule")
    with pytest.raises(ValueError, match="rollouts must be a positive integer"):
        agents.load("ismcts:rollouts=0")
    with pytest.raises(ValueError, match="leaf must be"):
        agents.load("ismcts:leaf=guess")
    with pytest.raises(ValueError, match="needs a prior network"):
        agents.load("ismcts:leaf=value;prior=rule")


def test_time_budget_bounds_a_decision() -> None:
    env = raw_env("classic", num_players=2)
    env.reset(seed=4)
    agent = ISMCTSAgent("classic", 2, time_per_move=0.05, seed=0)
    o = env.observe(env.agent_selection)
    t = time.perf_counter()
    agent.act(o["observation"], o["action_mask"])
    assert time.perf_counter() - t < 2.0  # 0.05 s plus one iteration, with slack for load
    assert agent.last_iterations >= 1


def test_prior_guides_the_search() -> None:
    agent = agents.load("ismcts:simulations=20;prior=ppo:classic", variant="classic",
                        num_players=2, seed=0)
    assert isinstance(agent, ISMCTSAgent) and agent.net is not None
    env = raw_env("classic", num_players=2)
    env.reset(seed=8)
    o = env.observe(env.agent_selection)
    assert o["action_mask"][agent.act(o["observation"], o["action_mask"])] == 1


def test_plays_in_evaluate() -> None:
    result = evaluate("ismcts:simulations=5", "random", games=2, seed=3)
    assert result.games == 2 and sum(r.wins for r in result.agents) + result.no_winner == 2


def test_plays_in_a_tournament() -> None:
    """A spec with two settings stays one agent in a tournament (``;`` inside the spec)."""
    from uno_env.tournament.runner import TournamentConfig, run_tournament

    records = run_tournament(TournamentConfig(
        agents=["ismcts:simulations=3;c=1.0", "rule", "random"], players=3, games=2, seed=2),
        progress=False)
    assert len(records) >= 2  # duplicate deals: each seating of the deal
    assert all("ismcts:simulations=3;c=1.0" in r["agents"] for r in records)
