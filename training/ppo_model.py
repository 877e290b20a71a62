"""The policy network and its file format moved to :mod:`uno_env.agents.policy` (playing a
checkpoint needs them, and ``agents`` must not import ``training``); re-exported here for old
imports."""

from uno_env.agents.policy import (
    FORMAT,
    FORMAT_VERSION,
    MASKED_LOGIT,
    PolicyNet,
    config_key,
    load_policy,
    net_from_payload,
    observation_scale,
    policy_payload,
    save_policy,
)

__all__ = ["FORMAT", "FORMAT_VERSION", "MASKED_LOGIT", "PolicyNet", "config_key", "load_policy",
           "net_from_payload", "observation_scale", "policy_payload", "save_policy"]
