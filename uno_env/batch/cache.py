"""Keep numba's on-disk kernel cache true to the sources.

numba checks a cached kernel only against the timestamp of the file that defines it, yet
our kernels inline rule functions from the other batch modules and freeze constants from
``uno_env/rules/codes.py``. After an edit or a branch switch a kernel could load with stale
inlined code (seen as heap corruption). So on import we hash every source the kernels read
and, when the hash changed, delete the cached ``*.nbi``/``*.nbc`` files beside them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = sorted(HERE.glob("*.py")) + [HERE.parent / "rules" / "codes.py"]
STAMP = "sources.sha256"


def sources_digest() -> str:
    h = hashlib.sha256()
    for p in SOURCES:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def refresh(cache_dir: Path = HERE / "__pycache__") -> bool:
    """Drop the cached kernels in ``cache_dir`` if the sources changed since they were
    written; True when files were dropped. A read-only install is left alone."""
    digest = sources_digest()
    stamp = cache_dir / STAMP
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    dropped = False
    try:
        cache_dir.mkdir(exist_ok=True)
        for f in [*cache_dir.glob("*.nbi"), *cache_dir.glob("*.nbc")]:
            f.unlink()
            dropped = True
        stamp.write_text(digest)
    except OSError:
        return dropped
    return dropped
