"""Property tests (hypothesis) of rule invariants over random legal play, for every variant:
cards are conserved, masks are exact, illegal actions change nothing, games end, win/loss
rewards are zero-sum, and a selected agent always has a real choice.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from conftest import VARIANTS, episode_over, legal_from_mask, option_combos, player_counts
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import uno_env

# Deterministic runs (derandomize) so CI results do not depend on the run.
SETTINGS: dict[str, Any] = {
    "deadline": None, "derandomize": True, "database": None,
    "suppress_health_check": [HealthCheck.too_slow],
}


@st.composite
def configs(draw: Callable[..., Any], variant: str,
            fixed: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """A player count and an option combination of ``variant`` (``fixed`` options forced;
    int options such as target_score drawn from their default and a short value)."""
    combos = [c for c in option_combos(variant)
              if all(c.get(k, v) == v for k, v in (fixed or {}).items())]
    opts = dict(draw(st.sampled_from(combos)))
    for name, spec in uno_env.find_variant(variant).options.items():
        if spec.allowed is None and spec.kind is int and name not in (fixed or {}):
            opts[name] = draw(st.sampled_from([spec.default, max(spec.minimum,
                                                                  spec.default // 5)]))
    n = draw(st.sampled_from(player_counts(variant, opts)))
    return n, opts


def _policy(rng: random.Random, e: Any, p_random: float) -> int:
    """A random action from the acting agent's mask; with probability ``1 - p_random`` one
    that is neither draw nor pass (so that games also reach their end)."""
    legal = legal_from_mask(e.observe(e.agent_selection)["action_mask"])
    if rng.random() >= p_random:
        eager = [a for a in legal if a not in (e.action_index("draw"), e.action_index("pass"))]
        if eager:
            return rng.choice(eager)
    return rng.choice(legal)


def _check_cards(e: Any) -> None:
    """(a) every card of the deck is in exactly one place: a hand, the draw pile or the
    discard pile."""
    g = e.engine
    hands = g.hands
    everything = sorted([c for h in hands for c in h] + list(g.draw_pile) + list(g.discard))
    assert everything == list(range(e.game.num_cards)), "cards not conserved"
    assert [len(h) for h in hands] == list(g.hand_len)
    assert g.discard, "the discard pile is never empty"


def _check_masks(e: Any) -> None:
    """(b) only the agent to act has a non-empty mask; (f) it has a real choice."""
    g = e.engine
    over = episode_over(e)
    for a in e.agents:
        mask = e.observe(a)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (len(e.action_meanings),)
        if a == e.agent_selection and not over:
            legal = legal_from_mask(mask)
            assert legal == sorted(g.legal), "mask differs from the engine's legal actions"
            assert len(legal) >= 2, (
                f"{a} selected with forced decision {[e.action_meanings[x] for x in legal]} "
                f"in phase {e.phase}")
        else:
            assert not mask.any(), f"{a} is not to act but has a non-empty mask"
    if not over:
        assert e.agent_selection == e.possible_agents[g.current]
        _check_draw_and_catch(e)


def _check_draw_and_catch(e: Any) -> None:
    """(g) G-draw: without voluntary draws, draw is offered on a turn exactly when no play
    is; G-uno: with the until-out window, catch is offered exactly while an opponent of the
    one to act holds one card without having called UNO."""
    g, A = e.engine, e.game.actions
    legal = set(g.legal)
    meanings = [e.action_meanings[a] for a in legal]
    if e.phase == "play" and not e.options["voluntary_draw"]:
        plays = [m for m in meanings if m.startswith(("play ", "play-two "))]
        assert (A.draw in legal) == (not plays), meanings
    if e.options.get("uno_catch") == "decision" and e.options["catch_window"] == "until-out":
        exposed = any(g.hand_len[s] == 1 and not g.uno_called[s]
                      for s in range(g.n) if s != g.current)
        assert e.phase != "catch"
        assert (A.catch in legal) == exposed, meanings


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=100, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), policy_seed=st.integers(0, 2**16),
       p_random=st.sampled_from([0.2, 0.6, 1.0]), max_steps=st.integers(1, 400))
def test_cards_conserved_and_masks_exact(variant: str, data: st.DataObject, seed: int,
                                         policy_seed: int, p_random: float,
                                         max_steps: int) -> None:
    n, opts = data.draw(configs(variant))
    e = uno_env.raw_env(variant, n, max_steps=max_steps, **opts)
    e.reset(seed=seed)
    rng = random.Random(policy_seed)
    _check_cards(e)
    _check_masks(e)
    while not episode_over(e):
        e.step(_policy(rng, e, p_random))
        _check_cards(e)
        _check_masks(e)
    # (d) every run stops: by the end of the game or by truncation at max_steps
    event("terminated" if any(e.terminations.values()) else "truncated")
    assert e.num_steps <= max_steps
    if not any(e.terminations.values()):
        assert all(e.truncations.values()) and e.num_steps == max_steps


def _frozen(e: Any) -> tuple[Any, ...]:
    return (e.snapshot(), e.agent_selection, e.state().tobytes(),
            [e.observe(a)["observation"].tobytes() for a in e.agents])


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=50, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), policy_seed=st.integers(0, 2**16),
       skip=st.integers(0, 150))
def test_masked_accepted_unmasked_refused(variant: str, data: st.DataObject, seed: int,
                                          policy_seed: int, skip: int) -> None:
    """(c) on the raw env every masked action is accepted and every unmasked one raises
    IllegalActionError (a ValueError) and leaves the game exactly as it was."""
    n, opts = data.draw(configs(variant))
    e = uno_env.raw_env(variant, n, **opts)
    e.reset(seed=seed)
    rng = random.Random(policy_seed)
    for _ in range(skip):  # get into the middle of a game first
        if episode_over(e):
            event("game over before the checks")
            return
        e.step(_policy(rng, e, 0.5))
    n_act = len(e.action_meanings)
    for _ in range(10):
        if episode_over(e):
            return
        legal = legal_from_mask(e.observe(e.agent_selection)["action_mask"])
        before = _frozen(e)
        illegal = [a for a in [*range(n_act), -1, n_act] if a not in legal]
        for a in illegal:
            with pytest.raises(uno_env.IllegalActionError) as info:
                e.step(a)
            assert isinstance(info.value, ValueError)
        if _frozen(e) != before:  # find the culprit for the message
            e.restore(before[0])
            for a in illegal:
                with pytest.raises(uno_env.IllegalActionError):
                    e.step(a)
                assert _frozen(e) == before, f"refused action {a} changed the game"
        for a in rng.sample(legal, min(2, len(legal))):
            trial = copy.deepcopy(e, {id(e.game): e.game})
            trial.step(a)  # must not raise
        e.step(rng.choice(legal))


@pytest.mark.parametrize("variant", VARIANTS)
def test_games_end_without_uno_rule(variant: str) -> None:
    """(d) uniformly random games with the UNO rule off end in most runs when max_steps is
    generous; every run stops (termination or truncation)."""
    fixed = {"uno_catch": "off", "episode": "round"}
    combos = [c for c in option_combos(variant)
              if all(c.get(k, v) == v for k, v in fixed.items())]
    rng = random.Random(7)
    ended = 0
    runs = 16
    for i in range(runs):
        opts = rng.choice(combos)
        n = rng.choice(player_counts(variant, opts))
        e = uno_env.raw_env(variant, n, max_steps=20_000, **opts)
        e.reset(seed=i)
        while not episode_over(e):
            e.step(rng.choice(e.engine.legal))
        ended += any(e.terminations.values())
        assert any(e.terminations.values()) or e.num_steps == 20_000
    assert ended >= 0.75 * runs, f"only {ended} of {runs} random games ended"


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=80, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), policy_seed=st.integers(0, 2**16))
def test_win_loss_rewards_zero_sum(variant: str, data: st.DataObject, seed: int,
                                   policy_seed: int) -> None:
    """(e) with reward="win_loss" the rewards of an episode sum to zero; a single winner
    gets +1 and the others share -1; a truncated episode pays nothing."""
    n, opts = data.draw(configs(variant))
    e = uno_env.raw_env(variant, n, max_steps=3000, reward="win_loss", **opts)
    e.reset(seed=seed)
    rng = random.Random(policy_seed)
    total = dict.fromkeys(e.possible_agents, 0.0)
    while not episode_over(e):
        e.step(_policy(rng, e, 0.1))
        for a, r in e.rewards.items():
            total[a] += r
    event(f"terminated, {len(e.engine.winners())} winner(s)"
          if any(e.terminations.values()) else "truncated")
    if not any(e.terminations.values()):
        assert all(v == 0 for v in total.values()), total
        return
    assert sum(total.values()) == pytest.approx(0.0, abs=1e-9)
    winners = e.engine.winners()
    assert all(0 <= w < n for w in winners)
    if len(winners) == 1:
        w = e.possible_agents[winners[0]]
        assert total[w] == pytest.approx(1.0)
        for a in e.possible_agents:
            if a != w:
                assert total[a] == pytest.approx(-1.0 / (n - 1))
    elif not winners or len(winners) == n:  # a blocked round with a tie, or all tied
        assert all(v == pytest.approx(0.0) for v in total.values())
    else:
        for s, a in enumerate(e.possible_agents):
            want = 1.0 / len(winners) if s in winners else -1.0 / (n - len(winners))
            assert total[a] == pytest.approx(want)
    if not e.game.match:  # one round: its winner went out (or won a blocked round)
        last = e.engine.round_results[-1]
        assert last["winner"] == (winners[0] if winners else -1)
        if not last["blocked"]:
            assert e.engine.hand_len[last["winner"]] == 0
