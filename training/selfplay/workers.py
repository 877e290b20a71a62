"""Rollout workers of the batch-engine trainer: ``workers`` :class:`VectorRollout` objects,
each with its share of the ``num_envs`` games and its own random streams, run in the
learner's process one after the other (:class:`LocalWorkers`), each in its own process
(:class:`~uno_env.training.selfplay.procs.ProcessWorkers`, which also holds
:func:`~uno_env.training.selfplay.procs.make_workers`) or as Ray actors
(:class:`RayWorkers`).

All give the learner the same batches for the same seed (worker ``w`` draws its deals,
seats and actions from :func:`~uno_env.training.selfplay.vector_rollout.worker_streams` whatever
process it lives in), so where the workers run changes the speed of a run, not its numbers.
A rollout is :meth:`~LocalWorkers.submit`-ted, then :meth:`~LocalWorkers.receive`-d: in
between the learner may update (``policy_lag: 1``, docs/training.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from uno_env.training.config import SelfPlayConfig
from uno_env.training.selfplay.vector_rollout import VectorRollout

Result = tuple[dict[str, np.ndarray], dict[str, Any]]


def cpu_state(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()}


class LocalWorkers:
    """The workers as plain objects of the learner's process."""

    def __init__(self, cfg: SelfPlayConfig, device: str) -> None:
        self.items = [VectorRollout(cfg, w, device) for w in range(int(cfg.workers))]
        self._teacher_coef = 0.0

    def start(self, teacher_coef: float) -> None:
        for w in self.items:
            w.teacher_coef = teacher_coef
            w.start()

    def set_weights(self, state_dict: dict[str, torch.Tensor]) -> None:
        for w in self.items:
            w.set_weights(state_dict)

    def add_frozen(self, version: int, state_dict: dict[str, torch.Tensor]) -> None:
        for w in self.items:
            w.add_frozen(version, state_dict)

    def submit(self, teacher_coef: float) -> None:
        """Start a rollout with the weights set last (here: played at :meth:`receive`)."""
        self._teacher_coef = teacher_coef

    def receive(self) -> list[Result]:
        """The submitted rollout's results, in worker order."""
        return [w.run(self._teacher_coef) for w in self.items]

    def states(self) -> list[dict[str, Any]]:
        return [w.state() for w in self.items]

    def load_states(self, states: list[dict[str, Any]]) -> None:
        for w, st in zip(self.items, states, strict=True):
            w.load_state(st)

    def close(self) -> None:
        pass


class RayWorkers(LocalWorkers):
    """The workers as Ray actors (one CPU each) on the cluster ``ray.init`` finds:
    ``ray_address`` (``"auto"``: the one this machine belongs to, ``"ray://host:10001"``: a
    remote one), or a fresh local one when it is null."""

    def __init__(self, cfg: SelfPlayConfig, device: str) -> None:
        import ray

        if not ray.is_initialized():
            ray.init(address=cfg.ray_address, include_dashboard=False,
                     log_to_driver=False, ignore_reinit_error=True)
        actor: Any = ray.remote(num_cpus=1)(VectorRollout)
        self.ray = ray
        self.actors: list[Any] = [actor.remote(cfg.to_dict(), w, "cpu", 1)  # one core each
                       for w in range(int(cfg.workers))]
        self._futures: list[Any] = []

    def _all(self, method: str, *args: Any) -> list[Any]:
        return list(self.ray.get([getattr(a, method).remote(*args) for a in self.actors]))

    def start(self, teacher_coef: float) -> None:
        self._all("start", teacher_coef)

    def set_weights(self, state_dict: dict[str, torch.Tensor]) -> None:
        self._all("set_weights", self.ray.put(state_dict))

    def add_frozen(self, version: int, state_dict: dict[str, torch.Tensor]) -> None:
        self._all("add_frozen", version, self.ray.put(state_dict))

    def submit(self, teacher_coef: float) -> None:
        self._futures = [a.run.remote(teacher_coef) for a in self.actors]

    def receive(self) -> list[Result]:
        return list(self.ray.get(self._futures))

    def states(self) -> list[dict[str, Any]]:
        return self._all("state")

    def load_states(self, states: list[dict[str, Any]]) -> None:
        pairs = zip(self.actors, states, strict=True)
        self.ray.get([a.load_state.remote(st) for a, st in pairs])

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []


def merge(results: list[Result], fields: tuple[str, ...] | None = None) -> Result:
    """One batch (the workers' decisions in worker order; ``fields`` of it, or all) and one
    info of a rollout."""
    batches = [b for b, _ in results]
    batch = {k: np.concatenate([b[k] for b in batches]) for k in fields or batches[0]}
    info: dict[str, Any] = {"games": 0, "results": {}, "lengths": [], "truncated": 0,
                            "new_steps": 0}
    for _, i in results:
        for k in ("games", "truncated", "new_steps"):
            info[k] += i[k]
        info["lengths"] += i["lengths"]
        for label, won in i["results"].items():
            info["results"].setdefault(label, []).extend(won)
    return batch, info
