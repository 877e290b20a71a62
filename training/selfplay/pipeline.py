"""The batch-engine rollouts as the learner sees them: when each rollout is launched, with
which weights, and what a checkpoint must hold to continue exactly (docs/training.md,
"Every core").

With ``policy_lag: 0`` a rollout is launched and received before each update: it is played
with the current weights. With ``policy_lag: 1`` the next rollout is launched as soon as one
is received, with the weights of that moment, and the learner updates while the workers play
it: rollout ``r`` is played with the weights after update ``max(r - 1, 0)`` and trained by
update ``r + 1``, so the policy that plays is always exactly one update behind the one that
learns (never more, whatever the timing: the schedule is fixed, so runs are reproducible).
PPO's ratio is taken against the log-probabilities recorded when the actions were sampled,
the behaviour policy's, so the clipped objective stays correct under the lag.

A pipelined checkpoint records the workers as they were at the last launch, the weights and
teacher weight that launch gave them, and the pool snapshots not yet sent: a resumed run
launches that same rollout again and continues as if it had not stopped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from uno_env.agents.policy import PolicyNet
from uno_env.training.config import SelfPlayConfig
from uno_env.training.selfplay.procs import ProcessWorkers, make_workers
from uno_env.training.selfplay.sharded import ShardRunner, local_runner
from uno_env.training.selfplay.workers import Result, cpu_state, merge

Weights = dict[str, torch.Tensor]
SCALARS = ("act", "logp", "teacher", "adv", "ret")  # what the sharded update reads here


class Pipeline:
    """The rollout workers of a run (a resolved config) and its launch schedule."""

    def __init__(self, cfg: SelfPlayConfig, device: str, params: int, sharded: bool) -> None:
        """``sharded``: the workers share the update (``SelfPlayTrainer.sharded``)."""
        self.cfg = cfg
        self.sharded = sharded
        self.lag = int(cfg.policy_lag)
        self.workers = make_workers(cfg, device, params)
        self.pending_frozen: list[tuple[int, Weights]] = []  # pool snapshots not yet sent
        self.launched: dict[str, Any] | None = None  # the last launch, when recorded
        self._restored: dict[str, Any] | None = None

    def _launch(self, net: torch.nn.Module, teacher_coef: float, record: bool,
                submit: bool) -> None:
        for version, weights in self.pending_frozen:
            self.workers.add_frozen(version, weights)
        self.pending_frozen = []
        weights = cpu_state(net)
        self.workers.set_weights(weights)
        self.launched = None
        if record:  # the workers are idle: their state is the rollout's starting point
            self.launched = {"workers": self.workers.states(),
                             "inflight": {"weights": weights, "teacher_coef": teacher_coef}}
        if submit:
            self.workers.submit(teacher_coef)

    def begin(self, net: torch.nn.Module, teacher_coef: float) -> None:
        """Deal the first games, or restore the checkpoint's (and relaunch its rollout)."""
        st, self._restored = self._restored, None
        if st is None:
            self.workers.start(teacher_coef)
            if self.lag:
                self._launch(net, teacher_coef, record=False, submit=True)
            return
        self.workers.load_states(st["workers"])
        inflight = st["inflight"]
        if inflight is not None:
            self.workers.set_weights(inflight["weights"])
            self.workers.submit(float(inflight["teacher_coef"]))

    def collect(self, net: torch.nn.Module, teacher_coef: float, steps: int, updates: int
                ) -> Result:
        """The next rollout (merged over the workers); with a lag, the one after it is
        launched before this returns. ``steps`` and ``updates`` (the learner's, before this
        rollout's update) tell whether that update ends the run or is checkpointed."""
        cfg = self.cfg
        if not self.lag:
            self._launch(net, teacher_coef, record=False, submit=True)
            # worker processes sharing the update read the rows from their shared blocks:
            # the learner needs the per-row numbers only (not ~1 KB of observation a row)
            small = self.sharded and isinstance(self.workers, ProcessWorkers)
            return merge(self.workers.receive(), SCALARS if small else None)
        batch, info = merge(self.workers.receive())
        last = steps + info["new_steps"] >= cfg.total_steps
        record = last or (updates + 1) % cfg.checkpoint_interval == 0
        self._launch(net, teacher_coef, record=record, submit=not last)
        return batch, info

    def shard_runner(self, net: PolicyNet, batch: dict[str, np.ndarray], critic: bool
                     ) -> ShardRunner:
        """The sharded update's gradients for ``batch`` (the rollout just collected): computed
        by the worker processes, or here one shard after another (the same numbers)."""
        if isinstance(self.workers, ProcessWorkers):
            return self.workers.shard_runner(net)
        return local_runner(net, batch, critic)

    def snapshot(self, version: int, net: torch.nn.Module) -> None:
        """A pool snapshot for the workers: sent now when they are idle, else at the next
        launch."""
        self.pending_frozen.append((version, cpu_state(net)))
        if not self.lag:
            for v, weights in self.pending_frozen:
                self.workers.add_frozen(v, weights)
            self.pending_frozen = []

    # --- checkpoints ----------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The checkpoint's ``workers``, ``inflight`` and ``pending_frozen``."""
        pending = [[v, w] for v, w in self.pending_frozen]
        if not self.lag:
            return {"workers": self.workers.states(), "inflight": None,
                    "pending_frozen": pending}
        if self.launched is None:
            raise RuntimeError("a run with policy_lag: 1 is checkpointed when it launches a "
                               "rollout (every checkpoint_interval updates and at the end), "
                               "not between")
        return {**self.launched, "pending_frozen": pending}

    def load(self, ck: dict[str, Any], path: str) -> None:
        states = ck.get("workers") or None
        if states is None:
            return  # a checkpoint from engine: python deals fresh games
        if len(states) != self.cfg.workers:
            raise ValueError(f"checkpoint {path!r} has {len(states)} rollout worker(s), this "
                             f"run has workers={self.cfg.workers} (workers: auto is one per "
                             f"CPU); set workers: {len(states)} to resume it")
        inflight = ck.get("inflight")
        if (inflight is not None) != bool(self.lag):
            raise ValueError(f"checkpoint {path!r} was saved by a run with policy_lag: "
                             f"{int(inflight is not None)}, this run has policy_lag: "
                             f"{self.lag}; set policy_lag: {int(inflight is not None)} to "
                             f"resume it")
        self.pending_frozen = [(int(v), w) for v, w in ck.get("pending_frozen", [])]
        self._restored = {"workers": states, "inflight": inflight}

    def close(self) -> None:
        self.workers.close()
