"""The compiled opponents against the Python agents, decision by decision.

Games of the batch engine are played by compiled ``random``/``rule`` seats (a kind drawn per
seat and game); at every decision the Python agent of that seat (``RandomAgent``,
``RuleAgent``, seeded and reset alike) is asked on the same observation and mask, and the
two actions must be equal. The batch engine's observation is ``raw_env``'s
(``uno_env.batch.verify``), so this is the Python loop's game. Decisions are tallied by the
kind of action chosen, so a caller can check that every branch of the rule agent ran.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env.rules.codes import P_CHALLENGE, P_JUMP_IN, P_REVERSE_BACK, P_STACK
from uno_env.seeding import derive_seed


class Mismatch(AssertionError):
    """A kernel chose differently from its Python agent."""


# plays outside the player's own turn, by the phase they answer (C-stacking, C-jump-in, ...)
OUT_OF_TURN = {P_CHALLENGE: "play: stack on a wild draw", P_STACK: "play: stack",
               P_JUMP_IN: "play: jump in", P_REVERSE_BACK: "play: reverse back"}


@dataclass
class OpponentDiff:
    decisions: int = 0
    games: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    configs: list[str] = field(default_factory=list)


def run_config(variant: str, num_players: int, options: dict[str, Any], decisions: int,
               num_envs: int = 4, seed: int = 0, kinds: tuple[str, ...] = ("random", "rule"),
               result: OpponentDiff | None = None) -> OpponentDiff:
    """Play ``decisions`` decisions; raise :class:`Mismatch` at the first difference."""
    from uno_env import agents
    from uno_env import rule_facts as rule
    from uno_env.batch import layout as L
    from uno_env.batch.opponents import (
        KINDS,
        allocate_opponent_memory,
        build_opponent_tables,
        opponent_act,
        opponent_reset,
    )
    from uno_env.batch.rule_tables import EC_FLIP, R_EFFECT, R_KIND
    from uno_env.batch.vector import VectorEnv

    res = result if result is not None else OpponentDiff()
    res.configs.append(f"{variant} {num_players}p {options}")
    v = VectorEnv(variant, num_players, num_envs, **options)
    s, t = v._s, v._t
    ot = build_opponent_tables(v._game, v.layout, t)
    om = allocate_opponent_memory(num_envs, num_players, t.nf)
    rule_kind = ot.act[R_KIND]
    # what a chosen action is, for the tally (RuleAgent's kinds by name)
    kind_names = {rule.K_PLAY: "play", rule.K_PLAY_TWO: "play-two",
                  rule.K_PLAY_FLEX: "play-flex", rule.K_COLOR: "color",
                  rule.K_TARGET: "target", rule.K_OTHER: "other",
                  **{k: name for name, k in rule.SIMPLE.items()}}
    pick = np.random.default_rng(seed)
    episode = [0] * num_envs
    py: list[list[Any]] = [[None] * num_players for _ in range(num_envs)]
    kind = np.zeros((num_envs, num_players), np.int64)
    names = [[""] * num_players for _ in range(num_envs)]

    def seat_up(i: int) -> None:
        for q in range(num_players):
            name = kinds[int(pick.integers(len(kinds)))]
            sd = derive_seed(seed, i, episode[i], q)
            ag = agents.load(name, variant=variant, num_players=num_players, **options)
            agents.seed_agent(ag, sd)
            ag.reset()
            opponent_reset(om, i, q, sd)
            py[i][q], kind[i, q], names[i][q] = ag, KINDS[name], name

    obs, info = v.reset(seed=seed)
    for i in range(num_envs):
        seat_up(i)
    label = f"{variant} {num_players}p {options} seed {seed}"
    actions = np.zeros(num_envs, np.int64)
    for step in range(max(1, decisions // num_envs)):
        mask = info["action_mask"]
        for i in range(num_envs):
            q = int(info["current_player"][i])
            want = py[i][q].act(obs[i], mask[i])
            phase = int(s.S[i, L.PHASE])
            remembers = bool(om.has_prev[i, q])
            got = opponent_act(s, t, ot, om, i, q, kind[i, q])
            if want != got:
                raise Mismatch(
                    f"{label}: game {i} episode {episode[i]} decision {step}, seat {q} "
                    f"({names[i][q]}): python {want} ({v.action_meanings[want]}), kernel "
                    f"{got} ({v.action_meanings[got] if got >= 0 else 'none'}); legal "
                    f"{np.flatnonzero(mask[i]).tolist()}")
            if names[i][q] == "rule":
                k = kind_names[int(rule_kind[got])]
                res.by_kind[k] += 1
                if k == "play" and phase in OUT_OF_TURN:
                    res.by_kind[OUT_OF_TURN[phase]] += 1
                if ot.act[R_EFFECT, got] == EC_FLIP and rule_kind[got] in rule.PLAYS:
                    res.by_kind["play: a Flip card"] += 1
                if t.challenge_a >= 0 and mask[i, t.challenge_a]:
                    res.by_kind["bluff estimate" + (" from memory" if remembers else "")] += 1
            actions[i] = got
        obs, _, term, trunc, info = v.step(actions)
        res.decisions += num_envs
        for g in np.flatnonzero(term | trunc).tolist():
            episode[g] += 1
            res.games += 1
            seat_up(g)
    return res
