"""PettingZoo API and seed tests over every registered variant, player count and option
combination, plus the environment's own API: name, spaces, state, action meanings, rendering.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import gymnasium
import numpy as np
import pytest
from conftest import (
    ROTATED,
    VARIANTS,
    choice_options,
    config_id,
    configs,
    iter_steps,
    maximal_options,
    option_combos,
    player_counts,
)
from pettingzoo.test import api_test, seed_test

import uno_env

# A Dict observation (observation + action_mask) is PettingZoo's convention for masked
# card games; api_test warns about it for every env of that kind.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
]

CONFIGS = configs(sample=6)
MAX_STEPS = 300


def _seeded(e: Any, seed: int = 0) -> Any:
    """api_test samples actions from the action spaces: seed them, for a replayable run."""
    for i, a in enumerate(e.possible_agents):
        e.action_space(a).seed(seed + i)
    return e


@pytest.mark.parametrize(("variant", "n", "opts", "k"),
                         [(*c, k) for k, c in enumerate(CONFIGS)],
                         ids=[config_id(*c) for c in CONFIGS])
def test_pettingzoo_api_and_seed(variant: str, n: int, opts: dict[str, Any], k: int) -> None:
    """api_test on env() and raw_env(); seed_test on env() (every 4th configuration also on
    raw_env()). seed_test gets the env api_test used plus a new one: reset(seed) must make
    a used env play exactly like a new one. (Building an env dominates the run time.)"""
    for make in (uno_env.env, uno_env.raw_env):
        used = _seeded(make(variant, n, max_steps=MAX_STEPS, **opts))
        api_test(used, num_cycles=10)
        if make is uno_env.env or k % 4 == 0:
            pair = iter([used, make(variant, n, max_steps=MAX_STEPS, **opts)])
            seed_test(lambda pair=pair: next(pair), num_cycles=10)


def test_every_combination_is_covered() -> None:
    for v in VARIANTS:
        combos = option_combos(v)
        at_min = [c for (name, n, c) in CONFIGS if name == v and n == player_counts(v, c)[0]]
        assert len(at_min) == len(combos)
        if v == "classic":  # 2 * 2 * 2 * 2 * 3 (uno_catch) * 2 (scoring) * 2 (episode)
            assert len(combos) == 192
        # every value of every option meets every combination of the rotated options
        rotated = {tuple(c[k] for k in ROTATED) for c in combos}
        assert len(rotated) == 4
        for name, allowed in choice_options(v).items():
            if name in ROTATED:
                continue
            for value in allowed:
                assert {tuple(c[k] for k in ROTATED) for c in combos if c[name] == value} \
                    == rotated, (v, name, value)
        counts = {n for (name, n, _) in CONFIGS if name == v}
        assert counts == {n for c in combos for n in player_counts(v, c)}


class _CountingEnv(uno_env.raw_env):
    """raw_env that counts how its episodes end, to show what api_test went through."""

    ended: Counter[str]

    def step(self, action: Any) -> None:
        live = not (any(self.terminations.values()) or any(self.truncations.values()))
        super().step(action)
        if live and any(self.terminations.values()):
            self.ended["terminated"] += 1
        elif live and any(self.truncations.values()):
            self.ended["truncated"] += 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_api_through_truncation_and_termination(variant: str) -> None:
    """api_test with a short max_steps (episodes truncate) and with no step limit, long
    enough for a game to reach its end (uno_catch off keeps random games short)."""
    api_test(_seeded(uno_env.env(variant, 2, max_steps=7)), num_cycles=40)
    e = _seeded(_CountingEnv(variant, 2, max_steps=7))
    e.ended = Counter()
    api_test(e, num_cycles=40)
    assert e.ended["truncated"] >= 1 and not e.ended["terminated"]

    opts: dict[str, Any] = {"uno_catch": "off"} if "uno_catch" in uno_env.find_variant(variant).options else {}
    api_test(_seeded(uno_env.env(variant, 2, **opts), seed=5), num_cycles=3000)
    e = _seeded(_CountingEnv(variant, 2, **opts), seed=5)
    e.ended = Counter()
    api_test(e, num_cycles=3000)
    assert e.ended["terminated"] >= 1 and not e.ended["truncated"]


def test_metadata_name() -> None:
    assert uno_env.raw_env().metadata["name"] == "uno_classic_v1"
    assert uno_env.env().metadata["name"] == "uno_classic_v1"
    assert uno_env.env().unwrapped.metadata["name"] == "uno_classic_v1"
    for v in VARIANTS:
        name = uno_env.raw_env(v).metadata["name"]
        assert name == uno_env.find_variant(v).env_name
        assert re.fullmatch(rf"uno_{v}_v\d+", name)
        assert uno_env.raw_env(v).metadata["render_modes"] == ["ansi", "human"]


def _space_configs() -> list[tuple[str, int, dict[str, Any]]]:
    """Per variant: the defaults at every player count and a few combinations."""
    out = []
    every = configs(sample=1, seed=1)
    for v in VARIANTS:
        mine = [c for c in every if c[0] == v]
        lo = min(n for _, n, _ in mine)
        at_min = [c for c in mine if c[1] == lo]
        out += at_min[::max(1, len(at_min) // 4)] + [c for c in mine if c[1] != lo]
    return out


SPACE_CONFIGS = _space_configs()


@pytest.mark.parametrize(("variant", "n", "opts"), SPACE_CONFIGS,
                         ids=[config_id(*c) for c in SPACE_CONFIGS])
def test_spaces_state_and_observations(variant: str, n: int, opts: dict[str, Any]) -> None:
    e = uno_env.raw_env(variant, n, max_steps=200, **opts)
    n_act = len(e.action_meanings)
    assert e.possible_agents == [f"player_{i}" for i in range(n)]
    for a in e.possible_agents:
        obs_space = e.observation_space(a)
        assert isinstance(obs_space, gymnasium.spaces.Dict)
        assert set(obs_space.spaces) == {"observation", "action_mask"}
        mask_space = obs_space["action_mask"]
        assert isinstance(mask_space, gymnasium.spaces.Box) and mask_space.shape == (n_act,)
        assert isinstance(obs_space["observation"], gymnasium.spaces.Box)
        act = e.action_space(a)
        assert isinstance(act, gymnasium.spaces.Discrete) and act.n == n_act
    assert isinstance(e.state_space, gymnasium.spaces.Box)
    for seed in (0, 1):
        e.reset(seed=seed)
        for _ in iter_steps(e, random.Random(seed), 200, p_random=0.5):
            s = e.state()
            assert s.shape == e.state_space.shape and s.dtype == e.state_space.dtype
            assert e.state_space.contains(s)
            for a in e.agents:
                ob = e.observe(a)
                assert e.observation_space(a).contains(ob), (a, ob)


@pytest.mark.parametrize("variant", VARIANTS)
def test_action_meanings_round_trip(variant: str) -> None:
    for opts in option_combos(variant)[::7]:
        for n in player_counts(variant, opts):
            e = uno_env.raw_env(variant, n, **opts)
            meanings = e.action_meanings
            space = e.action_space("player_0")
            assert isinstance(space, gymnasium.spaces.Discrete)
            assert len(meanings) == space.n
            assert len(set(meanings)) == len(meanings), "action meanings must be unique"
            for i, m in enumerate(meanings):
                assert e.action_index(m) == i
            with pytest.raises(ValueError, match="unknown action"):
                e.action_index("play no-such-card")


def test_classic_action_meanings() -> None:
    e = uno_env.raw_env("classic", 3, **maximal_options("classic"))
    m = set(e.action_meanings)
    for must in ("play red-7", "play blue-skip", "play green-reverse", "play yellow-draw-two",
                 "play wild", "play wild-draw-four", "play-two red-7", "draw", "pass",
                 "color red", "color blue", "challenge", "accept", "uno", "catch"):
        assert must in m, must
    plain = set(uno_env.raw_env("classic", 2, uno_catch="off", wd_challenge=False).action_meanings)
    assert not plain & {"uno", "catch", "challenge", "accept"}
    assert not any(x.startswith("play-two") for x in plain)


def _tokens(text: str) -> Counter[str]:
    """Words of a rendered table (card names keep their '-', '/', '*'), colour codes off."""
    return Counter(re.findall(r"[^\s,:\[\]()]+", re.sub(r"\x1b\[[0-9;]*m", "", text)))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", [2, 4])
def test_render_ansi_hides_other_hands(variant: str, n: int) -> None:
    hidden_seen = 0
    for seed in range(6):
        e = uno_env.raw_env(variant, n, render_mode="ansi")
        e.reset(seed=seed)
        rng = random.Random(seed)
        for _ in iter_steps(e, rng, seed * 3):
            pass
        g = e.engine
        names = e.game.face_names
        text = e.render()
        assert isinstance(text, str) and text
        tokens = _tokens(text)
        seat = e.agent_name_mapping[e.agent_selection]
        assert seat == g.current
        own = Counter(names[g.faces_of[c]] for c in g.hands[seat])
        for face, k in own.items():
            assert tokens[face] >= k, f"own card {face} missing from\n{text}"
        top = names[g.faces_of[g.discard[-1]]]
        others = {names[g.faces_of[c]] for s, h in enumerate(g.hands) if s != seat for c in h}
        shown = g.revealed[seat]  # a hand a challenge showed this seat (G-wd-challenge)
        seen = set() if shown is None else {names[f] for f, k in enumerate(shown[1]) if k}
        if e.game.num_sides > 1:  # F-visibility: faces of the other side a seat may see
            back = e.game.side_faces[g.side ^ 1]
            seen |= {names[back[c]] for s, h in enumerate(g.hands) if s != seat for c in h}
            seen |= {names[back[c]] for c in g.hands[seat] if g.known[c]}
            seen |= {names[back[g.draw_pile[-1]]]} if g.draw_pile else set()
        hidden = others - set(own) - {top} - seen
        hidden_seen += len(hidden)
        leaked = {f for f in hidden if tokens[f]}
        assert not leaked, f"other players' cards {leaked} shown in\n{text}"
    assert hidden_seen, "the test never had a hidden card to look for"


@pytest.mark.parametrize("variant", VARIANTS)
def test_render_ansi_reveal_hands(variant: str) -> None:
    for seed in range(3):
        e = uno_env.raw_env(variant, 3, render_mode="ansi", reveal_hands=True)
        e.reset(seed=seed)
        text = e.render()
        assert isinstance(text, str)
        tokens = _tokens(text)
        g = e.engine
        names = e.game.face_names
        every = Counter(names[g.faces_of[c]] for h in g.hands for c in h)
        for face, k in every.items():
            assert tokens[face] >= k, f"{face} x{k} not all shown in\n{text}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_render_human_prints(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    ansi = uno_env.raw_env(variant, 2, render_mode="ansi")
    human = uno_env.raw_env(variant, 2, render_mode="human")
    ansi.reset(seed=3)
    human.reset(seed=3)
    capsys.readouterr()
    assert human.render() is None
    out = capsys.readouterr().out
    text = ansi.render()
    assert isinstance(text, str)
    assert out.strip() == text.strip()
    a = int(np.flatnonzero(human.observe(human.agent_selection)["action_mask"])[0])
    human.step(a)  # human mode renders after every step
    assert capsys.readouterr().out.strip()
    wrapped = uno_env.env(variant, 2, render_mode="ansi")
    wrapped.reset(seed=3)
    assert wrapped.render() == text


def test_render_without_mode_returns_none() -> None:
    e = uno_env.raw_env()
    e.reset(seed=0)
    with pytest.warns(UserWarning):
        assert e.render() is None
