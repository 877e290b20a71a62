"""Batch kernels: a play's effects, the catch and the windows after it (mirrors
``uno_env/rules/effects.py``); play.py applies decisions on top of these."""

from __future__ import annotations

from uno_env.batch import layout as L
from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.layout import Batch
from uno_env.batch.piles import draw, draw_until, flip, flip_powers
from uno_env.batch.tables import Tables
from uno_env.cards import WILD
from uno_env.rules.codes import (
    E_ALL_DRAW,
    E_ALL_FLIP,
    E_DRAW,
    E_FLIP,
    E_NUMBER,
    E_REVERSE,
    E_REVERSE_SKIP,
    E_SKIP,
    E_SKIP_EVERYONE,
    E_TARGET_DRAW,
    E_WDC,
    E_WILD,
    E_WILD_DRAW,
    P_CATCH,
    P_CHALLENGE,
    P_COLOR,
    P_JUMP_IN,
    P_OVER,
    P_REVERSE_BACK,
    P_STACK,
)


@njit(cache=True, inline="always", error_model="numpy")
def top_face(s: Batch, t: Tables, i: int) -> int:
    return s.S[i, L.TOP]


@njit(cache=True, error_model="numpy")
def catch_victim(s: Batch, t: Tables, i: int) -> int:
    """G-uno: the seat that ``catch`` would penalise now, -1 when none (State.catch_victim)."""
    S = s.S
    if S[i, L.PHASE] == P_CATCH:
        return S[i, L.PLAY_SEAT]
    if not t.catch_until_out or S[i, L.PHASE] == P_OVER:
        return -1
    p, n, d = S[i, L.CUR], t.n, S[i, L.DIR]
    for k in range(1, n):
        q = (p + k * d) % n
        if s.hand_len[i, q] == 1 and not s.uno_called[i, q]:
            return q
    return -1


@njit(cache=True, inline="always", error_model="numpy")
def ask_catch(s: Batch, t: Tables, i: int, seat: int) -> bool:
    if seat == s.S[i, L.PLAY_SEAT]:
        return False
    s.S[i, L.CUR] = seat
    s.S[i, L.PHASE] = P_CATCH
    return True


@njit(cache=True, inline="always", error_model="numpy")
def open_window(s: Batch, t: Tables, i: int, seat: int) -> bool:
    """C-jump-in: ask, from ``seat`` on, the next player holding the top card's twin."""
    f = top_face(s, t, i)
    if t.ft[T.FT_FACE_WILD, f]:
        return False
    p = s.S[i, L.PLAY_SEAT]
    d = s.S[i, L.DIR]
    while seat != p:
        if s.counts[i, seat, f]:
            s.S[i, L.CUR] = seat
            s.S[i, L.PHASE] = P_JUMP_IN
            return True
        seat = (seat + d) % t.n
    return False


@njit(cache=True, inline="always", error_model="numpy")
def _holds_reverse(s: Batch, t: Tables, i: int, seat: int, color: int) -> bool:
    if color >= WILD:  # a wild has no Reverse of its colour
        return False
    r = t.reverse_face[s.S[i, L.SIDE], color]
    return r >= 0 and s.counts[i, seat, r] > 0


@njit(cache=True, inline="always", error_model="numpy")
def ask(s: Batch, i: int, seat: int, phase: int) -> bool:
    s.S[i, L.CUR] = seat
    s.S[i, L.PHASE] = phase
    return True


@njit(cache=True, inline="always", error_model="numpy")
def take_draw(s: Batch, t: Tables, i: int, seat: int, extra: int) -> None:
    """The pending draw lands on ``seat`` (plus ``extra``: a failed challenge)."""
    S = s.S
    if S[i, L.UNTIL_COLOR]:
        draw_until(s, t, i, seat, S[i, L.COLOR])
        S[i, L.UNTIL_COLOR] = 0
    else:
        draw(s, t, i, seat, S[i, L.PENDING])
    S[i, L.PENDING] = 0
    if extra:
        draw(s, t, i, seat, extra)


@njit(cache=True, inline="always", error_model="numpy")
def effect(s: Batch, t: Tables, i: int) -> bool:
    """The effect of the card just played; True when someone must decide first."""
    S = s.S
    p = S[i, L.PLAY_SEAT]
    f = top_face(s, t, i)
    if S[i, L.FLEX_PLAY]:
        e, dr = t.ft[T.FT_FLEX_EFFECT, f], t.ft[T.FT_FLEX_DRAW, f]
    else:
        e, dr = t.ft[T.FT_FACE_EFFECT, f], t.ft[T.FT_FACE_DRAW, f]
    n = t.n
    d = S[i, L.DIR]
    last = S[i, L.GOING_OUT]
    if e in (E_NUMBER, E_WILD):
        S[i, L.NEXT_SEAT] = (p + d) % n
    elif e == E_SKIP:
        v = (p + d) % n
        if t.reverse_back and not last and _holds_reverse(s, t, i, v, t.ft[T.FT_FACE_COLOR, f]):
            return ask(s, i, v, P_REVERSE_BACK)
        S[i, L.NEXT_SEAT] = (p + 2 * d) % n
    elif e == E_REVERSE:
        d = -d
        S[i, L.DIR] = d
        if S[i, L.BOUNCE]:  # E-reverse-back: the effect goes back to whoever played it
            S[i, L.BOUNCE] = 0
            v = (p + d) % n
            if not last and _holds_reverse(s, t, i, v, t.ft[T.FT_FACE_COLOR, f]):
                return ask(s, i, v, P_REVERSE_BACK)
            take_draw(s, t, i, v, 0)
            S[i, L.NEXT_SEAT] = (v + d) % n
        else:  # G-two-players: Reverse acts as Skip
            S[i, L.NEXT_SEAT] = p if n == 2 else (p + d) % n
    elif e in (E_DRAW, E_WILD_DRAW, E_WDC):
        v = (p + d) % n
        S[i, L.SKIP_VICTIM] = 1
        if e == E_WDC:
            S[i, L.UNTIL_COLOR] = 1
        else:
            S[i, L.PENDING] += dr
        if not last:
            chal = t.ft[T.FT_FACE_CHAL, f]
            if chal or (t.stacking and e != E_WDC):
                S[i, L.CHAL_OK] = chal
                return ask(s, i, v, P_STACK if e == E_DRAW else P_CHALLENGE)
            color = t.ft[T.FT_FACE_COLOR, f]
            if e == E_DRAW and t.reverse_back and _holds_reverse(s, t, i, v, color):
                return ask(s, i, v, P_REVERSE_BACK)
        take_draw(s, t, i, v, 0)
        S[i, L.NEXT_SEAT] = (v + d) % n
    elif e == E_SKIP_EVERYONE:  # the same player plays again
        S[i, L.NEXT_SEAT] = p
    elif e == E_FLIP:
        flip(s, t, i)
        S[i, L.NEXT_SEAT] = (p + d) % n
        top = top_face(s, t, i)
        S[i, L.COLOR] = t.ft[T.FT_FACE_COLOR, top]  # a wild: none until it is named
        if t.ft[T.FT_FACE_WILD, top] and not last:  # F-flip: the player of the Flip names it
            return ask(s, i, p, P_COLOR)
    elif e == E_REVERSE_SKIP:
        d = -d
        S[i, L.DIR] = d
        S[i, L.NEXT_SEAT] = (p + 2 * d) % n
    elif e == E_ALL_DRAW:
        for k in range(1, n):
            draw(s, t, i, (p + k * d) % n, dr)
        S[i, L.NEXT_SEAT] = (p + d) % n
    elif e == E_TARGET_DRAW:
        v = S[i, L.TARGET]
        S[i, L.PENDING] += dr
        S[i, L.SKIP_VICTIM] = 0
        S[i, L.NEXT_SEAT] = (p + d) % n
        if not last and t.ft[T.FT_FLEX_CHAL, f]:
            S[i, L.CHAL_OK] = 1
            return ask(s, i, v, P_CHALLENGE)
        take_draw(s, t, i, v, 0)
    elif e == E_ALL_FLIP:  # X-power (iii)
        flip_powers(s, t, i, -1)
        S[i, L.NEXT_SEAT] = (p + d) % n
    return False


@njit(cache=True, inline="always", error_model="numpy")
def after_victim(s: Batch, t: Tables, i: int, victim: int) -> int:
    """Whose turn follows a victim who took the draw (X: targeted draws skip nobody)."""
    if s.S[i, L.SKIP_VICTIM]:
        return (victim + s.S[i, L.DIR]) % t.n
    return (s.S[i, L.PLAY_SEAT] + s.S[i, L.DIR]) % t.n
