"""Smoke tests of the benchmark scripts that print measured ratios: each runs as documented
(``python -m ...``, in its own process: the scripts set torch's threads) with the smallest
arguments, and prints its table. The kernels come from the on-disk numba cache the other
tests fill (the first compilation takes minutes)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                         timeout=900, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_bench_determinize_prints_a_ratio_per_variant() -> None:
    text = _run("uno_env.batch.bench_determinize", "--positions", "2", "--samples", "1",
                "--variants", "classic", "flip")
    assert "(2 players, 2 positions x 1 samples)" in text
    for variant in ("classic", "flip"):
        assert re.search(rf"^{variant}\s+\d+\s+\d+\s+\d+\.\dx$", text, re.M), text


def test_bench_labels_prints_its_ratios_and_the_same_moves() -> None:
    text = _run("uno_env.training.expert.bench_labels", "--positions", "2", "--samples", "2")
    assert "classic 2p, prior classic-vd, 2 positions x 2 samples" in text
    assert len(re.findall(r"labels/s  x\d+\.\d\d$", text, re.M)) == 2, text
    assert "same moves: True" in text  # the three searches chose the same moves
