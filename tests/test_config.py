"""uno_env.training.config: the one config system of both trainers; uno_env.seeding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from uno_env.seeding import derive_seed, slot_seed, streams
from uno_env.training.config import SB3Config, SelfPlayConfig


def test_both_trainers_refuse_unknown_keys_and_name_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown selfplay config key 'lrr'; allowed: .*\blr\b"):
        SelfPlayConfig.from_dict({"lrr": 1})
    with pytest.raises(ValueError, match=r"unknown sb3 config keys 'a', 'b'; allowed: trainer"):
        SB3Config.from_dict({"a": 1, "b": 2})
    with pytest.raises(ValueError, match=r"unknown ppo key 'n_step'; allowed: learning_rate"):
        SB3Config.from_dict({"ppo": {"n_step": 1}})
    with pytest.raises(ValueError, match="ppo must be a mapping of ppo keys"):
        SB3Config.from_dict({"ppo": 3})


def test_values_are_read_as_the_defaults_types_in_both() -> None:
    # what `uno-env train --set` hands over: strings, read by the same rules for each trainer
    sp = SelfPlayConfig.from_dict({"lr": "3e-4", "total_steps": "1e6", "progress": "off",
                                   "hidden": "[64, 32]", "options": None})
    assert (sp.lr, sp.total_steps, sp.progress, sp.hidden, sp.options) == (
        pytest.approx(3e-4), 1_000_000, False, [64, 32], {})
    sb = SB3Config.from_dict({"total_timesteps": "2e3", "progress": "false",
                              "ppo": {"learning_rate": "1e-4", "net_arch": "32,32"}})
    assert (sb.total_timesteps, sb.progress) == (2000, False)
    assert sb.ppo.learning_rate == pytest.approx(1e-4) and sb.ppo.net_arch == [32, 32]
    assert sb.ppo.n_steps == 1024  # the rest of a section keeps its defaults
    with pytest.raises(ValueError, match="config key n_envs must be like 4, got 2.5"):
        SB3Config.from_dict({"n_envs": 2.5})
    with pytest.raises(ValueError, match="vec_env='forked'; allowed: dummy, subproc"):
        SB3Config.from_dict({"vec_env": "forked"})
    with pytest.raises(ValueError, match="total_timesteps must be >= 1"):
        SB3Config.from_dict({"total_timesteps": 0})
    assert SB3Config.from_dict({}).to_dict()["ppo"]["batch_size"] == 256


def test_seeds_are_pure_functions_of_their_path() -> None:
    assert derive_seed(3, 1, 2) == derive_seed(3, 1, 2) != derive_seed(3, 2, 1)
    assert derive_seed(0, 5) == int(np.random.SeedSequence([0, 5]).generate_state(1)[0])
    assert 0 <= derive_seed(2**40, 7) < 2**32
    a, b = streams(9, 2)
    again = streams(9, 2)
    assert np.random.default_rng(a).integers(2**31) == np.random.default_rng(again[0]).integers(
        2**31) != np.random.default_rng(b).integers(2**31)
    seeds = {slot_seed(100, slot, seat) for slot in range(64) for seat in range(10)}
    assert len(seeds) == 640  # no two agents of a batch share a seed


def test_a_config_belongs_to_its_trainer() -> None:
    with pytest.raises(ValueError, match="this config is for trainer: sb3, got trainer: 'selfplay'"):
        SB3Config.from_dict({"trainer": "selfplay"})
    with pytest.raises(ValueError, match="for trainer: selfplay, got trainer: 'sb3'"):
        SelfPlayConfig.from_dict({"trainer": "sb3"})
    assert [f for f in SB3Config().to_dict()][:5] == ["trainer", "variant", "num_players",
                                                      "options", "seed"]


STAGED = ("classic_vsrule", "classic_history", "express_vsrule", "express_history",
          "flip_vsrule", "flip_history", "classic_4p_vsrule", "classic_4p_history",
          "classic_critic", "flip_critic")


@pytest.mark.parametrize("name", STAGED)
def test_a_later_stage_is_its_base_config_plus_the_keys_it_sets(name: str) -> None:
    import yaml

    from uno_env.shipped import find_config
    from uno_env.training.cli import load_config

    own = yaml.safe_load(find_config("train", name).read_text())
    base = load_config(own.pop("base"))
    cfg = load_config(name)
    assert cfg == {**base, **own} and "base" not in cfg
    assert cfg["init"] and SelfPlayConfig.from_dict(cfg).init == cfg["init"]


def test_base_configs_beside_the_file_and_their_errors(tmp_path: Path) -> None:
    from uno_env.training.cli import load_config

    (tmp_path / "a.yaml").write_text("lr: 0.1\nopponents: {rule: 1}\nseed: 1\n")
    (tmp_path / "b.yaml").write_text("base: a\nopponents: {self: 1}\n")
    assert load_config(tmp_path / "b.yaml", ["seed=2"]) == {
        "lr": 0.1, "opponents": {"self": 1}, "seed": 2}  # a map is replaced whole
    (tmp_path / "c.yaml").write_text("base: d\n")
    (tmp_path / "d.yaml").write_text("base: c.yaml\n")
    with pytest.raises(ValueError, match=r"cycle \(c.yaml -> d.yaml -> c.yaml\)"):
        load_config(tmp_path / "c.yaml")
    (tmp_path / "e.yaml").write_text("base: no_such_stage\n")
    with pytest.raises(ValueError, match="'no_such_stage': no such file and no shipped config"):
        load_config(tmp_path / "e.yaml")
