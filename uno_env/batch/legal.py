"""The legal decisions of the player to act (RULES.md "Decisions the environment exposes"),
mirroring ``State._compute_legal``; ``settle`` takes single-action decisions for the player."""

from __future__ import annotations

import numpy as np
from numba import njit

from uno_env.batch import layout as L
from uno_env.batch.layout import Batch
from uno_env.batch.play import apply, top_face
from uno_env.batch.tables import Tables
from uno_env.rules.game import UNO_OFF
from uno_env.rules.state import (
    P_CATCH, P_CHALLENGE, P_COLOR, P_DRAWN, P_JUMP_IN, P_OVER, P_PLAY, P_REVERSE_BACK,
    P_STACK, P_TARGET,
)


@njit(cache=True, inline="always")
def _add(legal: np.ndarray, S: np.ndarray, i: int, a: int) -> None:
    legal[i, a] = 1
    S[i, L.NLEGAL] += 1
    S[i, L.ONE_LEGAL] = a


@njit(cache=True)
def compute_legal(s: Batch, t: Tables, i: int) -> None:
    # arrays bound once: numba counts references on every tuple access (see batch.borrow)
    S = s.S
    lg = s.legal
    face_symbol = t.face_symbol
    play_flex = t.play_flex
    play_two = t.play_two
    for a in range(t.na):
        lg[i, a] = 0
    S[i, L.NLEGAL] = 0
    p = S[i, L.CUR]
    ph = S[i, L.PHASE]
    cnt = s.counts
    hand_len = s.hand_len[i, p]
    uno_ok = t.uno_mode != UNO_OFF and not s.uno_called[i, p]
    top = top_face(s, t, i)
    col = S[i, L.COLOR]
    if ph == P_PLAY:
        m = t.match
        for f in range(t.nf):  # G-match; "play <face f>" is action f
            if cnt[i, p, f] and m[col, top, f]:
                _add(lg, S, i, f)
        if t.has_flex and s.power[i, p]:  # X-flex-play
            fm = t.flex_match
            for f in range(t.nf):
                if cnt[i, p, f] and fm[col, top, f]:
                    _add(lg, S, i, play_flex[f])
        any_two = False
        if t.double_play:  # C-double-play
            for f in range(t.nf):
                if cnt[i, p, f] >= 2 and m[col, top, f] and play_two[f] >= 0:
                    _add(lg, S, i, play_two[f])
                    any_two = True
        if uno_ok and ((hand_len == 2 and S[i, L.NLEGAL]) or (hand_len == 3 and any_two)):
            _add(lg, S, i, t.uno_a)
        _add(lg, S, i, t.draw_a)
    elif ph == P_DRAWN:  # G-draw-then-play, X-drawn-only: only the drawn card
        f = t.side_faces[S[i, L.SIDE], S[i, L.DRAWN]]
        if t.match[col, top, f]:
            _add(lg, S, i, f)
        if (t.has_flex and t.play_flex[f] >= 0 and s.power[i, p]
                and t.flex_match[col, top, f]):
            _add(lg, S, i, play_flex[f])
        if uno_ok and hand_len == 2 and S[i, L.NLEGAL]:
            _add(lg, S, i, t.uno_a)
        _add(lg, S, i, t.pass_a)
    elif ph == P_COLOR:
        ca = t.color_act
        for k in range(ca.shape[1]):
            _add(lg, S, i, ca[S[i, L.SIDE], k])
    elif ph == P_CHALLENGE or ph == P_STACK:
        if ph == P_CHALLENGE and S[i, L.CHAL_OK]:
            _add(lg, S, i, t.challenge_a)
        if t.stacking:  # C-stacking: same symbol as the draw card on top
            tsym = t.face_symbol[top]
            can_stack = False
            for f in range(t.nf):
                if cnt[i, p, f] and face_symbol[f] == tsym:
                    _add(lg, S, i, f)
                    can_stack = True
            if uno_ok and hand_len == 2 and can_stack:
                _add(lg, S, i, t.uno_a)
        _add(lg, S, i, t.accept_a)
    elif ph == P_CATCH:
        _add(lg, S, i, t.catch_a)
        _add(lg, S, i, t.pass_a)
    elif ph == P_JUMP_IN:
        _add(lg, S, i, top)
        if uno_ok and hand_len == 2:
            _add(lg, S, i, t.uno_a)
        _add(lg, S, i, t.pass_a)
    elif ph == P_REVERSE_BACK:  # E-reverse-back: the Reverse of the effect's colour
        _add(lg, S, i, t.reverse_face[S[i, L.SIDE], t.face_color[top]])
        if uno_ok and hand_len == 2:
            _add(lg, S, i, t.uno_a)
        _add(lg, S, i, t.accept_a)
    elif ph == P_TARGET:
        ta = t.target_act
        for k in range(t.n - 1):
            _add(lg, S, i, ta[k])


@njit(cache=True)
def settle(s: Batch, t: Tables, i: int) -> None:
    """Compute the next decision, taking single-action decisions for the player."""
    S = s.S
    while S[i, L.PHASE] != P_OVER:
        compute_legal(s, t, i)
        if S[i, L.NLEGAL] != 1:
            return
        apply(s, t, i, S[i, L.ONE_LEGAL])
    s.legal[i, :] = 0
    S[i, L.NLEGAL] = 0
