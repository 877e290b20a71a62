"""The observation vector of ``uno_env.observation.ObservationLayout.build``, written into a
row of a float32 buffer (same indices, same values; offsets from ``Tables.obs_at``).

Written for speed (it runs once per decision): every offset is read into a local first (a
store into the float row may alias the int16 table as far as LLVM knows, so an offset read
inside a loop may be reloaded on every iteration, keeping the loop from being vectorised), and
the relative seats are counted up with a wrap instead of ``%`` (a division per use).
"""

from __future__ import annotations

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.effects import catch_victim
from uno_env.batch.layout import Batch
from uno_env.batch.tables import OBS_PIECES, Tables
from uno_env.cards import NUM_COLORS
from uno_env.rules.codes import P_OVER

# each piece's row of FT_OBS_AT, looked up by its name in OBS_PIECES (a misspelt name fails
# at import; the order is OBS_PIECES', whatever order these names are written in)
(O_HAND, O_TOP, O_COLOR, O_CCW, O_PHASE, O_PENDING, O_PILE, O_DISCARD, O_OWN_UNO, O_HAND_SIZE,
 O_OPP_UNO, O_CATCH, O_REVEALED, O_REVEALED_FROM, O_OWN_SCORE, O_OPP_SCORE, O_DECLINED,
 O_DRAWN, O_DARK,
 O_OPP_HIDDEN, O_PILE_HIDDEN, O_OWN_HIDDEN, O_OWN_POWER, O_OPP_POWER) = (
    OBS_PIECES.index(name) for name in (
        "hand", "top", "active_color", "counter_clockwise", "phase", "pending_draw",
        "draw_pile", "discard", "own_uno", "opp_hand_size", "opp_uno", "catch_target",
        "revealed", "revealed_from", "own_score", "opp_score", "opp_declined", "opp_drawn",
        "dark_side", "opp_hidden", "pile_hidden", "own_hidden", "own_power", "opp_power"))


@njit(cache=True, inline="always", error_model="numpy")
def _bytes_to(out: np.ndarray, at: int, src: np.ndarray, nf: int) -> None:
    """``out[at:at + nf] = src[:nf]`` (uint8 counts to float32), a loop LLVM vectorises."""
    dst = out[at:at + nf]
    for f in range(nf):
        dst[f] = src[f]


@njit(cache=True, inline="always", error_model="numpy")
def _zero(out: np.ndarray, lo: int, hi: int) -> None:
    """``out[lo:hi] = 0`` (a memset)."""
    out[lo:hi] = 0.0


@njit(cache=True, inline="always", error_model="numpy")
def _hidden(s: Batch, t: Tables, i: int, seat: int, out: np.ndarray) -> None:
    """F-visibility: the inactive faces the others hold, the pile's top, and the observer's
    own seen ones: copies of the counts ``hold_hidden`` keeps (a loop over the cards here,
    branching on each holder, was most of Flip's writer)."""
    S = s.S
    n, nf = t.n, t.nf
    at = t.ft[T.FT_OBS_AT]
    side = S[i, L.SIDE]
    if side:
        out[at[O_DARK]] = 1.0
    opp = at[O_OPP_HIDDEN] - nf  # relative seat k >= 1 at opp + k * nf
    hid = s.hid_counts[i]
    q = seat
    for k in range(1, n):
        q += 1
        if q == n:
            q = 0
        _bytes_to(out, opp + k * nf, hid[q], nf)
    own = out[at[O_OWN_HIDDEN]:at[O_OWN_HIDDEN] + nf]  # the seen ones
    hid, unseen = s.hid_counts[i, seat], s.hid_unseen[i, seat]
    for f in range(nf):
        own[f] = hid[f] - unseen[f]
    pl = S[i, L.PILE_LEN]
    if pl:
        out[at[O_PILE_HIDDEN] + t.side_faces[side ^ 1, s.pile[i, pl - 1]]] = 1.0


@njit(cache=True, error_model="numpy")
def write_obs(s: Batch, t: Tables, i: int, seat: int, out: np.ndarray) -> None:
    """The observation of ``seat`` in game ``i``: only what that player may know. Not
    inlined by numba: inlined twice into the learner's fused step it made that kernel slower
    (classic 0.84x side by side); as a call it is 1.1x."""
    S = s.S
    at = t.ft[T.FT_OBS_AT]
    n, nf = t.n, t.nf
    # the offsets, loaded once (see the module docstring)
    o_hand_size, o_opp_uno, o_declined, o_drawn = (
        at[O_HAND_SIZE] - 1, at[O_OPP_UNO] - 1, at[O_DECLINED] - NUM_COLORS, at[O_DRAWN] - 1)
    # Flip: zeros except where a piece is copied whole below: the own hand (at 0), the
    # discard and the hidden counts, in that order (``build_tables`` checks it); one pass over
    # most of the row instead of a memset and the copies (Flip with 10 players: 6.9 kB).
    # The other variants' rows (1-2 kB) measured faster with the one memset.
    disc = at[O_DISCARD]
    if t.sides:
        opp, own = at[O_OPP_HIDDEN], at[O_OWN_HIDDEN]
        _zero(out, nf, disc)
        _zero(out, disc + nf, opp)
        _zero(out, opp + (n - 1) * nf, own)
        _zero(out, own + nf, out.shape[0])
    else:
        out[:] = 0.0
    _bytes_to(out, 0, s.counts[i, seat], nf)
    _bytes_to(out, disc, s.disc_counts[i], nf)
    out[at[O_TOP] + S[i, L.TOP]] = 1.0
    color = S[i, L.COLOR]
    if color < NUM_COLORS:
        out[at[O_COLOR] + color] = 1.0
    if S[i, L.DIR] < 0:
        out[at[O_CCW]] = 1.0
    ph = S[i, L.PHASE]
    if S[i, L.CUR] == seat and ph != P_OVER:
        out[at[O_PHASE] + ph] = 1.0
        victim = catch_victim(s, t, i)
        if victim >= 0:  # G-uno: who `catch` would penalise (either catch window)
            k = victim - seat
            out[at[O_CATCH] - 1 + (k + n if k < 0 else k)] = 1.0
    out[at[O_PENDING]] = min(S[i, L.PENDING], 255)
    out[at[O_PILE]] = S[i, L.PILE_LEN]
    uno = s.uno_called[i]
    if uno[seat]:
        out[at[O_OWN_UNO]] = 1.0
    hand_len, declined, drawn = s.hand_len[i], s.declined[i], s.drawn_since[i]
    q = seat
    for k in range(1, n):
        q += 1
        if q == n:
            q = 0
        out[o_hand_size + k] = hand_len[q]
        if uno[q]:
            out[o_opp_uno + k] = 1.0
        bits = declined[q]
        if bits:
            for c in range(NUM_COLORS):
                if bits >> c & 1:
                    out[o_declined + k * NUM_COLORS + c] = 1.0
        # drawn_since <= the hand's size <= the deck's (< 255), as in ObservationLayout.build
        out[o_drawn + k] = drawn[q]
    src = s.revealed_from[i, seat]
    if src >= 0:
        _bytes_to(out, at[O_REVEALED], s.revealed[i, seat], nf)
        k = src - seat
        out[at[O_REVEALED_FROM] - 1 + (k + n if k < 0 else k)] = 1.0
    if t.sides:  # F-visibility
        _hidden(s, t, i, seat, out)
    if t.power_cards:
        power = s.power[i]
        out[at[O_OWN_POWER]] = power[seat]
        o_power = at[O_OPP_POWER] - 1
        q = seat
        for k in range(1, n):
            q += 1
            if q == n:
                q = 0
            out[o_power + k] = power[q]
    scores = s.scores[i]
    o_score = at[O_OWN_SCORE]
    q = seat
    for k in range(n):
        out[o_score + k] = scores[q]
        q += 1
        if q == n:
            q = 0
