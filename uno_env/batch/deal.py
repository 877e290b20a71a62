"""G-deal and C-first-discard, mirroring ``State._deal`` and ``State._first_discard``."""

from __future__ import annotations

from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.layout import (
    BOUNCE,
    CHAL_OK,
    CHAL_SEAT,
    COLOR,
    CUR,
    DEALER,
    DIR,
    DISC_LEN,
    DRAWN,
    FLEX_PLAY,
    GOING_OUT,
    HONEST,
    LAST_DRAWN,
    NEXT_SEAT,
    PASSES,
    PENDING,
    PHASE,
    PILE_LEN,
    PLAY_SEAT,
    SIDE,
    SKIP_VICTIM,
    STAGE,
    TARGET,
    TICK,
    TOP,
    UNTIL_COLOR,
    Batch,
)
from uno_env.batch.piles import draw, flip, hold_hidden
from uno_env.batch.rng import shuffle
from uno_env.batch.tables import Tables
from uno_env.rules.codes import (
    E_DRAW,
    E_FLIP,
    E_NUMBER,
    E_REVERSE,
    E_SKIP,
    P_COLOR,
    P_PLAY,
    ST_NEXT,
)


@njit(cache=True, inline="always", error_model="numpy")
def start_turn(s: Batch, i: int, seat: int) -> None:
    s.S[i, CUR] = seat
    s.S[i, PHASE] = P_PLAY
    s.S[i, DRAWN] = -1


@njit(cache=True, error_model="numpy")
def deal(s: Batch, t: Tables, i: int, dealer: int) -> None:
    """G-deal: shuffle, deal one at a time from dealer + 1, turn the first discard."""
    S = s.S
    n, nc = t.n, t.nc
    S[i, DEALER] = dealer
    S[i, SIDE] = 0
    pile = s.pile[i]
    for c in range(nc):
        pile[c] = c
    shuffle(s.rng, i, pile, nc)
    for j in range(nc // 2):  # the draw pile is the order reversed (top last)
        tmp = pile[j]
        pile[j] = pile[nc - 1 - j]
        pile[nc - 1 - j] = tmp
    S[i, PILE_LEN] = nc
    S[i, DISC_LEN] = 0
    s.disc_counts[i, :] = 0
    s.loc[i, :] = -1
    s.acq[i, :] = 0
    s.known[i, :] = 0
    s.counts[i, :, :] = 0
    s.hid_counts[i, :, :] = 0
    s.hid_unseen[i, :, :] = 0
    s.hand_len[i, :] = 0
    s.uno_called[i, :] = 0
    s.declined[i, :] = 0
    s.drawn_since[i, :] = 0
    s.revealed[i, :, :] = 0
    s.revealed_from[i, :] = -1
    s.power[i, :] = 1  # X-power: every Power Card green at the deal
    faces = t.side_faces[0]
    tick = 0
    pl = nc
    for _ in range(t.hand_size):
        for k in range(1, n + 1):
            seat = (dealer + k) % n
            pl -= 1
            c = pile[pl]
            s.loc[i, c] = seat
            s.counts[i, seat, faces[c]] += 1
            hold_hidden(s, t, i, 0, seat, c, 1)  # not seen yet (known 0)
            s.hand_len[i, seat] += 1
            tick += 1
            s.acq[i, c] = tick
    S[i, PILE_LEN] = pl
    S[i, TICK] = tick
    S[i, DIR] = 1
    S[i, PENDING] = 0
    S[i, DRAWN] = -1
    S[i, LAST_DRAWN] = -1
    S[i, PASSES] = 0
    S[i, PLAY_SEAT] = -1
    S[i, GOING_OUT] = 0
    S[i, HONEST] = 1
    S[i, CHAL_SEAT] = -1
    S[i, CHAL_OK] = 0
    S[i, SKIP_VICTIM] = 1
    S[i, UNTIL_COLOR] = 0
    S[i, FLEX_PLAY] = 0
    S[i, BOUNCE] = 0
    S[i, TARGET] = -1
    S[i, STAGE] = ST_NEXT
    S[i, NEXT_SEAT] = (dealer + 1) % n
    S[i, CUR] = (dealer + 1) % n
    S[i, PHASE] = P_PLAY
    S[i, COLOR] = 0
    first_discard(s, t, i)


@njit(cache=True, inline="always", error_model="numpy")
def _ask_first_color(s: Batch, t: Tables, i: int, chooser: int, first: int) -> None:
    s.S[i, CUR] = chooser  # then the first player plays
    s.S[i, PHASE] = P_COLOR
    s.S[i, STAGE] = ST_NEXT
    s.S[i, NEXT_SEAT] = first


@njit(cache=True, error_model="numpy")
def first_discard(s: Batch, t: Tables, i: int) -> None:
    """C-first-discard: the top card's action applies to the first player."""
    S = s.S
    n, d = t.n, S[i, DEALER]
    pile = s.pile[i]
    while True:
        pl = S[i, PILE_LEN] - 1
        c = pile[pl]
        f = t.side_faces[S[i, SIDE], c]
        if t.ft[T.FT_FIRST_REDRAW, t.ft[T.FT_FACE_EFFECT, f]]:
            shuffle(s.rng, i, pile, pl + 1)  # returned to the deck, which is reshuffled
            continue
        S[i, PILE_LEN] = pl
        s.disc[i, S[i, DISC_LEN]] = c
        S[i, DISC_LEN] += 1
        S[i, TOP] = f
        s.disc_counts[i, f] += 1
        # X-first-discard: an action card is ignored, and the next card turned on it
        if not t.numbers_only or t.ft[T.FT_FACE_EFFECT, f] == E_NUMBER:
            break
    S[i, COLOR] = t.ft[T.FT_FACE_COLOR, f]
    first = (d + 1) % n
    effect = t.ft[T.FT_FACE_EFFECT, f]
    chooser = d if t.dealer_chooses else first
    if effect == E_FLIP:  # F-first-discard: flip, start on the dark side
        flip(s, t, i)
        top = t.side_faces[S[i, SIDE], s.disc[i, S[i, DISC_LEN] - 1]]
        S[i, COLOR] = t.ft[T.FT_FACE_COLOR, top]
        if t.ft[T.FT_FACE_WILD, top]:
            _ask_first_color(s, t, i, chooser, first)
        else:
            start_turn(s, i, first)
    elif effect == E_SKIP:
        start_turn(s, i, (d + 2) % n)
    elif effect == E_REVERSE:
        S[i, DIR] = -1
        start_turn(s, i, d)
    elif effect == E_DRAW:
        draw(s, t, i, first, t.ft[T.FT_FACE_DRAW, f])
        start_turn(s, i, (d + 2) % n)
    elif t.ft[T.FT_FACE_WILD, f]:
        _ask_first_color(s, t, i, chooser, first)
    else:
        start_turn(s, i, first)
