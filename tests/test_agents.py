"""Agents: the protocol, ``agents.load``, masked actions in every decision type, the rule
agent's decisions and its margin over random play, and ``uno-env evaluate``."""

from __future__ import annotations

import json
import sys
import types
from collections import Counter
from typing import Any

import numpy as np
import pytest
from conftest import VARIANTS, config_id, maximal_options, option_combos, player_counts

import uno_env
from uno_env import agents
from uno_env.agents import Agent, RandomAgent, RuleAgent
from uno_env.training.evaluate import evaluate


def _decision_configs() -> list[tuple[str, int, dict[str, Any]]]:
    """Every combination of the options that change which decisions exist (scoring and
    match length left at their defaults) at the smallest player count, and every rule on
    (match episodes) at each other tested player count."""
    out = []
    for v in VARIANTS:
        spec = uno_env.find_variant(v).options
        for c in option_combos(v):
            if all(c[k] == spec[k].default for k in ("scoring", "episode",
                                                     "allow_more_players") if k in c):
                out.append((v, player_counts(v, c)[0], c))
        full = {**maximal_options(v), "episode": "match", "target_score": 60}
        full.pop("allow_more_players", None)
        out.extend((v, n, full) for n in player_counts(v, full)[1:])
    return out


CONFIGS = _decision_configs()
IDS = [config_id(*c) for c in CONFIGS]
# Per variant: the phases any agent / the rule agent was asked, and the heads of the
# meanings ("play", "play flex", "color", ...) of their choices.
_all_phases: dict[str, set[str]] = {}
_rule_phases: dict[str, set[str]] = {}
_rule_heads: dict[str, set[str]] = {}
_all_heads: dict[str, set[str]] = {}


# --- load and protocol ------------------------------------------------------------------------
def test_load_builds_each_kind() -> None:
    r = agents.load("random", seed=3)
    assert isinstance(r, RandomAgent) and isinstance(r, Agent)
    h = agents.load("rule", variant="classic", num_players=3, stacking=True)
    assert isinstance(h, RuleAgent) and isinstance(h, Agent)
    for bad in ("", "nope", "rule:x", "random:1", "ppo:", "sb3:", "ppo"):
        with pytest.raises(ValueError, match="allowed"):
            agents.load(bad)
    with pytest.raises(ValueError, match="not found"):
        agents.load("sb3:/nonexistent/model.zip")


def test_load_dispatches_ppo_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    fake = types.ModuleType("uno_env.agents.ppo")

    def load_ppo(rest: str, **kw: Any) -> RandomAgent:
        calls.append((rest, kw))
        return RandomAgent(0)

    fake.load_ppo = load_ppo  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "uno_env.agents.ppo", fake)
    a = agents.load("ppo:classic", variant="classic", num_players=3, seed=7, stacking=True)
    assert isinstance(a, RandomAgent)
    assert calls == [("classic", {"variant": "classic", "num_players": 3, "seed": 7,
                                  "stacking": True})]


def test_random_agent_is_seeded_and_uniform() -> None:
    mask = np.array([0, 1, 1, 0, 1], dtype=np.int8)
    obs = np.zeros(3, dtype=np.float32)
    a, b = RandomAgent(5), RandomAgent(5)
    picks = [a.act(obs, mask) for _ in range(3000)]
    assert picks[:50] == [b.act(obs, mask) for _ in range(50)]
    counts = Counter(picks)
    assert set(counts) == {1, 2, 4}
    assert all(800 < c < 1200 for c in counts.values())
    with pytest.raises(ValueError):
        a.act(obs, np.zeros(5, dtype=np.int8))


# --- masked actions everywhere ----------------------------------------------------------------
@pytest.mark.parametrize(("variant", "n", "opts"), CONFIGS, ids=IDS)
def test_agents_choose_only_masked_actions(variant: str, n: int, opts: dict[str, Any]) -> None:
    e = uno_env.raw_env(variant, n, max_steps=150, **opts)
    rule = [RuleAgent(variant, n, **opts) for _ in range(n)]
    rand = [RandomAgent(s) for s in range(n)]
    meanings = e.action_meanings
    for game in range(3):  # rule at even seats, at odd seats, everywhere
        e.reset(seed=game)
        for a in rule:
            a.reset()
        while True:
            sel = e.agent_selection
            if e.terminations[sel] or e.truncations[sel]:
                break
            s = e.agent_name_mapping[sel]
            ob = e.observe(sel)
            mask = ob["action_mask"]
            use_rule = game == 2 or (s + game) % 2 == 0
            agent = rule[s] if use_rule else rand[s]
            a = agent.act(ob["observation"], mask)
            assert isinstance(a, int) and mask[a] == 1, (e.phase, meanings[a])
            _all_phases.setdefault(variant, set()).add(e.phase)
            _all_heads.setdefault(variant, set()).add(_head(meanings[a]))
            if use_rule:
                _rule_phases.setdefault(variant, set()).add(e.phase)
                _rule_heads.setdefault(variant, set()).add(_head(meanings[a]))
            e.step(a)


def _head(meaning: str) -> str:
    """``play red-7`` -> ``play``; ``play red-1/blue-1 flex`` -> ``play flex``."""
    words = meaning.split()
    return words[0] + (" flex" if words[-1] == "flex" else "")


# Answers the rule agent never has to give: it plays rather than draws or keeps a card, and
# accepts only when stacking, challenging and answering with a Reverse all look worse.
OPTIONAL_HEADS = {"draw", "pass", "accept"}


def test_rule_met_every_decision_type() -> None:
    """Runs after the parametrized test above (pytest keeps file order): over those games the rule agent was asked
    every kind of decision any player was asked, and used every kind of answer."""
    if not _all_phases:
        pytest.skip("run together with test_agents_choose_only_masked_actions")
    for v in VARIANTS:
        assert _rule_phases[v] == _all_phases[v], v
        assert _all_heads[v] - OPTIONAL_HEADS <= _rule_heads[v], (v, _rule_heads[v])


# --- the rule agent's decisions on hand-made observations -------------------------------------
class Situation:
    """An observation and a mask built piece by piece for one classic configuration."""

    def __init__(self, num_players: int = 2, **options: Any) -> None:
        self.game = uno_env.Game("classic", num_players, **options)
        self.layout = uno_env.ObservationLayout(self.game)
        self.obs = np.zeros(self.layout.size, dtype=np.float32)
        self.mask = np.zeros(self.game.num_actions, dtype=np.int8)
        self.pieces = self.layout.decode(self.obs)
        self.faces = self.layout.face_names
        self.agent = RuleAgent("classic", num_players, **options)

    def hand(self, *cards: str) -> Situation:
        for c in cards:
            self.pieces["hand"][self.faces.index(c)] += 1
        return self

    def top(self, card: str, color: str | None = None) -> Situation:
        self.pieces["top"][self.faces.index(card)] = 1
        if color is None:
            color = card.split("-")[0]
        self.pieces["active_color"][("red", "yellow", "green", "blue").index(color)] = 1
        return self

    def phase(self, name: str) -> Situation:
        self.pieces["phase"][uno_env.PHASES.index(name)] = 1
        return self

    def opponents(self, *sizes: int) -> Situation:
        self.pieces["opp_hand_size"][:] = sizes
        return self

    def discard(self, *cards: str) -> Situation:
        for c in cards:
            self.pieces["discard"][self.faces.index(c)] += 1
        return self

    def legal(self, *meanings: str) -> Situation:
        for m in meanings:
            self.mask[self.game.actions.index(m)] = 1
        return self

    def choice(self) -> str:
        return self.game.actions.meanings[self.agent.act(self.obs, self.mask)]


def _hand7() -> tuple[str, ...]:
    return ("red-1", "blue-5", "blue-6", "blue-7", "wild", "green-2", "yellow-3")


def test_rule_plays_the_card_that_keeps_its_best_colour() -> None:
    s = Situation().hand(*_hand7()).top("red-5").phase("play").opponents(7)
    s.legal("play red-1", "play blue-5", "play wild", "draw")
    assert s.choice() == "play blue-5"


def test_rule_keeps_wilds_and_prefers_a_wild_draw_when_only_wilds_match() -> None:
    s = Situation().hand(*_hand7()).top("red-5").phase("play").opponents(7)
    s.legal("play red-1", "play wild", "draw")
    assert s.choice() == "play red-1"
    s = Situation().hand("wild", "wild-draw-four", "blue-2").top("red-5").phase("play")
    s.opponents(5).legal("play wild", "play wild-draw-four", "draw")
    assert s.choice() == "play wild-draw-four"


def test_rule_hits_a_player_about_to_go_out() -> None:
    s = Situation().hand("red-9", "red-draw-two", "red-3").top("red-5").phase("play")
    s.opponents(1).legal("play red-9", "play red-draw-two", "play red-3", "draw")
    assert s.choice() == "play red-draw-two"


def test_rule_calls_uno_and_catches() -> None:
    s = Situation(uno_catch="decision").hand("red-1", "red-2").top("red-5").phase("play")
    s.opponents(4).legal("play red-1", "play red-2", "uno", "draw")
    assert s.choice() == "uno"
    s = Situation(uno_catch="decision").hand(*_hand7()).top("red-5").phase("catch")
    s.opponents(1).legal("catch", "pass")
    assert s.choice() == "catch"


def test_rule_chooses_the_colour_it_holds_most_of() -> None:
    s = Situation().hand("green-1", "green-2", "blue-3", "red-4", "green-skip")
    s.top("wild", "red").phase("color").opponents(5)
    s.legal("color red", "color yellow", "color green", "color blue")
    assert s.choice() == "color green"


def test_rule_plays_a_playable_drawn_card_and_takes_offered_plays() -> None:
    s = Situation().hand(*_hand7()).top("green-5").phase("drawn").opponents(5)
    s.legal("play green-2", "pass")
    assert s.choice() == "play green-2"
    s = Situation().hand(*_hand7()).top("green-5").phase("drawn").opponents(5).legal("pass")
    assert s.choice() == "pass"
    s = Situation(jump_in=True).hand(*_hand7(), "red-1").top("red-1").phase("jump-in")
    s.opponents(5).legal("play red-1", "pass")
    assert s.choice() == "play red-1"
    s = Situation(stacking=True).hand(*_hand7(), "blue-draw-two").top("red-draw-two")
    s.phase("stack").opponents(5).legal("play blue-draw-two", "accept")
    assert s.choice() == "play blue-draw-two"
    s = Situation(double_play=True).hand("red-4", "red-4", "blue-9").top("red-5")
    s.phase("play").opponents(5).legal("play red-4", "play-two red-4", "draw")
    assert s.choice() == "play-two red-4"


def test_rule_challenges_when_a_bluff_is_likely() -> None:
    # The agent played red-5; the opponent (12 cards) answered with a wild draw four. With
    # no red seen, an honest play (no red among 12 of 80 unseen cards) is very unlikely.
    s = Situation().hand("blue-1", "blue-2", "green-3").top("red-5").phase("play")
    s.opponents(13).discard("red-9").legal("play red-5", "draw")
    assert s.choice() == "play red-5"
    seen = Situation()
    seen.agent = s.agent  # same agent: it remembers its own last decision
    seen.hand("blue-1", "blue-2", "green-3").top("wild-draw-four", "blue").phase("challenge")
    seen.opponents(12).discard("red-9", "red-5", "wild-draw-four")
    seen.legal("challenge", "accept")
    assert seen.choice() == "challenge"
    # The same, but the opponent holds 1 card and most reds are accounted for: accept.
    s = Situation().hand(*[f"red-{k}" for k in range(1, 10)], "green-3").top("red-5")
    s.phase("play").opponents(2).discard(*[f"red-{k}" for k in range(1, 10)],
                                         "red-skip", "red-skip", "red-reverse")
    s.legal("play red-1", "draw")
    assert s.choice() == "play red-1"
    late = Situation()
    late.agent = s.agent
    late.hand(*[f"red-{k}" for k in range(2, 10)], "green-3").top("wild-draw-four", "blue")
    late.phase("challenge").opponents(1)
    late.discard(*[f"red-{k}" for k in range(1, 10)], "red-skip", "red-skip", "red-reverse",
                 "red-1", "wild-draw-four")
    late.legal("challenge", "accept")
    assert late.choice() == "accept"


# --- rule against random ----------------------------------------------------------------------
def test_rule_beats_random_by_a_margin_random_play_cannot_reach() -> None:
    """400 seat-swapped games: a coin would win 200 +- 20; the rule agent must win >= 60%
    with the lower end of its 95% interval above one half."""
    r = evaluate("rule", "random", 400, seed=0)
    rule, rand = r.agents
    assert rule.wins + rand.wins + r.no_winner + r.shared == 400
    assert rule.win_rate >= 0.6 and rule.ci_low > 0.5, r.format()


def test_evaluate_swaps_seats_and_is_reproducible() -> None:
    a = evaluate("random", "random", 40, seed=1, max_steps=400)
    b = evaluate("random", "random", 40, seed=1, max_steps=400)
    assert a.agents == b.agents and a.decisions == b.decisions
    assert a.agents[0].name == "A: random" and a.agents[1].name == "B: random"
    assert a.truncated > 0 and a.no_winner >= a.truncated
    r = evaluate("rule", "rule", 20, num_players=3, seed=2, options={"stacking": True})
    assert r.agents[0].wins + r.agents[1].wins + r.no_winner + r.shared == 20
    with pytest.raises(ValueError):
        evaluate("rule", "random", 0)
    with pytest.raises(ValueError):
        evaluate(RandomAgent(0), "random", 4, workers=2)


def test_evaluate_gives_the_same_numbers_with_workers() -> None:
    one = evaluate("rule", "random", 12, seed=3, engine="python")
    two = evaluate("rule", "random", 12, seed=3, workers=2, engine="python")
    batch = evaluate("rule", "random", 12, seed=3, workers=2)  # one process: the batch engine
    assert one.agents == two.agents == batch.agents
    assert one.decisions == two.decisions == batch.decisions


def test_cli_evaluate(capsys: pytest.CaptureFixture[str]) -> None:
    from uno_env.cli import main

    assert main(["evaluate", "--agents", "rule,random", "--games", "10", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "rule vs random: 10 games of classic" in out and "95% CI" in out
    assert main(["evaluate", "--agents", "rule,random", "--games", "6", "--players", "3",
                 "--option", "stacking=true", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 6 and data["num_players"] == 3
    assert data["options"] == {"stacking": True}
    assert main(["evaluate", "--agents", "rule", "--games", "2"]) == 2
    assert "two specs" in capsys.readouterr().err
