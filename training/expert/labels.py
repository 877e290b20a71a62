"""The label store of expert iteration: one label per searched position, kept as chunks on disk.

A label is what the search said at one decision of the learner seat (docs/expert-iteration.md):
the observation and legal actions it saw, per action the mean playout share ``q`` (NaN where
the action was not searched) and the playouts ``visits``, the network's own probabilities
``prior``, and the move the search chose. A generation run writes one chunk per block of games
(``labels-00000.npz``, to a temporary name then renamed) and after it the manifest
(``manifest.json``, the same way), so a run stopped at any point lists only whole chunks; a
chunk written but not yet listed is written again, identically, when the run resumes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "uno-env-expert-labels"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
# each field's dtype and rank: 2 = [N, A] (or [N, obs_dim] for obs), 1 = [N]
FIELDS: dict[str, tuple[type, int]] = {
    "obs": (np.float32, 2), "mask": (np.uint8, 2), "q": (np.float32, 2),
    "visits": (np.int32, 2), "prior": (np.float32, 2), "move": (np.int32, 1),
    "game": (np.int64, 1), "seat": (np.int16, 1), "step": (np.int32, 1),
    "samples": (np.int32, 1),
}
# what every chunk of one store shares (the run's configuration)
META_KEYS = ("variant", "players", "options", "env_version", "seed", "iteration")


def chunk_name(index: int) -> str:
    return f"labels-{index:05d}.npz"


def empty_labels(obs_dim: int, num_actions: int) -> dict[str, np.ndarray]:
    """No labels, with the fields' dtypes and widths (a chunk whose games needed no search)."""
    return {k: np.zeros((0, obs_dim if k == "obs" else num_actions) if rank == 2 else 0, dt)
            for k, (dt, rank) in FIELDS.items()}


def check_labels(labels: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``labels`` as arrays of the fields' dtypes, after checking that they fit together; a
    clear error otherwise."""
    missing = [k for k in FIELDS if k not in labels]
    extra = [k for k in labels if k not in FIELDS]
    if missing or extra:
        raise ValueError(f"labels need exactly the fields {', '.join(FIELDS)}; missing: "
                         f"{missing or 'none'}, unknown: {extra or 'none'}")
    out: dict[str, np.ndarray] = {}
    n = len(np.asarray(labels["move"]))
    for k, (dt, rank) in FIELDS.items():
        a = np.asarray(labels[k])
        if a.ndim != rank or len(a) != n:
            raise ValueError(f"labels[{k!r}] must have {rank} dimension(s) and {n} rows (as "
                             f"'move'), got shape {a.shape}")
        if np.issubdtype(dt, np.integer) and a.size and not np.issubdtype(a.dtype, np.integer) \
                and not np.issubdtype(a.dtype, np.bool_):
            raise ValueError(f"labels[{k!r}] must be integers, got dtype {a.dtype}")
        out[k] = np.ascontiguousarray(a, dtype=dt)
    width = out["mask"].shape[1]
    for k in ("q", "visits", "prior"):
        if out[k].shape[1] != width:
            raise ValueError(f"labels[{k!r}] has {out[k].shape[1]} actions, 'mask' has {width}")
    rows = np.arange(n)
    if n and ((out["move"] < 0) | (out["move"] >= width)).any():
        raise ValueError(f"labels['move'] must be action indices 0-{width - 1}")
    if n and not out["mask"][rows, out["move"]].all():
        bad = int(np.flatnonzero(out["mask"][rows, out["move"]] == 0)[0])
        raise ValueError(f"label {bad}: its move {int(out['move'][bad])} is not legal in its "
                         f"mask")
    searched = out["visits"] > 0
    if (out["visits"] < 0).any() or (searched & (out["mask"] == 0)).any():
        raise ValueError("labels['visits'] must be >= 0, and 0 for every illegal action")
    if np.isnan(out["q"][searched]).any() or not np.isnan(out["q"][~searched]).all():
        raise ValueError("labels['q'] must be a number where visits > 0 and NaN where not")
    return out


def _write_atomic(path: Path, write: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


class LabelStore:
    """A folder of label chunks and their manifest. Opening a folder that holds a store checks
    that ``meta`` is the same run's (else the labels would mix two configurations)."""

    def __init__(self, directory: str | Path, meta: Mapping[str, Any]) -> None:
        missing = [k for k in META_KEYS if k not in meta]
        if missing:
            raise ValueError(f"the store's meta needs {', '.join(META_KEYS)}; missing "
                             f"{', '.join(missing)}")
        self.dir = Path(directory)
        self.meta = json.loads(json.dumps(dict(meta)))  # as it reads back from the manifest
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / MANIFEST
        if path.exists():
            manifest = read_manifest(self.dir)
            if manifest["meta"] != self.meta:
                diff = sorted(k for k in set(self.meta) | set(manifest["meta"])
                              if self.meta.get(k) != manifest["meta"].get(k))
                raise ValueError(f"{self.dir} holds labels of another run (its {', '.join(diff)} "
                                 f"differ): resume with the same settings or use a new folder")
            self.chunks: dict[int, dict[str, Any]] = {c["index"]: c for c in manifest["chunks"]}
        else:
            self.chunks = {}
            self._save_manifest()

    def done(self, index: int) -> bool:
        """Whether chunk ``index`` is written and listed (a resumed run skips it)."""
        return index in self.chunks

    def write(self, index: int, labels: Mapping[str, np.ndarray],
              info: Mapping[str, Any] | None = None) -> Path:
        """Write chunk ``index`` (its labels checked first) and list it with ``info`` (e.g.
        the block's games and wins); writing a listed chunk again is an error."""
        if isinstance(index, bool) or not isinstance(index, int | np.integer) or index < 0:
            raise ValueError(f"a chunk index is an integer >= 0, got {index!r}")
        if self.done(int(index)):
            raise ValueError(f"chunk {index} of {self.dir} is written already")
        arrays = check_labels(labels)
        path = self.dir / chunk_name(int(index))

        def save(tmp: Path) -> None:
            with open(tmp, "wb") as f:
                np.savez(f, allow_pickle=False, **arrays)

        _write_atomic(path, save)
        self.chunks[int(index)] = {"index": int(index), "file": path.name,
                                   "labels": int(len(arrays["move"])),
                                   **json.loads(json.dumps(dict(info or {})))}
        self._save_manifest()
        return path

    def _save_manifest(self) -> None:
        body = {"format": FORMAT, "format_version": FORMAT_VERSION, "meta": self.meta,
                "chunks": [self.chunks[i] for i in sorted(self.chunks)]}
        _write_atomic(self.dir / MANIFEST,
                      lambda tmp: tmp.write_text(json.dumps(body, indent=1) + "\n"))


def read_manifest(directory: str | Path) -> dict[str, Any]:
    """The manifest of the store in ``directory`` (format checked)."""
    path = Path(directory) / MANIFEST
    if not path.exists():
        raise FileNotFoundError(f"{directory} holds no label store (no {MANIFEST})")
    manifest: dict[str, Any] = json.loads(path.read_text())
    if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path} is not a {FORMAT} manifest of version {FORMAT_VERSION} "
                         f"(format={manifest.get('format')!r}, "
                         f"version={manifest.get('format_version')!r})")
    return manifest


def load(directory: str | Path) -> dict[str, np.ndarray]:
    """Every listed chunk's labels, concatenated in chunk order: ``{field: array}``."""
    manifest = read_manifest(directory)
    parts: list[dict[str, np.ndarray]] = []
    for c in manifest["chunks"]:
        with np.load(Path(directory) / c["file"]) as z:
            part = check_labels({k: z[k] for k in z.files})
        if len(part["move"]) != c["labels"]:
            raise ValueError(f"{c['file']} holds {len(part['move'])} labels, the manifest "
                             f"lists {c['labels']}")
        parts.append(part)
    if not parts:
        raise ValueError(f"the label store in {directory} has no chunk yet")
    return {k: np.concatenate([p[k] for p in parts]) for k in FIELDS}
