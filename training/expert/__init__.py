"""Expert iteration: the batched search's labels, distilled into the network
(docs/expert-iteration.md, docs/expert-loop.md).

- :mod:`~uno_env.training.expert.labels`: the label store, one label per searched position,
  written in chunks that a stopped run resumes exactly;
- :mod:`~uno_env.training.expert.generate`: plays games against ``rule`` and searches the
  learner's decisions in batches (:mod:`uno_env.agents.pimc_batch`) to make the labels;
- :mod:`~uno_env.training.expert.loss`: the distillation loss towards the search's policy
  and value;
- :mod:`~uno_env.training.expert.train`: trains the network on the labels (the PPO trainer
  with a distillation term, or distillation alone);
- :mod:`~uno_env.training.expert.loop`: ``uno-env expert``, the iterations (generate,
  train, evaluate) with an exact resume;
- :mod:`~uno_env.training.expert.report`: the loop's ``report.md``/``report.json``;
- :mod:`~uno_env.training.expert.config`: the loop's configuration;
- ``bench_labels``: labels per second, one search at a time
  against the batched search.
"""
