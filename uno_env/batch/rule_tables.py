"""The rule agent's static tables (``RuleTables``): its parse of a game's actions and deck
(``RuleAgent._kind``/``_arg``, read from a ``RuleFacts`` itself, so both read one
declaration), as arrays for the kernels of ``uno_env.batch.rule_policy``."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from uno_env import rule_facts as rule
from uno_env.cards import NUM_COLORS, WILD
from uno_env.rules.game import Game

# rows of RuleTables.act (per action) and .face (per face)
R_KIND, R_ARG, R_SIDE, R_CARDS, R_COLOR, R_EFFECT, R_WILD, R_CHAL, R_FLEX = range(9)
F_SIDE, F_COLOR, F_WILD, F_DRAW, F_POINTS = range(5)
# the score bonus a play's effect earns (RuleAgent._play_score's branches)
EC_NONE, EC_DRAW, EC_TEMPO, EC_SKIP, EC_FLIP = range(5)
WILD_BIN = 2 * NUM_COLORS  # a face's colour bin: side * NUM_COLORS + colour, or this for wilds


class RuleTables(NamedTuple):
    act: np.ndarray  # [R_* row, action] int16
    base: np.ndarray  # [action] float64: a play's points / 20.0
    play_order: np.ndarray  # the play actions in the agent's `plays` order
    face: np.ndarray  # [F_* row, face] int16
    deck_color: np.ndarray  # [side, colour] int64: cards of that colour in the deck
    runs: np.ndarray  # [R, 3] int64: (first face, end, bin) of each run of one colour bin
    num_cards: int
    track: bool  # the agent keeps memory (a challenge exists)
    threshold: float
    n_lead: int  # the leading actions, all plays: counted without a branch per action
    k_play: int
    k_play_two: int
    k_play_flex: int
    k_draw: int
    k_pass: int
    k_color: int
    k_target: int
    k_challenge: int
    k_accept: int
    k_uno: int
    k_catch: int


def rule_tables(game: Game, challenge_threshold: float = 0.5) -> RuleTables:
    """A ``RuleAgent``'s parse of ``game``'s actions and deck, as arrays."""
    agent = rule.RuleFacts(game)
    na, nf = game.num_actions, game.num_faces
    act = np.zeros((9, na), np.int16)
    base = np.zeros(na, np.float64)
    for a, (kind, arg) in enumerate(zip(agent._kind, agent._arg, strict=True)):
        act[R_KIND, a] = kind
        if kind in rule.PLAYS:
            p = arg
            act[R_ARG, a], act[R_SIDE, a], act[R_CARDS, a] = p.face, p.side, p.cards
            act[R_COLOR, a] = p.color
            act[R_WILD, a], act[R_CHAL, a], act[R_FLEX, a] = p.wild, p.challengeable, p.flex
            base[a] = p.points / 20.0
            e = p.effect
            act[R_EFFECT, a] = (
                EC_DRAW if e in rule.DRAWING
                else EC_TEMPO if e in rule.TEMPO_ALL or (e in rule.TEMPO_2P
                                                          and game.num_players == 2)
                else EC_SKIP if e in ("skip", "reverse-skip")
                else EC_FLIP if e == "flip" else EC_NONE)
        elif kind == rule.K_COLOR:
            act[R_SIDE, a], act[R_ARG, a] = arg
        elif kind == rule.K_TARGET:
            act[R_ARG, a] = arg
    plays = [a for k in rule.PLAYS for a in range(na) if agent._kind[a] == k]
    if plays != sorted(plays):  # _best_play stops after the last legal play in action order
        raise ValueError("the rule agent's plays are not in action order")
    n_lead = 0
    while n_lead < na and agent._kind[n_lead] in rule.PLAYS:
        n_lead += 1
    runs: list[list[int]] = []  # faces of one colour bin lie in runs (sums, not branches)
    for f, fc in enumerate(game.faces):
        b = WILD_BIN if fc.color == WILD else fc.side * NUM_COLORS + fc.color
        if runs and runs[-1][2] == b:
            runs[-1][1] = f + 1
        else:
            runs.append([f, f + 1, b])
    face = np.zeros((5, nf), np.int16)
    for f, fc in enumerate(game.faces):
        face[F_SIDE, f] = fc.side
        face[F_COLOR, f] = fc.color
        face[F_WILD, f] = fc.color == WILD
        face[F_DRAW, f] = agent._draw_row[f] > 0
        face[F_POINTS, f] = fc.points
    return RuleTables(
        act=act, base=base, play_order=np.array(plays or [-1], np.int16), face=face,
        deck_color=agent._deck_color.astype(np.int64),
        runs=np.array(runs, np.int64).reshape(-1, 3), num_cards=int(agent._num_cards),
        track=bool(agent._track), threshold=float(challenge_threshold), n_lead=n_lead,
        k_play=rule.K_PLAY, k_play_two=rule.K_PLAY_TWO, k_play_flex=rule.K_PLAY_FLEX,
        k_draw=rule.K_DRAW, k_pass=rule.K_PASS, k_color=rule.K_COLOR, k_target=rule.K_TARGET,
        k_challenge=rule.K_CHALLENGE, k_accept=rule.K_ACCEPT, k_uno=rule.K_UNO,
        k_catch=rule.K_CATCH)
