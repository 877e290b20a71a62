"""Native PyTorch self-play: masked PPO with one policy playing many games at once.

How a run goes (``train(config)``; keys and defaults in :class:`SelfPlayConfig`):

* ``num_envs`` games run side by side: on the batch engine (``engine: batch``, the default:
  :mod:`uno_env.training.selfplay.vector_rollout` on ``uno_env.vector_env``, shared between
  ``workers`` rollout workers, by default one per core in their own processes, playing the
  next rollout while the learner updates: :mod:`uno_env.training.selfplay.pipeline`,
  :mod:`uno_env.training.selfplay.workers`) or as ``raw_env`` games (``engine: python``,
  :mod:`uno_env.training.selfplay.rollout`). Each game, at its start, gets
  one *learner* seat at random; every other seat is drawn from the opponent pool
  (``opponents``: ``self`` is the learning policy again, ``rule`` / ``random`` the agents of
  :mod:`agents`, ``frozen`` a past version of the policy, kept every ``pool_interval``
  updates, the last ``pool_size`` of them). Every learner and ``self`` seat is recorded.
* Each *tick*, every game makes one decision. All games whose acting seat is a learner seat
  are evaluated by the policy in one batch; frozen seats are batched per version.
* Each recorded seat has its own trajectory: its decisions in order, with every reward the
  game pays that seat (the terminal +1/-1 included, even when another seat ended the game)
  added to the seat's latest decision. GAE(lambda) runs along these per-seat chains. A seat's
  last decision in a rollout, whose successor is not known yet, serves as the bootstrap value
  of its predecessor and is trained in the next rollout (with the log-probability it was
  sampled with, so the importance ratio stays exact). Truncation at ``max_steps`` counts as
  the end of the game with no reward.
* After ``rollout_ticks`` ticks: PPO (clipped objective, ``epochs`` passes over shuffled
  minibatches, advantage normalisation per minibatch), learning rate and entropy coefficient
  decaying linearly with the steps done.
* Optional *kickstarting* (``teacher: rule``): on the learner's own decisions the teacher
  agent is asked what it would do, and a cross-entropy term pulls the policy towards it with
  a weight that decays to ``teacher_coef_final`` over ``teacher_steps``: the policy starts
  from the heuristic's play and PPO then improves on it.
* Optional asymmetric critic (``critic: state``): the value MLP also reads the other
  players' hands (training only; the policy and the shipped agent read the observation).

Steps are counted in recorded learner decisions. Runs are exactly reproducible on CPU from
``seed`` (given ``workers``, ``policy_lag`` and ``threads``, which ``auto`` resolves from the
CPU count). ``resume`` (a checkpoint path, or ``auto`` for ``output_dir/checkpoint_last.pt``)
restores weights, optimiser, opponent pool, counters and random states, and on the batch
engine the games in flight, the agents' memories and the pending decisions too: a resumed
run continues exactly as if it had not stopped (``engine: python`` deals fresh games).

Files in ``output_dir``: ``checkpoint_last.pt`` (everything), ``final.pt`` (policy only,
small: what ``agents.load("ppo:PATH")`` reads), ``curve.json`` (evaluation win rates over
training), ``tb/`` (TensorBoard).
"""

from uno_env.training.config import SelfPlayConfig
from uno_env.training.selfplay.evaluation import evaluate_policy
from uno_env.training.selfplay.reporting import plot_curve, write_results
from uno_env.training.selfplay.rollout import sample_actions
from uno_env.training.selfplay.trainer import SelfPlayTrainer, train

__all__ = ["SelfPlayConfig", "SelfPlayTrainer", "evaluate_policy", "plot_curve",
           "sample_actions", "train", "write_results"]
