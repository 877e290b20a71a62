"""The legal decisions of the player to act (docs/games/index.md, its decisions list),
mirroring ``State._compute_legal``; ``settle`` takes single-action decisions for the player."""

from __future__ import annotations

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.effects import catch_victim, top_face
from uno_env.batch.layout import Batch
from uno_env.batch.play import apply
from uno_env.batch.tables import Tables
from uno_env.rules.codes import (
    P_CATCH,
    P_CHALLENGE,
    P_COLOR,
    P_DRAWN,
    P_JUMP_IN,
    P_OVER,
    P_PLAY,
    P_REVERSE_BACK,
    P_STACK,
    P_TARGET,
    UNO_OFF,
)


@njit(cache=True, inline="always", error_model="numpy")
def _add(legal: np.ndarray, S: np.ndarray, i: int, a: int) -> None:
    legal[i, a] = 1
    S[i, L.NLEGAL] += 1
    S[i, L.ONE_LEGAL] = a  # the last added: the action itself when it is the only one


@njit(cache=True, inline="always", error_model="numpy")
def _playable(held: np.ndarray, match: np.ndarray, lg: np.ndarray) -> int:
    """G-match: "play <face f>" (action f) for every held face ``match`` allows; how many.
    Branch-free over rows, so LLVM vectorises it (the faces are the first actions). Which
    face it was is looked up only when it is the one decision (``_only``): tracking the last
    one in the loop cost a vector max reduction on every decision."""
    k = 0
    for f in range(held.shape[0]):
        v = np.uint8(held[f] > 0) & match[f]
        lg[f] = v
        k += v
    return k


@njit(cache=True, inline="always", error_model="numpy")
def _only(lg: np.ndarray) -> int:
    """The one set entry of a legal row."""
    a = 0
    while not lg[a]:
        a += 1
    return a


@njit(cache=True, error_model="numpy")
def _matching(S: np.ndarray, lg: np.ndarray, cnt: np.ndarray, match: np.ndarray,
              acts: np.ndarray, i: int, p: int, col: int, top: int, least: int) -> int:
    """Add ``acts[f]`` for every face ``f`` held ``least`` times or more that ``match``
    allows on the top card (X-flex-play, C-double-play); how many were added. A small
    function of arrays only: numba compiles it to a tight loop."""
    k = 0
    for f in range(cnt.shape[2]):
        if cnt[i, p, f] >= least and match[col, top, f] and acts[f] >= 0:
            lg[i, acts[f]] = 1
            S[i, L.ONE_LEGAL] = acts[f]
            k += 1
    S[i, L.NLEGAL] += k
    return k


@njit(cache=True, error_model="numpy")
def compute_legal(s: Batch, t: Tables, i: int) -> None:
    # arrays bound once: numba counts references on every tuple access (see batch.borrow)
    S = s.S
    lg = s.legal
    ft = t.ft
    for a in range(t.na):
        lg[i, a] = 0
    S[i, L.NLEGAL] = 0
    S[i, L.ONE_LEGAL] = -1  # -1: none added by _add/_matching (see _only)
    p = S[i, L.CUR]
    ph = S[i, L.PHASE]
    cnt = s.counts
    hand_len = s.hand_len[i, p]
    uno_ok = t.uno_mode != UNO_OFF and not s.uno_called[i, p]
    top = top_face(s, t, i)
    col = S[i, L.COLOR]
    if ph == P_PLAY:
        # G-match; "play <face f>" is action f
        S[i, L.NLEGAL] = _playable(cnt[i, p], t.match[col, top], lg[i])
        if t.has_flex and s.power[i, p]:  # X-flex-play
            _matching(S, lg, cnt, t.flex_match, ft[T.FT_PLAY_FLEX], i, p, col, top, 1)
        any_two = False
        if t.double_play:  # C-double-play
            any_two = _matching(S, lg, cnt, t.match, ft[T.FT_PLAY_TWO], i, p, col, top, 2) > 0
        can_play = S[i, L.NLEGAL] > 0
        if uno_ok and ((hand_len == 2 and can_play) or (hand_len == 3 and any_two)):
            _add(lg, S, i, t.uno_a)
        if t.voluntary_draw or not can_play:  # G-draw: voluntary_draw
            _add(lg, S, i, t.draw_a)
    elif ph == P_DRAWN:  # G-draw-then-play, X-drawn-only: only the drawn card
        f = t.side_faces[S[i, L.SIDE], S[i, L.DRAWN]]
        if t.match[col, top, f]:
            _add(lg, S, i, f)
        if (t.has_flex and t.ft[T.FT_PLAY_FLEX, f] >= 0 and s.power[i, p]
                and t.flex_match[col, top, f]):
            _add(lg, S, i, ft[T.FT_PLAY_FLEX, f])
        if uno_ok and hand_len == 2 and S[i, L.NLEGAL]:
            _add(lg, S, i, t.uno_a)
        _add(lg, S, i, t.pass_a)
    elif ph == P_COLOR:
        ca = t.color_act
        for k in range(ca.shape[1]):
            _add(lg, S, i, ca[S[i, L.SIDE], k])
    elif ph in (P_CHALLENGE, P_STACK):
        if ph == P_CHALLENGE and S[i, L.CHAL_OK]:
            _add(lg, S, i, t.challenge_a)
        if t.stacking:  # C-stacking: same symbol as the draw card on top
            tsym = t.ft[T.FT_FACE_SYMBOL, top]
            can_stack = False
            for f in range(t.nf):
                if cnt[i, p, f] and ft[T.FT_FACE_SYMBOL, f] == tsym:
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
        _add(lg, S, i, t.reverse_face[S[i, L.SIDE], t.ft[T.FT_FACE_COLOR, top]])
        if uno_ok and hand_len == 2:
            _add(lg, S, i, t.uno_a)
        _add(lg, S, i, t.accept_a)
    elif ph == P_TARGET:
        for k in range(t.n - 1):
            _add(lg, S, i, ft[T.FT_TARGET_ACT, k])


@njit(cache=True, error_model="numpy")
def settle(s: Batch, t: Tables, i: int) -> None:
    """Compute the next decision, taking single-action decisions for the player."""
    S = s.S
    while S[i, L.PHASE] != P_OVER:
        compute_legal(s, t, i)
        if t.catch_until_out and catch_victim(s, t, i) >= 0:  # G-uno: catch_window
            _add(s.legal, S, i, t.catch_a)
        if S[i, L.NLEGAL] != 1:
            return
        a = S[i, L.ONE_LEGAL]  # scratch that compute_legal resets: read only here
        apply(s, t, i, a if a >= 0 else _only(s.legal[i]))
    s.legal[i, :] = 0
    S[i, L.NLEGAL] = 0
