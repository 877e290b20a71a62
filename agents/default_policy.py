"""The search agent's default policy on the Python engine: the ``rule`` agent's main habits
at engine level, fast enough to play out many rounds (``uno_env.batch.rollout`` runs the same
policy in a kernel; ``tests/test_batch_rollout.py`` checks that the two choose alike)."""

from __future__ import annotations

import random

from uno_env.batch.rollout import ATTACK as _ATTACK
from uno_env.rules.codes import (
    ACCEPT,
    CATCH,
    COLOR,
    DRAW,
    E_REVERSE,
    P_OVER,
    PASS,
    PLAY,
    PLAY_FLEX,
    PLAY_TWO,
    UNO,
)
from uno_env.rules.state import State

ROLLOUT_STEPS = 300  # a rollout stops here and is scored by hand sizes


def rollout_action(state: State, rng: random.Random) -> int:
    """The fast default policy, the rule agent's main habits at engine level: call UNO and
    catch when offered; play rather than draw, preferring the card whose colour the hand
    holds most, draw/skip effects (more so when the next player is close to going out) and
    coloured cards over wilds; name the colour held most; otherwise accept or pass."""
    legal = state.legal
    g = state.game
    types = g.actions.types
    p = state.current
    cnt = state.counts[p]
    plays: list[int] = []
    for a in legal:
        t = types[a]
        if t in (UNO, CATCH):
            return a
        if t in (PLAY, PLAY_TWO, PLAY_FLEX):
            plays.append(a)
    held = [0] * 5
    for f, k in enumerate(cnt):
        if k:
            held[g.face_color[f]] += k
    if plays:
        args = g.actions.args
        nxt = state.hand_len[(p + state.direction) % state.n]
        urgent = 20 if nxt <= 2 else 8
        best, best_score = plays[0], -1e9
        for a in plays:
            f = a if types[a] == PLAY else args[a]
            col = g.face_color[f]
            score = 10.0 * held[col] if col < 4 else -60.0
            e = g.face_effect[f]
            if e in _ATTACK or (e == E_REVERSE and state.n == 2):
                score += urgent
            if types[a] == PLAY_TWO:
                score += 10
            score += rng.random()
            if score > best_score:
                best, best_score = a, score
        return best
    if types[legal[0]] == COLOR:
        args = g.actions.args
        return max(legal, key=lambda a: held[args[a]] + rng.random() * 0.5)
    for a in legal:
        if types[a] in (ACCEPT, PASS):
            return a
    return rng.choice([a for a in legal if types[a] != DRAW] or legal)


def playout(state: State, rng: random.Random) -> list[float]:
    """Play ``state`` on with :func:`rollout_action` to the end of its round; each seat's
    result in [0, 1] (1 to the winner; at the step cap a share by fewest cards)."""
    rounds = len(state.round_results)
    step, choose = state.step, rollout_action
    for _ in range(ROLLOUT_STEPS):
        if state.phase == P_OVER or len(state.round_results) > rounds:  # or a new deal
            return round_result(state, rounds)
        step(choose(state, rng))
    inv = [1.0 / (1 + h) for h in state.hand_len]
    total = sum(inv)
    return [x / total for x in inv]


def round_result(state: State, rounds: int) -> list[float]:
    """1 to the winner of the round that just ended (split on a blocked tie)."""
    n = state.n
    w = state.round_results[rounds]["winner"] if len(state.round_results) > rounds else -1
    if w < 0:
        return [1.0 / n] * n
    return [1.0 if s == w else 0.0 for s in range(n)]
