"""TorchRL's ``EnvBase`` over the learner vector env (``uno_env.batch.learner``).

``uno_env.torchrl_env(variant=..., num_envs=N, opponents=[...])`` is a batch of ``N`` UNO-v1
games (``batch_size=[N]``): TensorDicts in and out, ``"observation"`` and ``"action_mask"``
(bool ``[N, num_actions]``) in the observation spec, a ``Categorical`` action spec whose mask
is kept on the current legal actions (``update_mask``, as TorchRL's masked-action docs do,
so ``rand_action`` and random rollouts play legally), and ``done``/``terminated``/
``truncated``. TorchRL resets finished games itself (``"_reset"``), so the engine runs with
autoreset off and a partial reset deals only those games, each continuing its own seed
stream. ``SyncDataCollector`` and a ``ProbabilisticActor`` with ``MaskedCategorical`` (reading
``"action_mask"``) use it unchanged. Needs ``torchrl`` (the torchrl extra). See
docs/vector-interfaces.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from uno_env.batch.learner import LearnerVectorEnv


class UnoTorchRLEnv(EnvBase):
    """``N`` UNO-v1 games as one TorchRL env (see the module docstring)."""

    batch_locked = True

    def __init__(self, venv: LearnerVectorEnv, device: str | torch.device = "cpu") -> None:
        if venv.autoreset or venv.copy:
            raise ValueError("give a LearnerVectorEnv with autoreset=False and copy=False "
                             "(TorchRL resets finished games itself), or use torchrl_env()")
        n, na, dim = venv.num_envs, venv.num_actions, venv.obs_dim
        super().__init__(device=device, batch_size=torch.Size([n]))
        self.venv = venv
        high = torch.as_tensor(venv.obs_high, dtype=torch.float32)
        self.observation_spec = Composite(
            observation=Bounded(low=torch.zeros(n, dim), high=high.expand(n, dim),
                                shape=(n, dim), dtype=torch.float32, device=device),
            action_mask=Binary(n=na, shape=(n, na), dtype=torch.bool, device=device),
            shape=(n,), device=device)
        self.action_spec = Categorical(n=na, shape=(n,), dtype=torch.int64, device=device)
        self.reward_spec = Unbounded(shape=(n, 1), dtype=torch.float32, device=device)
        done = Categorical(n=2, shape=(n, 1), dtype=torch.bool, device=device)
        self.done_spec = Composite(done=done, terminated=done.clone(),
                                   truncated=done.clone(), shape=(n,), device=device)
        self._seed: int | None = None

    def _observed(self, done: np.ndarray, term: np.ndarray, trunc: np.ndarray) -> TensorDict:
        v = self.venv
        mask = torch.from_numpy(v.mask.astype(np.bool_))
        self.action_spec.update_mask(mask.clone())
        dev = self.device
        return TensorDict({
            "observation": torch.from_numpy(v.obs.copy()),
            "action_mask": mask,
            "done": torch.from_numpy(done.copy()).unsqueeze(-1),
            "terminated": torch.from_numpy(term.copy()).unsqueeze(-1),
            "truncated": torch.from_numpy(trunc.copy()).unsqueeze(-1),
        }, batch_size=self.batch_size, device=dev)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDict:
        which = None
        if tensordict is not None and "_reset" in tensordict.keys():  # noqa: SIM118
            r = tensordict.get("_reset").reshape(self.batch_size).cpu().numpy().astype(bool)
            if not r.all():
                which = r
        seed, self._seed = self._seed, None
        self.venv.reset(seed=seed, options=None if which is None else {"reset_mask": which})
        no = np.zeros(self.venv.num_envs, np.bool_)
        return self._observed(no, no, no)

    def _step(self, tensordict: TensorDictBase) -> TensorDict:
        action = tensordict.get("action")
        v = self.venv
        v.step_buffers(action.reshape(-1).cpu().numpy())
        out = self._observed(v.dones, v.terminations, v.truncations)
        out.set("reward", torch.from_numpy(v.rewards.astype(np.float32)).unsqueeze(-1))
        return out

    def _set_seed(self, seed: int | None) -> None:
        """The next (full) reset seeds game ``i`` with ``seed + i``."""
        self._seed = seed


def torchrl_env(variant: str = "classic", num_players: int = 2, num_envs: int = 8,
                opponents: Sequence[str] = ("random",), device: str | torch.device = "cpu",
                **kwargs: Any) -> UnoTorchRLEnv:
    """A TorchRL env of ``num_envs`` UNO-v1 games; ``kwargs`` are UNO-v1's
    (``learner_seat``, ``reward``, ``max_steps``, ``illegal_action``, rule options)."""
    return UnoTorchRLEnv(LearnerVectorEnv(num_envs, variant=variant, num_players=num_players,
                                          opponents=opponents, copy=False, autoreset=False,
                                          **kwargs), device=device)
