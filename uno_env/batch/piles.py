"""Primitive card moves (G-reshuffle, F-flip, X-power), mirroring ``State._draw`` and kin."""

from __future__ import annotations

import numpy as np

from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.layout import DISC_LEN, LAST_DRAWN, PILE_LEN, SIDE, TICK, TOP, Batch
from uno_env.batch.rng import shuffle
from uno_env.batch.tables import Tables


@njit(cache=True, error_model="numpy")
def _count_hidden(s: Batch, t: Tables, i: int, side: int, seat: int, c: int, d: int) -> None:
    h = t.side_faces[side ^ 1, c]
    s.hid_counts[i, seat, h] += d
    if not s.known[i, c]:
        s.hid_unseen[i, seat, h] += d


@njit(cache=True, inline="always", error_model="numpy")
def hold_hidden(s: Batch, t: Tables, i: int, side: int, seat: int, c: int, d: int) -> None:
    """F-visibility: card ``c`` joins (``d`` 1) or leaves (``d`` -1) the hand of ``seat``,
    ``side`` up: its hidden face counted in ``hid_counts``, and in ``hid_unseen`` if its
    holder has not seen it (``known`` as it stands), so the observation reads counts, not
    every card. (Unseen, not seen: drawn cards are seen, so a draw touches one count.) A
    call, not inlined: the other variants' hot code stays as small as it was."""
    if t.sides:
        _count_hidden(s, t, i, side, seat, c, d)


@njit(cache=True, error_model="numpy")
def reshuffle(s: Batch, t: Tables, i: int) -> bool:
    """G-reshuffle: the discards under the top card, shuffled, go under the draw pile."""
    S = s.S
    dl = S[i, DISC_LEN]
    if dl <= 1:
        return False
    d = s.disc[i]
    top = d[dl - 1]
    shuffle(s.rng, i, d, dl - 1)
    pl = S[i, PILE_LEN]
    p = s.pile[i]
    for k in range(dl - 1):
        p[pl + k] = d[k]
    S[i, PILE_LEN] = pl + dl - 1
    d[0] = top
    S[i, DISC_LEN] = 1
    s.disc_counts[i, :] = 0
    s.disc_counts[i, t.side_faces[S[i, SIDE], top]] = 1
    return True


@njit(cache=True, error_model="numpy")
def draw(s: Batch, t: Tables, i: int, seat: int, n: int) -> int:
    """Move up to ``n`` cards from the draw pile to ``seat``; how many came."""
    S = s.S
    faces = t.side_faces[S[i, SIDE]]
    got = 0
    c = -1
    while got < n:
        if S[i, PILE_LEN] == 0 and not reshuffle(s, t, i):
            break
        pl = S[i, PILE_LEN] - 1
        S[i, PILE_LEN] = pl
        c = s.pile[i, pl]
        s.loc[i, c] = seat
        s.counts[i, seat, faces[c]] += 1
        s.known[i, c] = 1  # F-visibility: its hidden face was on top of the pile
        hold_hidden(s, t, i, S[i, SIDE], seat, c, 1)
        S[i, TICK] += 1
        s.acq[i, c] = S[i, TICK]
        got += 1
    if got:
        s.hand_len[i, seat] += got
        s.uno_called[i, seat] = 0  # G-uno: the call stands until the hand grows
        s.drawn_since[i, seat] += got
        S[i, LAST_DRAWN] = c
    return got


@njit(cache=True, inline="always", error_model="numpy")
def draw_until(s: Batch, t: Tables, i: int, seat: int, color: int) -> None:
    """F-effects: draw one at a time until a card of ``color`` comes (or none is left)."""
    while draw(s, t, i, seat, 1):
        if t.ft[T.FT_FACE_COLOR, t.side_faces[s.S[i, SIDE], s.S[i, LAST_DRAWN]]] == color:
            break


@njit(cache=True, inline="always", error_model="numpy")
def _reverse(xs: np.ndarray, k: int) -> None:
    for j in range(k // 2):
        tmp = xs[j]
        xs[j] = xs[k - 1 - j]
        xs[k - 1 - j] = tmp


@njit(cache=True, error_model="numpy")
def flip(s: Batch, t: Tables, i: int) -> None:
    """F-flip: turn over every hand and both piles (a turned pile is reversed)."""
    S = s.S
    side = S[i, SIDE] ^ 1
    S[i, SIDE] = side
    s.declined[i, :] = 0  # the other side's colours: nothing known of them
    faces = t.side_faces[side]
    _reverse(s.pile[i], S[i, PILE_LEN])
    dl = S[i, DISC_LEN]
    _reverse(s.disc[i], dl)
    S[i, TOP] = faces[s.disc[i, dl - 1]]
    s.disc_counts[i, :] = 0
    for k in range(dl):
        s.disc_counts[i, faces[s.disc[i, k]]] += 1
    # the hands' faces up were hidden and the reverse (hold_hidden's counts): swapped, not
    # counted again; every held card is known now, so none is unseen
    cnt, hid = s.counts[i], s.hid_counts[i]
    for q in range(t.n):
        for f in range(t.nf):
            up = cnt[q, f]
            cnt[q, f] = hid[q, f]
            hid[q, f] = up
    s.hid_unseen[i, :, :] = 0
    loc, known = s.loc[i], s.known[i]
    for c in range(t.nc):  # held through the flip: its owner saw the face now hidden
        known[c] |= 1 if loc[c] >= 0 else 0  # no branch: a hand's cards lie anywhere


@njit(cache=True, inline="always", error_model="numpy")
def flip_powers(s: Batch, t: Tables, i: int, seat: int) -> None:
    """X-power: flip one Power Card (``seat`` < 0: all); all red turn green at once."""
    pw = s.power[i]
    if seat >= 0:
        pw[seat] ^= 1
    else:
        for q in range(t.n):
            pw[q] ^= 1
    for q in range(t.n):
        if pw[q]:
            return
    pw[:] = 1
