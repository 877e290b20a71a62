"""``ppo:VARIANT`` picks the shipped checkpoint trained for the table it is loaded at, refuses
other tables with the list of what is shipped, and refuses a file of another env version.
The checkpoints here are tiny networks saved by the trainer's own ``save_policy`` into a
temporary checkpoint folder (the shipped files are not needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from uno_env import agents
from uno_env.agents import ppo
from uno_env.agents.policy import PolicyNet, config_key, save_policy

VD = {"voluntary_draw": True, "catch_window": "turn"}


def _save(path: Path, variant: str, n: int, options: dict[str, Any], **key: Any) -> Path:
    k = {**config_key(variant, n, options), **key}
    return save_policy(path, PolicyNet(k["obs_dim"], k["num_actions"], (8,)), k)


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(ppo, "CHECKPOINT_DIR", tmp_path)
    _save(tmp_path / "classic_2p_vd.pt", "classic", 2, VD)
    _save(tmp_path / "classic_4p_vd.pt", "classic", 4, VD)
    return tmp_path


def test_each_table_gets_its_own_agent(shipped: Path) -> None:
    _save(shipped / "classic_2p.pt", "classic", 2, {})
    _save(shipped / "classic_4p.pt", "classic", 4, {})
    assert agents.load("ppo:classic").info["path"] == str(shipped / "classic_2p.pt")
    assert agents.load("ppo:classic", **VD).info["path"] == str(shipped / "classic_2p_vd.pt")
    assert agents.load("ppo:classic-4p", num_players=4).info["path"] == str(
        shipped / "classic_4p.pt")
    assert agents.load("ppo:classic", num_players=4, **VD).info["path"] == str(
        shipped / "classic_4p_vd.pt")
    assert agents.load("ppo:classic-4p-vd", num_players=4, **VD).info["path"] == str(
        shipped / "classic_4p_vd.pt")
    assert agents.trained_options("ppo:classic")["voluntary_draw"] is False  # the default's
    with pytest.raises(ValueError, match=r"trained with other rules.*--option voluntary_dra"):
        agents.load("ppo:classic-vd")  # a named file at another table


def test_a_table_without_an_agent_lists_what_is_shipped(shipped: Path) -> None:
    with pytest.raises(ValueError) as err:
        agents.load("ppo:classic")  # the default table: only the voluntary-draw agent exists
    text = str(err.value)
    assert "no shipped ppo agent for classic with 2 players at this table (default rules)" in text
    assert "ppo:classic-vd (classic, 2 players, voluntary_draw=True, catch_window='turn')" in text
    assert "ppo:classic-4p-vd (classic, 4 players" in text
    with pytest.raises(ValueError, match=r"at this table \(.*stacking=True\); shipped: "):
        agents.load("ppo:classic", stacking=True, **VD)
    with pytest.raises(FileNotFoundError, match="no checkpoint ppo:classic-xx is shipped"):
        agents.load("ppo:classic-xx")
    assert agents.trained_options("ppo:classic") == agents.trained_options("ppo:classic-vd")


def test_another_env_version_is_refused(tmp_path: Path) -> None:
    path = _save(tmp_path / "old.pt", "classic", 2, {}, env_version=0)
    with pytest.raises(ValueError, match=r"trained on uno_classic_v0; .* uno_classic_v1 .*"
                                         r"CHANGELOG"):
        agents.load(f"ppo:{path}")
    now = _save(tmp_path / "now.pt", "classic", 2, {})
    assert agents.load(f"ppo:{now}").info["env_version"] == 1


# Shipped files trained before the env versions, on an observation without the history pieces
# (opp_declined, opp_drawn: v1 has them): the fingerprint of the tree that trained them is not
# v1's, so they record no version and are checked by their layout and rules alone; their
# policy reads v1's observation less those pieces (no ``pieces`` list: the old files' input).
PRE_V1 = {"classic_4p_vd.pt": "e2d83c3", "flex_2p.pt": "265a0d7"}


def test_every_shipped_checkpoint_records_its_env_version() -> None:
    import torch

    from uno_env.variants import find_variant

    files = sorted(ppo.CHECKPOINT_DIR.glob("*.pt"))
    assert len(files) >= 7, files
    missing = []
    for path in files:
        payload = torch.load(path, map_location="cpu", weights_only=True)
        if path.name in PRE_V1:
            assert "env_version" not in payload and "pieces" not in payload, path.name
            continue
        if payload.get("env_version") is None:
            missing.append(path.name)
        else:
            assert payload["env_version"] == find_variant(payload["variant"]).version, path.name
    assert not missing, f"shipped checkpoints without env_version: {missing}"
