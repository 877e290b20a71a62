"""A CleanRL-style PPO loop (one file, no RL library) with invalid-action masking.

CleanRL's ``ppo.py`` on ``gymnasium.make("uno_env/UNO-v1")`` with two changes: the policy's
logits are masked with ``info["action_mask"]`` (illegal actions get probability 0, and the
same mask is used again when the log-probabilities are recomputed in the update), and the
vector env resets in the same step (``AutoresetMode.SAME_STEP``) so that every returned
observation and mask belong to a decision the agent must take.

Usage: ``python examples/cleanrl_ppo.py [--variant flip] [--total-timesteps 100000]``
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import uno_env


@dataclass
class Args:
    variant: str = "classic"
    opponents: tuple[str, ...] = ("random",)
    max_steps: int = uno_env.DEFAULT_MAX_STEPS  # decisions per game (every seat's)
    total_timesteps: int = 100_000
    num_envs: int = 8
    num_steps: int = 128
    learning_rate: float = 2.5e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    seed: int = 0


class Agent(nn.Module):
    def __init__(self, obs_size: int, n_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(), nn.Linear(128, 1))
        self.actor = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(),
                                   nn.Linear(128, n_actions))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None,
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = self.actor(x).masked_fill(~mask, -1e8)  # illegal actions: probability 0
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)


def make_envs(args: Args) -> gymnasium.vector.SyncVectorEnv:
    def thunk() -> gymnasium.Env:
        return gymnasium.make(uno_env.GYM_ID, variant=args.variant,
                              opponents=list(args.opponents), max_steps=args.max_steps)
    return gymnasium.vector.SyncVectorEnv(
        [thunk for _ in range(args.num_envs)],
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)


def train(args: Args) -> tuple[Agent, list[float]]:
    """Returns the agent and the return of every finished episode, in order."""
    torch.manual_seed(args.seed)
    envs = make_envs(args)
    obs_size = int(np.prod(envs.single_observation_space.shape))
    n_actions = int(envs.single_action_space.n)
    agent = Agent(obs_size, n_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros(shape + (obs_size,))
    masks = torch.zeros(shape + (n_actions,), dtype=torch.bool)
    actions, logprobs = torch.zeros(shape, dtype=torch.long), torch.zeros(shape)
    rewards, dones, values = torch.zeros(shape), torch.zeros(shape), torch.zeros(shape)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    next_obs_np, info = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs_np)
    next_mask = torch.as_tensor(info["action_mask"].astype(bool))
    next_done = torch.zeros(args.num_envs)
    returns_seen: list[float] = []
    episode_return = np.zeros(args.num_envs)
    for _ in range(max(1, args.total_timesteps // batch_size)):
        for step in range(args.num_steps):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            next_obs_np, reward, term, trunc, info = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            episode_return += reward
            done = np.logical_or(term, trunc)
            for i in np.flatnonzero(done):
                returns_seen.append(float(episode_return[i]))
                episode_return[i] = 0.0
            next_obs = torch.as_tensor(next_obs_np)
            next_mask = torch.as_tensor(info["action_mask"].astype(bool))
            next_done = torch.as_tensor(done, dtype=torch.float32)
        with torch.no_grad():  # GAE, as in CleanRL
            next_value = agent.value(next_obs)
            advantages = torch.zeros(shape)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                nonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nxt = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nxt * nonterminal - values[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            targets = advantages + values
        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, n_actions)
        b_act, b_logp = actions.reshape(-1), logprobs.reshape(-1)
        b_adv, b_ret = advantages.reshape(-1), targets.reshape(-1)
        order = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.default_rng(args.seed).shuffle(order)
            for start in range(0, batch_size, minibatch_size):
                mb = torch.as_tensor(order[start:start + minibatch_size])
                _, newlogp, entropy, newvalue = agent.act(b_obs[mb], b_masks[mb], b_act[mb])
                ratio = (newlogp - b_logp[mb]).exp()
                adv = b_adv[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(
                    1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue - b_ret[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
    envs.close()
    return agent, returns_seen


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="classic")
    p.add_argument("--total-timesteps", type=int, default=100_000)
    a = p.parse_args()
    _, returns = train(Args(variant=a.variant, total_timesteps=a.total_timesteps))
    recent = returns[-200:]
    print(f"{len(returns)} episodes; mean return of the last {len(recent)}: "
          f"{np.mean(recent):+.3f}")


if __name__ == "__main__":
    main()
