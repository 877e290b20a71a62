"""Expert iteration: the batched search's labels (docs/expert-iteration.md).

:mod:`uno_env.training.expert.labels` stores one label per searched position in chunks,
:mod:`uno_env.training.expert.generate` plays games against ``rule`` and searches the learner's
decisions in batches (:mod:`uno_env.agents.pimc_batch`) to make them.
"""
