"""No process-wide side effect from importing a module or constructing an agent: thread
counts, environment variables and numba settings are the owning program's, and no file is
deleted (docs/architecture.md, Import paths and process settings). Each check runs in a
fresh interpreter, so that nothing an earlier test imported hides an effect."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import uno_env.cli as cli

ROOT = Path(__file__).resolve().parents[1]
PYCACHE = ROOT / "uno_env" / "batch" / "__pycache__"


def _python(code: str, timeout: int = 600) -> str:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=timeout)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout.strip().splitlines()[-1]


def test_importing_the_batch_engine_deletes_nothing() -> None:
    """Kernel files of unknown sources, and a stamp of other sources (what an older version
    deleted its cache by), stay where they are."""
    PYCACHE.mkdir(exist_ok=True)
    stamp = PYCACHE / "sources.sha256"
    kept = stamp.read_bytes() if stamp.exists() else None
    probes = [PYCACHE / "side_effect_probe.kernel-1.py311.nbi",
              PYCACHE / "side_effect_probe.kernel-1.py311.1.nbc", stamp]
    try:
        for p in probes:
            p.write_bytes(b"a digest of other sources")
        before = set(PYCACHE.iterdir())
        _python("import uno_env.batch, uno_env.batch.cache, uno_env.batch.vector, "
                "uno_env.batch.learner, uno_env.batch.arena; print('imported')")
        assert before <= set(PYCACHE.iterdir())
        assert all(p.read_bytes() == b"a digest of other sources" for p in probes)
    finally:
        for p in probes[:2]:
            p.unlink(missing_ok=True)
        if kept is None:
            stamp.unlink(missing_ok=True)
        else:
            stamp.write_bytes(kept)


AGENTS = """
import json, os, sys
# the libraries first (pettingzoo and torch set variables of their own when they load) and
# the SB3 model the sb3 agent reads, then the settings the agents must leave alone
import gymnasium, numba, pettingzoo, torch, uno_env
from sb3_contrib import MaskablePPO
env = gymnasium.make(uno_env.GYM_ID, variant="classic", num_players=2)
MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16,
            policy_kwargs={"net_arch": [8]}).save(sys.argv[1])
torch.set_num_threads(3)
environ, cache_dir = dict(os.environ), numba.config.CACHE_DIR
from uno_env import agents
specs = ["random", "rule", "ppo:classic", "ismcts:simulations=4",
         "ismcts:search=pimc;prior=ppo:classic;simulations=4", "sb3:" + sys.argv[1]]
made = [agents.load(s, "classic", 2, seed=0, **agents.trained_options(s)) for s in specs]
changed = sorted(k for k in {*environ, *os.environ} if environ.get(k) != os.environ.get(k))
print(json.dumps([len(made), torch.get_num_threads(), changed,
                  numba.config.CACHE_DIR == cache_dir]))
"""


def test_constructing_agents_keeps_the_process_settings(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    run = subprocess.run([sys.executable, "-c", AGENTS, str(tmp_path / "model.zip")],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == [6, 3, [], True]


def test_the_uno_env_program_sets_one_thread_for_the_commands_that_play_agents(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``console`` (the uno-env program) sets OMP_NUM_THREADS before torch loads, for the
    commands marked ``agents``, unless the user set it; ``main`` (a library call) never."""
    assert {n for n, c in cli.COMMANDS.items() if c.agents} == {
        "demo", "play", "serve", "tournament", "check-agent", "evaluate"}
    monkeypatch.setattr(cli, "main", lambda argv=None: 0)
    for argv, preset, want in [(["evaluate", "rule", "random"], None, "1"),
                               (["train", "classic_selfplay"], None, None),
                               (["tournament", "smoke"], "4", "4")]:
        if preset is None:
            monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
        else:
            monkeypatch.setenv("OMP_NUM_THREADS", preset)
        monkeypatch.setattr(sys, "argv", ["uno-env", *argv])
        with pytest.raises(SystemExit) as done:
            cli.console()
        assert done.value.code == 0 and os.environ.get("OMP_NUM_THREADS") == want, argv
