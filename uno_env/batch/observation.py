"""The observation vector of ``uno_env.observation.ObservationLayout.build``, written into a
row of a float32 buffer (same indices, same values; offsets from ``Tables.obs_at``)."""

from __future__ import annotations

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.effects import catch_victim, top_face
from uno_env.batch.layout import Batch
from uno_env.batch.tables import OBS_PIECES, Tables
from uno_env.cards import NUM_COLORS
from uno_env.rules.codes import P_OVER

(O_HAND, O_TOP, O_COLOR, O_CCW, O_PHASE, O_PENDING, O_PILE, O_DISCARD, O_OWN_UNO, O_HAND_SIZE,
 O_OPP_UNO, O_CATCH, O_REVEALED, O_REVEALED_FROM, O_OWN_SCORE, O_OPP_SCORE, O_DECLINED,
 O_DRAWN, O_DARK,
 O_OPP_HIDDEN, O_PILE_HIDDEN, O_OWN_HIDDEN, O_OWN_POWER, O_OPP_POWER) = range(len(OBS_PIECES))


@njit(cache=True, inline="always", error_model="numpy")
def write_obs(s: Batch, t: Tables, i: int, seat: int, out: np.ndarray) -> None:
    """The observation of ``seat`` in game ``i``: only what that player may know."""
    S = s.S
    ft = t.ft
    n, nf = t.n, t.nf
    out[:] = 0.0
    cnt = s.counts[i, seat]
    for f in range(nf):
        out[f] = cnt[f]
        out[ft[T.FT_OBS_AT, O_DISCARD] + f] = s.disc_counts[i, f]
    out[ft[T.FT_OBS_AT, O_TOP] + top_face(s, t, i)] = 1.0
    if S[i, L.COLOR] < 4:
        out[ft[T.FT_OBS_AT, O_COLOR] + S[i, L.COLOR]] = 1.0
    if S[i, L.DIR] < 0:
        out[ft[T.FT_OBS_AT, O_CCW]] = 1.0
    ph = S[i, L.PHASE]
    if S[i, L.CUR] == seat and ph != P_OVER:
        out[ft[T.FT_OBS_AT, O_PHASE] + ph] = 1.0
        victim = catch_victim(s, t, i)
        if victim >= 0:  # G-uno: who `catch` would penalise (either catch window)
            out[ft[T.FT_OBS_AT, O_CATCH] - 1 + (victim - seat) % n] = 1.0
    out[ft[T.FT_OBS_AT, O_PENDING]] = min(S[i, L.PENDING], 255)
    out[ft[T.FT_OBS_AT, O_PILE]] = S[i, L.PILE_LEN]
    if s.uno_called[i, seat]:
        out[ft[T.FT_OBS_AT, O_OWN_UNO]] = 1.0
    for k in range(1, n):
        q = (seat + k) % n
        out[ft[T.FT_OBS_AT, O_HAND_SIZE] + k - 1] = s.hand_len[i, q]
        if s.uno_called[i, q]:
            out[ft[T.FT_OBS_AT, O_OPP_UNO] + k - 1] = 1.0
        bits = s.declined[i, q]
        if bits:
            for c in range(NUM_COLORS):
                if bits >> c & 1:
                    out[ft[T.FT_OBS_AT, O_DECLINED] + (k - 1) * NUM_COLORS + c] = 1.0
        # drawn_since <= the hand's size <= the deck's (< 255), as in ObservationLayout.build
        out[ft[T.FT_OBS_AT, O_DRAWN] + k - 1] = s.drawn_since[i, q]
    src = s.revealed_from[i, seat]
    if src >= 0:
        for f in range(nf):
            out[ft[T.FT_OBS_AT, O_REVEALED] + f] = s.revealed[i, seat, f]
        out[ft[T.FT_OBS_AT, O_REVEALED_FROM] - 1 + (src - seat) % n] = 1.0
    if t.sides:  # F-visibility
        hidden = t.side_faces[S[i, L.SIDE] ^ 1]
        if S[i, L.SIDE]:
            out[ft[T.FT_OBS_AT, O_DARK]] = 1.0
        for c in range(t.nc):
            q = s.loc[i, c]
            if q == seat:
                if s.known[i, c]:
                    out[ft[T.FT_OBS_AT, O_OWN_HIDDEN] + hidden[c]] += 1.0
            elif q >= 0:
                out[ft[T.FT_OBS_AT, O_OPP_HIDDEN] + ((q - seat) % n - 1) * nf + hidden[c]] += 1.0
        pl = S[i, L.PILE_LEN]
        if pl:
            out[ft[T.FT_OBS_AT, O_PILE_HIDDEN] + hidden[s.pile[i, pl - 1]]] = 1.0
    if t.power_cards:
        out[ft[T.FT_OBS_AT, O_OWN_POWER]] = s.power[i, seat]
        for k in range(1, n):
            out[ft[T.FT_OBS_AT, O_OPP_POWER] + k - 1] = s.power[i, (seat + k) % n]
    for k in range(n):
        out[ft[T.FT_OBS_AT, O_OWN_SCORE] + k] = s.scores[i, (seat + k) % n]
