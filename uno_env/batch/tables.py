"""What never changes in a batch: the Python engine's :class:`Game` tables as numpy arrays.

Everything is read from the same ``Game`` and ``ObservationLayout`` that ``raw_env`` uses, so
the two engines cannot disagree about the deck, the action indices or the observation layout.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from uno_env.batch.support import PASS_NONE, PASSES, check_variant
from uno_env.observation import ObservationLayout
from uno_env.rules.codes import EFFECT_CODES, PHASES, UNO_OFF
from uno_env.rules.game import Game

# Observation offsets, in this order, in Tables.obs_at (-1: the piece is absent).
OBS_PIECES = ("hand", "top", "active_color", "counter_clockwise", "phase", "pending_draw",
              "draw_pile", "discard", "own_uno", "opp_hand_size", "opp_uno", "catch_target",
              "revealed", "revealed_from", "own_score", "opp_score", "opp_declined", "opp_drawn",
              "dark_side", "opp_hidden", "pile_hidden", "own_hidden", "own_power", "opp_power")


# The rows of Tables.ft: the 1-D tables in one int16 array, so that a kernel call passes one
# array instead of twenty (numba passes a tuple of arrays field by field, on every call).
# <generated ft-rows>: python -m uno_env.codegen (uno_env/rules/table.py)
FT_FACE_COLOR = 0
FT_FACE_SYMBOL = 1
FT_FACE_EFFECT = 2
FT_FACE_DRAW = 3
FT_FACE_POINTS = 4
FT_FACE_WILD = 5
FT_FACE_CHAL = 6
FT_FLEX_EFFECT = 7
FT_FLEX_DRAW = 8
FT_FLEX_WILD = 9
FT_FLEX_CHAL = 10
FT_POWER_FLIP = 11
FT_FIRST_REDRAW = 12
FT_ACT_TYPE = 13
FT_PLAY_FACE = 14
FT_ACT_ARG = 15
FT_PLAY_TWO = 16
FT_PLAY_FLEX = 17
FT_TARGET_ACT = 18
FT_OBS_AT = 19
FT_COLOR_ON_LAST = 20
FT_FLEX_TARGETED = 21
FT_PHASE_ANSWERS = 22
FT_PHASE_PASS = 23
# </generated ft-rows>
FT_ROWS = ("face_color", "face_symbol", "face_effect", "face_draw", "face_points", "face_wild",
           "face_chal", "flex_effect", "flex_draw", "flex_wild", "flex_chal", "power_flip",
           "first_redraw", "act_type", "play_face", "act_arg", "play_two", "play_flex",
           "target_act", "obs_at", "color_on_last", "flex_targeted", "phase_answers",
           "phase_pass")
# The last four are the rule facts the Python engine reads (docs/architecture.md, "Rule
# facts"): Face.color_on_last, Face.targeted, Variant.answers and Variant.passes by phase.
ROUNDS_KEPT = 64  # round results a match keeps (scoring.py overwrites older ones)


class Tables(NamedTuple):
    n: int
    nf: int
    nc: int
    na: int
    hand_size: int
    side_faces: np.ndarray  # [side, card] -> face
    ft: np.ndarray  # [FT_* row, face/action/...]: every 1-D table, one array (see FT_*)
    match: np.ndarray  # [colour, top face, face] 1 when face may be played (G-match)
    flex_match: np.ndarray
    face_cards: np.ndarray  # [side, face, k] the cards showing that face (-1 pads)
    reverse_face: np.ndarray  # [side, colour]
    color_act: np.ndarray  # [side, colour]
    draw_a: int
    pass_a: int
    challenge_a: int
    accept_a: int
    uno_a: int
    catch_a: int
    uno_mode: int
    uno_penalty: int
    stacking: bool
    double_play: bool
    jump_in: bool
    reverse_back: bool
    voluntary_draw: bool  # G-draw
    catch_until_out: bool  # G-uno: catch_window="until-out" with uno_catch="decision"
    has_flex: bool
    power_cards: bool
    sides: bool
    numbers_only: bool
    dealer_chooses: bool
    honest_wild: bool  # X-effects: another wild in hand makes a Wild Draw Four dishonest
    penalty_scoring: bool
    target_score: int
    match_episode: bool
    reward_points: bool
    max_steps: int  # 0: none
    rounds_kept: int
    obs_dim: int


def _bits_table(bits: list[list[int]], nf: int) -> np.ndarray:
    out = np.zeros((len(bits), nf, nf), dtype=np.uint8)
    for col, row in enumerate(bits):
        for top, b in enumerate(row):
            for f in range(nf):
                out[col, top, f] = b >> f & 1
    return out


def _rows(rows: dict[str, Any]) -> np.ndarray:
    """The 1-D tables as the rows of one int16 array (padded with -1), in FT_ROWS order."""
    width = max(len(rows[name]) for name in FT_ROWS)
    out = np.full((len(FT_ROWS), width), -1, dtype=np.int16)
    for k, name in enumerate(FT_ROWS):
        out[k, :len(rows[name])] = np.asarray(rows[name], dtype=np.int64)
    return out


def build_tables(game: Game, layout: ObservationLayout, reward: str,
                 max_steps: int | None) -> Tables:
    """The constant tables of one configuration; a variant whose effects or phases the
    kernels lack is refused (``uno_env.batch.support``)."""
    g = game
    v = g.variant
    check_variant(v)
    A = g.actions
    nf, nc = g.num_faces, g.num_cards
    side_faces = np.array(g.side_faces, dtype=np.int16)
    copies = max(int((side_faces[s] == f).sum()) for s in range(g.num_sides) for f in range(nf))
    face_cards = np.full((g.num_sides, nf, copies), -1, dtype=np.int16)
    for s in range(g.num_sides):
        for f in range(nf):
            ids = np.nonzero(side_faces[s] == f)[0]
            face_cards[s, f, :len(ids)] = ids
    first_redraw = np.zeros(len(EFFECT_CODES), dtype=np.uint8)  # by effect code
    for e in g.first_redraw:
        first_redraw[e] = 1
    at = np.full(len(OBS_PIECES), -1, dtype=np.int64)
    for k, name in enumerate(OBS_PIECES):
        if name in layout.by_name:
            at[k] = layout.by_name[name].start
    # batch.observation zeroes the row around the pieces it copies whole, in this order
    whole = [p for p in ("hand", "discard", "opp_hidden", "own_hidden") if p in layout.by_name]
    starts = [layout.by_name[p].start for p in whole]
    if starts[0] != 0 or starts != sorted(starts):
        raise ValueError(f"batch observation writer: pieces {whole} must come first and in "
                         f"this order, got offsets {starts}")

    def arr(xs: Any, dtype: Any = np.int16) -> np.ndarray:
        return np.array(xs, dtype=dtype)

    return Tables(
        n=g.num_players, nf=nf, nc=nc, na=g.num_actions, hand_size=g.hand_size,
        side_faces=side_faces,
        ft=_rows({
            "face_color": g.face_color, "face_symbol": g.face_symbol,
            "face_effect": g.face_effect, "face_draw": g.face_draw,
            "face_points": g.face_points, "face_wild": g.face_wild,
            "face_chal": g.face_challengeable, "flex_effect": g.flex_effect,
            "flex_draw": g.flex_draw, "flex_wild": g.flex_wild,
            "flex_chal": g.flex_challengeable, "power_flip": g.power_flip,
            "first_redraw": first_redraw, "act_type": A.types, "play_face": A.play,
            "act_arg": A.args, "play_two": A.play_two, "play_flex": A.play_flex,
            "target_act": A.target or [-1], "obs_at": at,
            "color_on_last": g.face_color_on_last, "flex_targeted": g.flex_targeted,
            "phase_answers": [name in v.answers for name in PHASES],
            "phase_pass": [PASSES[v.passes[name]] if name in v.passes else PASS_NONE
                           for name in PHASES],
        }),
        match=_bits_table(g.match_bits, nf), flex_match=_bits_table(g.flex_match_bits, nf),
        face_cards=face_cards, reverse_face=arr(g.reverse_face), color_act=arr(A.color),
        draw_a=A.draw, pass_a=A.pass_, challenge_a=A.challenge, accept_a=A.accept,
        uno_a=A.uno, catch_a=A.catch,
        uno_mode=g.uno_mode, uno_penalty=g.uno_penalty,
        stacking=g.stacking, double_play=g.double_play, jump_in=g.jump_in,
        reverse_back=g.reverse_back, voluntary_draw=g.voluntary_draw,
        catch_until_out=g.catch_until_out, has_flex=g.has_flex, power_cards=g.power_cards,
        sides=g.num_sides > 1, numbers_only=g.first_discard_numbers_only,
        dealer_chooses=g.first_wild_chooser == "dealer",
        honest_wild=v.other_wild_dishonest,
        penalty_scoring=g.penalty_scoring, target_score=g.target_score,
        match_episode=g.match, reward_points=reward == "points",
        max_steps=0 if max_steps is None else int(max_steps),
        rounds_kept=ROUNDS_KEPT if g.match else 1,
        obs_dim=layout.size,
    )


__all__ = ["OBS_PIECES", "UNO_OFF", "Tables", "build_tables"]
