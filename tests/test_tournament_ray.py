"""The Ray backend: one local Ray cluster for the module (two CPUs, loopback only); the
same tournament on it gives the games of the local backend, both from a driver in this
process and from the command line pointed at the running cluster with RAY_ADDRESS."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from uno_env.cli import main as uno_main
from uno_env.tournament.runner import TournamentConfig, run_tournament

# A single-node cluster on 127.0.0.1 only: with this variable off (read when Ray is imported,
# and inherited by the cluster's processes) Ray takes the loopback address as the node's, as
# it does on macOS and Windows; otherwise it binds the machine's own network address.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
if os.environ.get("CI"):
    import ray  # the project's set-up installs Ray for the suite: missing is a failure
else:
    ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parent.parent
NODE = "cmd:node examples/agents/random_agent.js"
HANG = f"cmd:{sys.executable} tests/faulty_agent.py hang 3"
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             _node_ip_address="127.0.0.1", object_store_memory=80 << 20)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _untimed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "timing"} for r in records]


def test_same_results_on_ray_in_process_driver(cluster: str) -> None:
    cfg: dict[str, Any] = {"agents": ["rule", "random", "rule"], "games": 12, "seed": 3,
                           "options": {"uno_catch": "off"}}
    local = run_tournament(TournamentConfig(**cfg, workers=1), progress=False)
    on_ray = run_tournament(TournamentConfig(**cfg, workers=2, backend="ray"), progress=False)
    assert on_ray == local
    assert ray.is_initialized()  # a cluster it did not start is left running


def test_command_line_on_an_existing_cluster_gives_the_local_games(
        cluster: str, tmp_path: Path) -> None:
    args = ["tournament", "--agents", f"rule,random,{NODE},{HANG}", "--games", "12",
            "--seed", "2", "--option", "uno_catch=off", "--move-time", "0.5", "--bank-time",
            "0.5", "--first-move-time", "10", "--no-progress"]  # only HANG ever times out
    local, remote = tmp_path / "local", tmp_path / "ray"
    assert uno_main([*args, "--workers", "1", "--out", str(local)]) == 0
    env = dict(os.environ, RAY_ADDRESS=cluster,
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "uno_env.cli", *args, "--backend", "ray",
                           "--workers", "2", "--out", str(remote)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    a = [json.loads(x) for x in (local / "games.jsonl").read_text().splitlines()]
    b = [json.loads(x) for x in (remote / "games.jsonl").read_text().splitlines()]
    assert len(a) == 12 and _untimed(a) == _untimed(b)
    statuses = [s for r in a for s in r["result"]["statuses"]]
    assert statuses.count("timeout") == 6 and statuses.count("ok") == 18
    assert all("timing" in r for r in b)  # --move-time: every agent ran in a process
