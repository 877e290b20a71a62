"""uno_env.training.config: the one config system of both trainers; uno_env.seeding."""

from __future__ import annotations

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
