"""The variants as OpenSpiel games (uno_env.integrations.openspiel, docs/openspiel.md):
OpenSpiel's own checks (random_sim_test with serialisation), the same play as raw_env from
the same seed and actions, clone and serialisation, resample_from_infostate, OpenSpiel's
ISMCTS and random bots, and Shimmy's PettingZoo wrapper under PettingZoo's api_test."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("open_spiel", reason="needs the openspiel extra: pip install uno-env[openspiel]")
import pyspiel  # noqa: E402

from uno_env.aec import raw_env  # noqa: E402
from uno_env.integrations import openspiel as uos  # noqa: E402
from uno_env.variants import find_variant, list_variants  # noqa: E402

CAP = 60  # the decision limit of the tests: keeps random play-outs short


def _load(variant: str, **params: object) -> pyspiel.Game:
    return pyspiel.load_game(uos.short_name(variant), {"max_steps": CAP, **params})


def _dealt(game: pyspiel.Game, outcome: int = 0) -> pyspiel.State:
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == game.num_deals
    state.apply_action(outcome)
    return state


def test_every_variant_is_registered_with_its_options_as_parameters() -> None:
    names = set(pyspiel.registered_names())
    for v in list_variants():
        name = uos.short_name(v)
        assert name == f"python_uno_{v}" and name in names
        spec = pyspiel.load_game(name).get_type().parameter_specification
        assert set(find_variant(v).options) | {"players", "max_steps", "num_deals",
                                               "seed"} == set(spec)
    game = pyspiel.load_game("python_uno_flip(players=3,uno_catch=decision)")
    assert game.num_players() == 3
    assert game.get_parameters()["uno_catch"] == "decision"
    assert pyspiel.load_game("python_uno_express(players=10,allow_more_players=true)"
                             ).num_players() == 10


@pytest.mark.parametrize("text, message", [
    ("python_uno_classic(players=11)", "num_players must be 2-10 for classic"),
    ("python_uno_flex(stacking=true)", "Unknown parameter 'stacking'"),  # OpenSpiel's check
    ("python_uno_classic(uno_catch=sometimes)", "option uno_catch='sometimes' is not valid"),
    ("python_uno_classic(max_steps=0)", "max_steps=0 is not valid"),
    ("python_uno_express(players=7)", "num_players must be 2-6 for express"),
])
def test_bad_parameters_are_refused_with_what_is_allowed(text: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        pyspiel.load_game(text)


@pytest.mark.parametrize("variant, players, options", [
    ("classic", 2, {}),
    ("classic", 4, {"stacking": True, "jump_in": True, "uno_catch": "decision"}),
    ("flip", 2, {}),
    ("flip", 3, {"uno_catch": "decision", "catch_window": "until-out"}),
    ("flex", 2, {}),
    ("flex", 4, {"wd_challenge": False}),
    ("express", 2, {}),
    ("express", 3, {"episode": "match", "target_score": 50}),
])
def test_action_table_is_the_envs(variant: str, players: int, options: dict) -> None:
    game = _load(variant, players=players, **options)
    meanings = raw_env(variant, players, **options).action_meanings
    assert game.num_distinct_actions() == len(meanings)
    state = game.new_initial_state()
    assert [state.action_to_string(0, a) for a in range(len(meanings))] == meanings


@pytest.mark.parametrize("variant, players, options", [
    ("classic", 2, {}),
    ("classic", 3, {"stacking": True, "double_play": True, "uno_catch": "decision"}),
    ("flip", 2, {}),
    ("flip", 4, {"voluntary_draw": False}),
    ("flex", 3, {}),
    ("express", 2, {"jump_in": False}),
    ("express", 4, {}),
])
def test_openspiel_random_sim_test_with_serialization(variant: str, players: int,
                                                      options: dict) -> None:
    game = _load(variant, players=players, num_deals=1000, **options)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", list_variants())
@pytest.mark.parametrize("players", [2, 3])
def test_same_play_as_raw_env_from_the_same_seed_and_actions(variant: str,
                                                             players: int) -> None:
    """Chance outcome i deals what raw_env.reset(seed=seed + i) deals; then every step has
    the same hands and piles (the whole engine snapshot), legal actions, observation,
    and at the end the same returns (or both truncated with 0)."""
    seed, outcome, cap = 100, 7, 400
    game = _load(variant, players=players, seed=seed, max_steps=cap)
    state = _dealt(game, outcome)
    env = raw_env(variant, players, max_steps=cap)
    env.reset(seed=seed + outcome)
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        agent = env.agent_selection
        p = state.current_player()
        assert agent == f"player_{p}"
        assert state.engine.to_dict() == env.engine.to_dict()
        ob = env.observe(agent)
        assert state.legal_actions() == np.flatnonzero(ob["action_mask"]).tolist()
        np.testing.assert_array_equal(state.observation_tensor(p), ob["observation"])
        np.testing.assert_array_equal(state.information_state_tensor(p), ob["observation"])
        a = int(rng.choice(state.legal_actions()))
        state.apply_action(a)
        env.step(a)
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert state.returns() == [env.rewards[f"player_{s}"] for s in range(players)]
    assert sum(state.returns()) == pytest.approx(0.0)


def _tracked(known: dict) -> tuple:
    return ([(av.faces.tolist(), av.allowed) for av in known.get("avoid", [])],
            known["must"].tolist() if "must" in known else [])


@pytest.mark.parametrize("variant, options", [("classic", {}),  # classic: forced draws
                                              ("express", {"jump_in": False}),
                                              ("classic", {"voluntary_draw": True})])
def test_draw_inferences_are_those_the_ismcts_agent_keeps(variant: str, options: dict) -> None:
    """With 2 players resampling keeps what the opponent's draws and a challenge showed
    (uno_env.inference.DrawTracker), as the project's ISMCTS agent feeds its tracker: its
    own observation at each of its decisions, then its action. A copy and a deserialised
    state find the same."""
    from uno_env.inference import DrawTracker

    game = _load(variant, players=2, max_steps=400, **options)
    state = _dealt(game, 2)
    env = raw_env(variant, 2, max_steps=400, **options)
    env.reset(seed=2)
    mine = [DrawTracker(env.game, env.layout) for _ in range(2)]
    rng = np.random.default_rng(4)
    seen_avoid = False
    while not state.is_terminal():
        p = state.current_player()
        mine[p].observe(env.observe(f"player_{p}")["observation"])
        want = _tracked({"avoid": mine[p].avoid, "must": mine[p].must})
        seen_avoid |= bool(mine[p].avoid)
        if len(state.moves) % 7 == 0:
            restored = pyspiel.deserialize_game_and_state(
                pyspiel.serialize_game_and_state(game, state))[1]
            for other in (state, state.clone(), restored):
                table, moves = other._table, other._moves
                assert _tracked(other._draws.known(table, other._deal_seed, moves, p)) == want
        a = int(rng.choice(state.legal_actions()))
        mine[p].acted(a)
        state.apply_action(a)
        env.step(a)
    if not env.game.voluntary_draw:
        assert seen_avoid  # forced draws were read


def test_decision_limit_ends_the_game_with_returns_zero() -> None:
    state = _dealt(_load("flip", players=2, max_steps=5))
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert len(state.moves) == 5 and state.returns() == [0.0, 0.0]
    assert state.engine.phase != uos.P_OVER


def test_clone_and_serialization_play_on_identically() -> None:
    game = _load("flip", players=3, max_steps=400)
    state = _dealt(game, 3)
    rng = np.random.default_rng(1)
    for _ in range(15):
        state.apply_action(int(rng.choice(state.legal_actions())))
    clone = state.clone()
    text = pyspiel.serialize_game_and_state(game, state)
    _, restored = pyspiel.deserialize_game_and_state(text)
    assert restored.history() == state.history() and str(restored) == str(state)
    before = state.engine.to_dict()
    for other in (clone, restored):
        other.apply_action(other.legal_actions()[0])
    assert state.engine.to_dict() == before  # copies are independent
    state.apply_action(state.legal_actions()[0])
    rng = np.random.default_rng(2)
    while not state.is_terminal():  # reshuffles included: the same generator state
        a = int(rng.choice(state.legal_actions()))
        for s in (state, clone, restored):
            s.apply_action(a)
    assert state.engine.to_dict() == clone.engine.to_dict() == restored.engine.to_dict()
    assert state.returns() == clone.returns() == restored.returns()


def test_views_hide_other_hands() -> None:
    """Two deals that differ only in an opponent's hand look the same to the observer."""
    state = _dealt(_load("classic", players=2))
    p = state.current_player()
    other = 1 - p
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    samples = [state.resample_from_infostate(p, sampler) for _ in range(6)]
    hands = {bytes(s.engine.counts[other]) for s in samples}
    assert len(hands) > 1  # the hidden hand is resampled...
    for s in samples:  # ...and nothing the player sees changes
        assert s.information_state_string(p) == state.information_state_string(p)
        assert s.observation_string(p) == state.observation_string(p)
        np.testing.assert_array_equal(s.observation_tensor(p), state.observation_tensor(p))
        assert s.legal_actions() == state.legal_actions()
        assert bytes(s.engine.counts[p]) == bytes(state.engine.counts[p])  # same faces
    text = state.observation_string(p)
    own = state.engine.game.face_names
    assert all(own[state.engine.faces_of[c]] in text for c in state.engine.hands[p])
    with pytest.raises(ValueError, match="needs the player to act"):
        state.resample_from_infostate(other, sampler)


@pytest.mark.parametrize("variant", list_variants())
def test_resample_from_infostate_mid_game(variant: str) -> None:
    state = _dealt(_load(variant, players=3, max_steps=400), 11)
    rng = np.random.default_rng(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    while not state.is_terminal() and len(state.moves) < 40:
        p = state.current_player()
        sample = state.resample_from_infostate(p, sampler)
        assert sample.information_state_string(p) == state.information_state_string(p)
        assert sample.legal_actions() == state.legal_actions()
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_ismcts_and_uniform_random_bots_play_full_games() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    for variant in ("classic", "flip"):
        game = _load(variant, players=2, max_steps=100)
        rs = np.random.RandomState(0)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0,
                               max_simulations=6, random_state=rs)
        rand = pyspiel.make_uniform_random_bot(1, 7)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rs.choice(outcomes, p=probs)))
                continue
            a = (bot if state.current_player() == 0 else rand).step(state)
            assert a in state.legal_actions()
            state.apply_action(a)
        assert sum(state.returns()) == pytest.approx(0.0)
        assert max(state.returns()) in (0.0, 1.0)


def test_shimmy_pettingzoo_api_test() -> None:
    shimmy = pytest.importorskip("shimmy", reason="needs the openspiel extra")
    from pettingzoo.test import api_test

    # by name and config: Shimmy's reset() loads the game again from them
    env = shimmy.OpenSpielCompatibilityV0(game_name="python_uno_flip",
                                          config={"players": 3, "max_steps": CAP})
    with pytest.warns(UserWarning, match="observation space"):  # shimmy's unbounded Box
        api_test(env, num_cycles=100)
    assert env.num_agents == 3 and env.game_state.get_game().max_game_length() == CAP


def test_example_openspiel_ismcts_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/openspiel_ismcts.py (tiny budget): games, seats and a 95% interval."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "openspiel_ismcts.py"
    spec = importlib.util.spec_from_file_location("examples_openspiel_ismcts", path)
    assert spec is not None and spec.loader is not None
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    out = ex.main(["--deals", "1", "--simulations", "4", "--max-steps", "120",
                   "--option", "uno_catch=off"])
    low, high = out["ci95"]
    assert out["games"] == 2 and 0.0 <= low <= out["win_rate"] <= high <= 1.0
    assert sum(out["seat_wins"]) == out["win_rate"] * 2
    assert "2 games (1 deals, seats swapped; wins as player_0" in capsys.readouterr().out


def test_rl_environment_and_pytorch_nfsp_play_episodes() -> None:
    """OpenSpiel's rl_environment (what its learners use: info-state tensor, legal actions,
    chance sampled from its seed) and its PyTorch NFSP run whole episodes."""
    pytest.importorskip("torch")
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    env = rl_environment.Environment(_load("classic", players=2, num_deals=100), seed=0)
    size = env.observation_spec()["info_state"][0]
    assert size == raw_env("classic", 2).layout.size
    agents = [nfsp.NFSP(p, state_representation_size=size,
                        num_actions=env.action_spec()["num_actions"], hidden_layers_sizes=[16],
                        reservoir_buffer_capacity=10, anticipatory_param=0.1)
              for p in range(2)]
    for _ in range(2):
        ts = env.reset()
        while not ts.last():
            ts = env.step([agents[ts.observations["current_player"]].step(ts).action])
        for agent in agents:
            agent.step(ts)
        assert sum(ts.rewards) == pytest.approx(0.0)
