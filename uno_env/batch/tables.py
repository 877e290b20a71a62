"""What never changes in a batch: the Python engine's :class:`Game` tables as numpy arrays.

Everything is read from the same ``Game`` and ``ObservationLayout`` that ``raw_env`` uses, so
the two engines cannot disagree about the deck, the action indices or the observation layout.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from uno_env.observation import ObservationLayout
from uno_env.rules.game import UNO_OFF, Game
from uno_env.variants.flex import Flex

# Observation offsets, in this order, in Tables.obs_at (-1: the piece is absent).
OBS_PIECES = ("hand", "top", "active_color", "counter_clockwise", "phase", "pending_draw",
              "draw_pile", "discard", "own_uno", "opp_hand_size", "opp_uno", "catch_target",
              "revealed", "revealed_from", "own_score", "opp_score", "dark_side", "opp_hidden",
              "pile_hidden", "own_hidden", "own_power", "opp_power")


class Tables(NamedTuple):
    n: int
    nf: int
    nc: int
    na: int
    hand_size: int
    side_faces: np.ndarray  # [side, card] -> face
    face_color: np.ndarray
    face_symbol: np.ndarray
    face_effect: np.ndarray
    face_draw: np.ndarray
    face_points: np.ndarray
    face_wild: np.ndarray
    face_chal: np.ndarray
    flex_effect: np.ndarray
    flex_draw: np.ndarray
    flex_wild: np.ndarray
    flex_chal: np.ndarray
    power_flip: np.ndarray
    match: np.ndarray  # [colour, top face, face] 1 when face may be played (G-match)
    flex_match: np.ndarray
    face_cards: np.ndarray  # [side, face, k] the cards showing that face (-1 pads)
    reverse_face: np.ndarray  # [side, colour]
    first_redraw: np.ndarray  # [effect] 1: returned to the deck at the first discard
    act_type: np.ndarray
    act_arg: np.ndarray
    play_two: np.ndarray
    play_flex: np.ndarray
    color_act: np.ndarray  # [side, colour]
    target_act: np.ndarray
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
    obs_at: np.ndarray


def _bits_table(bits: list[list[int]], nf: int) -> np.ndarray:
    out = np.zeros((len(bits), nf, nf), dtype=np.uint8)
    for col, row in enumerate(bits):
        for top, b in enumerate(row):
            for f in range(nf):
                out[col, top, f] = b >> f & 1
    return out


def build_tables(game: Game, layout: ObservationLayout, reward: str,
                 max_steps: int | None) -> Tables:
    """The constant tables of one configuration."""
    g = game
    A = g.actions
    nf, nc = g.num_faces, g.num_cards
    side_faces = np.array(g.side_faces, dtype=np.int16)
    copies = max(int((side_faces[s] == f).sum()) for s in range(g.num_sides) for f in range(nf))
    face_cards = np.full((g.num_sides, nf, copies), -1, dtype=np.int16)
    for s in range(g.num_sides):
        for f in range(nf):
            ids = np.nonzero(side_faces[s] == f)[0]
            face_cards[s, f, :len(ids)] = ids
    first_redraw = np.zeros(16, dtype=np.uint8)
    for e in g.first_redraw:
        first_redraw[e] = 1
    at = np.full(len(OBS_PIECES), -1, dtype=np.int64)
    for k, name in enumerate(OBS_PIECES):
        if name in layout.by_name:
            at[k] = layout.by_name[name].start

    def arr(xs: Any, dtype: Any = np.int16) -> np.ndarray:
        return np.array(xs, dtype=dtype)

    return Tables(
        n=g.num_players, nf=nf, nc=nc, na=g.num_actions, hand_size=g.hand_size,
        side_faces=side_faces,
        face_color=arr(g.face_color), face_symbol=arr(g.face_symbol),
        face_effect=arr(g.face_effect), face_draw=arr(g.face_draw),
        face_points=arr(g.face_points, np.int64), face_wild=arr(g.face_wild, np.uint8),
        face_chal=arr(g.face_challengeable, np.uint8),
        flex_effect=arr(g.flex_effect), flex_draw=arr(g.flex_draw),
        flex_wild=arr(g.flex_wild, np.uint8), flex_chal=arr(g.flex_challengeable, np.uint8),
        power_flip=arr(g.power_flip, np.uint8),
        match=_bits_table(g.match_bits, nf), flex_match=_bits_table(g.flex_match_bits, nf),
        face_cards=face_cards, reverse_face=arr(g.reverse_face),
        first_redraw=first_redraw,
        act_type=arr(A.types), act_arg=arr(A.args), play_two=arr(A.play_two),
        play_flex=arr(A.play_flex), color_act=arr(A.color),
        target_act=arr(A.target if A.target else [-1]),
        draw_a=A.draw, pass_a=A.pass_, challenge_a=A.challenge, accept_a=A.accept,
        uno_a=A.uno, catch_a=A.catch,
        uno_mode=g.uno_mode, uno_penalty=g.uno_penalty,
        stacking=g.stacking, double_play=g.double_play, jump_in=g.jump_in,
        reverse_back=g.reverse_back, has_flex=g.has_flex, power_cards=g.power_cards,
        sides=g.num_sides > 1, numbers_only=g.first_discard_numbers_only,
        dealer_chooses=g.first_wild_chooser == "dealer",
        honest_wild=type(g.variant).is_honest is Flex.is_honest,
        penalty_scoring=g.penalty_scoring, target_score=g.target_score,
        match_episode=g.match, reward_points=reward == "points",
        max_steps=0 if max_steps is None else int(max_steps),
        rounds_kept=64 if g.match else 1,
        obs_dim=layout.size, obs_at=at,
    )


__all__ = ["OBS_PIECES", "UNO_OFF", "Tables", "build_tables"]
