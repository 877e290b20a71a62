"""Env versions: every env name carries a version (``uno_classic_v1``, Gymnasium
``uno_env/UNO-v1``) that changes with any change of its rules, observation, actions or
rewards. The fingerprint (``tests/env_fingerprint.py``) is the check; CHANGELOG.md says what
each version changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import env_fingerprint as fp
import gymnasium
import pytest
from golden_io import GOLDEN_DIR

import uno_env
from uno_env.observation import ObservationLayout

ROOT = Path(__file__).resolve().parent.parent


def test_every_fingerprint_matches_its_version() -> None:
    found = fp.problems(fp.recorded(), fp.current())
    assert not found, "\n".join(found)


def test_a_changed_layout_without_a_bump_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    init = ObservationLayout.__init__

    def one_more_piece(self: ObservationLayout, game: uno_env.Game) -> None:
        init(self, game)
        self._add("extra", 1, 1, "a piece the recorded layout does not have")

    monkeypatch.setattr(ObservationLayout, "__init__", one_more_piece)
    found = fp.problems(fp.recorded(), {"classic": fp.fingerprint("classic")})
    assert any(m.startswith("uno_classic_v1 changed (observation/") and "bump `version`" in m
               and fp.RECORD in m for m in found), found


def test_a_changed_golden_without_a_bump_fails(tmp_path: Path) -> None:
    for p in GOLDEN_DIR.glob("flip-*.json"):
        shutil.copy(p, tmp_path / p.name)
    path = tmp_path / "flip-default.json"
    data = json.loads(path.read_text())
    obs, snap = data["games"][0]["digests"][3].split(":")
    data["games"][0]["digests"][3] = f"{'0' * len(obs)}:{snap}"  # another observation
    path.write_text(json.dumps(data))
    found = fp.problems({"flip": fp.recorded()["flip"]}, {"flip": fp.fingerprint("flip", tmp_path)})
    assert found == [m for m in found if "golden/flip-default" in m and "bump `version`" in m]
    assert found


def test_a_bump_asks_to_re_record() -> None:
    rec = fp.recorded()
    bumped = {"express": {**rec["express"], "version": rec["express"]["version"] + 1}}
    assert "re-record" in fp.problems({"express": rec["express"]}, bumped)[0]


def test_env_names_carry_the_version_and_the_changelog_names_each() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for v in uno_env.list_variants():
        variant = uno_env.find_variant(v)
        assert variant.env_name == f"uno_{v}_v{variant.version}"
        assert uno_env.raw_env(v).metadata["name"] == variant.env_name
        assert f"`{variant.env_name}`" in changelog, f"CHANGELOG.md has no line on {variant.env_name}"


def test_gymnasium_id_is_v1_and_v0_is_deprecated() -> None:
    assert uno_env.GYM_ID == "uno_env/UNO-v1"
    uno_env.register_gym()
    with pytest.raises(gymnasium.error.DeprecatedEnv, match="UNO-v1"):
        gymnasium.make("uno_env/UNO-v0")
