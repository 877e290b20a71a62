"""Env fingerprints: what an env's version stands for, recorded in
``tests/env_fingerprints.json`` and checked by ``tests/test_env_versions.py``.

An env ``uno_<variant>_v<N>`` promises its rules, observation, actions and rewards. The
fingerprint of a variant holds only public behaviour: its option defaults, the observation
layout (piece names, sizes, bounds) and the action table (meanings) at every table of the
golden playthroughs, and a digest of each golden file's seeds, actions and
observation/mask/reward digests (the ``<obs>`` half: the engine snapshot is internal). Engine
internals may change freely; any change of this fingerprint needs a version bump
(``version`` in ``uno_env/variants/<variant>.py``) and a CHANGELOG.md line.

``python tests/env_fingerprint.py record`` rewrites the file (after a bump, or when golden
files were added); ``python tests/env_fingerprint.py check`` prints what differs.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from golden_io import GOLDEN_DIR, _cases, load

import uno_env
from uno_env.observation import ObservationLayout

FINGERPRINTS = Path(__file__).resolve().parent / "env_fingerprints.json"
RECORD = "python tests/env_fingerprint.py record"


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprint(variant: str, golden_dir: Path = GOLDEN_DIR) -> dict[str, Any]:
    """The public behaviour of ``variant``'s env (see the module docstring)."""
    v = uno_env.find_variant(variant)
    out: dict[str, Any] = {
        "version": v.version,
        "env_name": v.env_name,
        "option_defaults": {k: repr(o.default) for k, o in sorted(v.options.items())},
    }
    for name, case, options, counts, _ in _cases():
        if name != v.name:
            continue
        for n in counts:
            game = uno_env.Game(variant, n, **options)
            layout = ObservationLayout(game)
            rows = [[p.name, p.size, p.high] for p in layout.pieces]
            out[f"observation/{case}/{n}p"] = _digest(rows)
            out[f"actions/{case}/{n}p"] = _digest(list(game.actions.meanings))
            if case == "default" and n == 2:  # readable, so a diff shows what moved
                out["observation_pieces_2p"] = [f"{p.name}:{p.size}" for p in layout.pieces]
    for path in sorted(golden_dir.glob(f"{v.name}-*.json")):
        data = load(path)
        games = [[g["num_players"], g["seed"], g["actions"],
                  [d.split(":")[0] for d in g["digests"]]] for g in data["games"]]
        out[f"golden/{path.stem}"] = _digest([data["options"], games])
    return out


def current(golden_dir: Path = GOLDEN_DIR) -> dict[str, dict[str, Any]]:
    return {v: fingerprint(v, golden_dir) for v in uno_env.list_variants()}


def recorded() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(FINGERPRINTS.read_text(encoding="utf-8"))
    return data


def problems(rec: dict[str, dict[str, Any]], cur: dict[str, dict[str, Any]]) -> list[str]:
    """What differs between a recorded and a current fingerprint, as messages that say what
    to do: a changed fingerprint at the same version needs a bump."""
    out = []
    for variant in sorted(set(rec) | set(cur)):
        r, c = rec.get(variant), cur.get(variant)
        if r is None or c is None:
            out.append(f"{variant}: no {'recorded' if r is None else 'current'} fingerprint; "
                       f"re-record: {RECORD}")
            continue
        changed = sorted(k for k in set(r) & set(c) if r[k] != c[k] and k != "env_name")
        if c["version"] == r["version"] and changed:
            out.append(
                f"{c['env_name']} changed ({', '.join(changed)}) but its version did not: "
                f"bump `version` in uno_env/variants/{variant}.py, say what changed in "
                f"CHANGELOG.md, then re-record the fingerprint: {RECORD}")
        elif c["version"] != r["version"]:
            out.append(f"{variant}: version {r['version']} -> {c['version']}; after the "
                       f"CHANGELOG.md line, re-record the fingerprint: {RECORD}")
        elif set(r) != set(c):
            out.append(f"{variant}: tables or golden files added or removed "
                       f"({', '.join(sorted(set(r) ^ set(c)))}); re-record: {RECORD}")
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["record"]:
        FINGERPRINTS.write_text(json.dumps(current(), indent=1, sort_keys=True) + "\n",
                                encoding="utf-8")
        print(f"wrote {FINGERPRINTS}")
    elif sys.argv[1:] == ["check"]:
        found = problems(recorded(), current())
        print("\n".join(found) or "every fingerprint matches its version")
        sys.exit(1 if found else 0)
    else:
        sys.exit("usage: python tests/env_fingerprint.py record|check")
