"""The determinization kernel: observation + mask of the seat to act -> a batch row, the row
``convert.from_state(determinize(...))`` would write (``uno_env.determinize``, which this
mirrors line for line: the decode, the hidden cards of ``det_cards``, the phase's
bookkeeping of ``_infer_continuation``, the bluff of G-wd-challenge, then
``State.from_dict``'s card ids: each card name takes the lowest ids of that name, hands
first (seat order), then the draw pile from its top, then the discard).

Rows are grouped by position (``pos_of`` sorted): an observation is decoded once, then
sampled as many times as rows ask for it, each row with its own generator.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.det_cards import BAD, OK, respect, sample_cards
from uno_env.batch.effects import catch_victim
from uno_env.batch.layout import Batch
from uno_env.batch.legal import compute_legal
from uno_env.batch.mt19937 import getrandbits64, randbelow
from uno_env.batch.piles import hold_hidden
from uno_env.batch.tables import OBS_PIECES, Tables
from uno_env.cards import NUM_COLORS, WILD
from uno_env.rules.codes import (
    CHALLENGE,
    E_DRAW,
    E_FLIP,
    E_REVERSE,
    E_SKIP,
    E_WDC,
    P_CATCH,
    P_CHALLENGE,
    P_COLOR,
    P_DRAWN,
    P_JUMP_IN,
    P_REVERSE_BACK,
    P_STACK,
    P_TARGET,
    PHASES,
    PLAY,
    PLAY_FLEX,
    ST_CATCH,
    ST_EFFECT,
    ST_NEXT,
    ST_TARGET,
    ST_WINDOW,
)

NPHASES = len(PHASES)
BAD_TOP = 4  # status: the top card is not among the discard pile's faces

(O_HAND, O_TOP, O_COLOR, O_CCW, O_PHASE, O_PENDING, O_PILE, O_DISC, O_OWN_UNO, O_OPP_SIZE,
 O_OPP_UNO, O_CATCH, O_REVEALED, O_REVEALED_FROM, O_OWN_SCORE, O_OPP_SCORE, O_DECLINED,
 O_DRAWN, O_DARK, O_OPP_HIDDEN, O_PILE_HIDDEN, O_OWN_HIDDEN, O_OWN_POWER, O_OPP_POWER) = (
    OBS_PIECES.index(name) for name in (
        "hand", "top", "active_color", "counter_clockwise", "phase", "pending_draw",
        "draw_pile", "discard", "own_uno", "opp_hand_size", "opp_uno", "catch_target",
        "revealed", "revealed_from", "own_score", "opp_score", "opp_declined", "opp_drawn",
        "dark_side", "opp_hidden", "pile_hidden", "own_hidden", "own_power", "opp_power"))


class DetTables(NamedTuple):
    """What determinization reads beside :class:`Tables` (``Determinizer`` builds it)."""

    pair_ok: np.ndarray  # [side, active face, inactive face] 1: a card of the deck has both
    cls: np.ndarray  # [card] its name's index (cards of one name are interchangeable)
    cls_start: np.ndarray  # [name + 1] where its ids start in cls_ids
    cls_ids: np.ndarray  # the ids of each name, ascending (State.from_dict takes the lowest)
    color_mask: np.ndarray  # [colour incl. WILD, face] 1: the face has that colour


@njit(cache=True, inline="always", error_model="numpy")
def _int(x: float) -> int:
    return int(np.rint(x))


@njit(cache=True, inline="always", error_model="numpy")
def _next_after(ft: np.ndarray, top: int, p: int, d: int, n: int) -> int:
    """``determinize._next_after``: whose turn follows ``p``'s card ``top``."""
    e = ft[T.FT_FACE_EFFECT, top]
    if e in (E_SKIP, E_DRAW):
        return (p + 2 * d) % n
    if e == E_REVERSE:
        return p if n == 2 else (p + d) % n
    return (p + d) % n


@njit(cache=True, error_model="numpy")
def fill_rows(s: Batch, t: Tables, dt: DetTables, rows: np.ndarray, pos_of: np.ndarray,
              gen_of: np.ndarray, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray,
              mt: np.ndarray, mti: np.ndarray, rec_action: np.ndarray, rec_color: np.ndarray,
              avoid: np.ndarray, allowed: np.ndarray, navoid: np.ndarray, must: np.ndarray,
              status: np.ndarray, seeds: np.ndarray) -> None:
    """Row ``rows[j]`` of ``s``: a determinization of position ``pos_of[j]`` drawn with
    generator ``gen_of[j]`` (``mt[g, 0]``, ``mti[g, 0]``; rows sharing one draw from it in
    row order); ``status[j]`` OK or why none fits. With ``seeds`` of one entry per row,
    ``seeds[j]`` is the generator's next ``getrandbits(64)`` after row ``j`` (a search's
    playout seed, drawn after its sample as ``ISMCTSAgent`` draws it); empty: none."""
    n, nf, nc, na = t.n, t.nf, t.nc, t.na
    ft = t.ft
    at = ft[T.FT_OBS_AT]
    cap = t.face_cards.shape[2]
    own = np.zeros(nf, np.int64)
    own_known = np.zeros(nf, np.int64)
    disc = np.zeros(nf, np.int64)
    sizes = np.zeros(n - 1, np.int64)
    opp_hidden = np.zeros((n - 1, nf), np.int64)
    scores = np.zeros(n, np.int64)
    uno = np.zeros(n, np.uint8)
    declined = np.zeros(n, np.int64)
    drawn = np.zeros(n, np.int64)
    power = np.ones(n, np.uint8)
    shown = np.zeros(nf, np.int64)
    hands = np.empty((n, nc), np.int64)
    hand_len = np.zeros(n, np.int64)
    pile = np.empty(nc, np.int64)
    dcards = np.empty(nc, np.int64)
    known = np.zeros(nc, np.uint8)
    ptr = np.zeros(dt.cls_start.shape[0], np.int64)
    canon = np.empty(nc, np.int64)  # physical card -> its id in the row
    last = -1
    seat = phase = side = top = pile_n = pile_top = d = color = pending = 0
    shown_k = drawn_face = catch_k = 0
    chal_legal = bad = False
    for j in range(rows.shape[0]):
        p = pos_of[j]
        if p != last:  # decode the observation (determinize(), before _sample_cards)
            last = p
            o = obs[p]
            seat = seats[p]
            phase = int(np.argmax(o[at[O_PHASE]:at[O_PHASE] + NPHASES]))
            side = 1 if t.sides and o[at[O_DARK]] > 0.5 else 0
            for f in range(nf):
                own[f] = max(_int(o[at[O_HAND] + f]), 0)
                disc[f] = max(_int(o[at[O_DISC] + f]), 0)
                own_known[f] = max(_int(o[at[O_OWN_HIDDEN] + f]), 0) if t.sides else 0
            top = int(np.argmax(o[at[O_TOP]:at[O_TOP] + nf]))
            pile_n = _int(o[at[O_PILE]])
            total = own.sum() + disc.sum()
            for k in range(n - 1):
                sizes[k] = _int(o[at[O_OPP_SIZE] + k])
                for f in range(nf):
                    opp_hidden[k, f] = (max(_int(o[at[O_OPP_HIDDEN] + k * nf + f]), 0)
                                        if t.sides else 0)
                total += opp_hidden[k].sum()
            pile_top = -1
            if t.sides and pile_n:
                pile_top = int(np.argmax(o[at[O_PILE_HIDDEN]:at[O_PILE_HIDDEN] + nf]))
                total += 1
            bad = total > nc  # more demands than cards: no matching (every try fails)
            d = -1 if o[at[O_CCW]] > 0.5 else 1
            color = WILD
            for c in range(NUM_COLORS):
                if o[at[O_COLOR] + c] > 0.5:
                    color = c
                    break
            pending = _int(o[at[O_PENDING]])
            scores[0] = _int(o[at[O_OWN_SCORE]])
            uno[0] = o[at[O_OWN_UNO]] > 0.5
            shown_k = -1
            if o[at[O_REVEALED_FROM]:at[O_REVEALED_FROM] + n - 1].any():
                shown_k = int(np.argmax(o[at[O_REVEALED_FROM]:at[O_REVEALED_FROM] + n - 1])) + 1
                for f in range(nf):
                    shown[f] = _int(o[at[O_REVEALED] + f])
            for k in range(1, n):
                scores[k] = _int(o[at[O_OPP_SCORE] + k - 1])
                uno[k] = o[at[O_OPP_UNO] + k - 1] > 0.5
                bits = 0
                for c in range(NUM_COLORS):
                    if o[at[O_DECLINED] + (k - 1) * NUM_COLORS + c] > 0.5:
                        bits |= 1 << c
                declined[k] = bits
                drawn[k] = _int(o[at[O_DRAWN] + k - 1])
            if t.power_cards:
                power[0] = o[at[O_OWN_POWER]] > 0.5
                for k in range(1, n):
                    power[k] = o[at[O_OPP_POWER] + k - 1] > 0.5
            catch_k = int(np.argmax(o[at[O_CATCH]:at[O_CATCH] + n - 1])) + 1
            drawn_face = -1
            chal_legal = False
            for a in range(na):
                if mask[p, a]:
                    ty = ft[T.FT_ACT_TYPE, a]
                    if ty == CHALLENGE:
                        chal_legal = True
                    if phase == P_DRAWN and drawn_face < 0 and ty == PLAY:
                        drawn_face = a
                    elif phase == P_DRAWN and drawn_face < 0 and ty == PLAY_FLEX:
                        drawn_face = ft[T.FT_ACT_ARG, a]
        if disc[top] < 1:
            status[j] = BAD_TOP
            continue
        if bad:
            status[j] = BAD
            continue
        act = t.side_faces[side]
        hid = t.side_faces[side ^ 1] if t.sides else act
        g = gen_of[j]
        st = sample_cards(mt, mti, g, act, hid, t.sides, dt.pair_ok[side], own, own_known,
                          disc, top, sizes, opp_hidden, pile_n, pile_top, drawn_face, cap,
                          hands, hand_len, pile, dcards, known)
        status[j] = st
        if st != OK:
            continue
        ndisc = disc.sum()
        if navoid[p] > 0 or must[p].any():
            respect(mt, mti, g, t.side_faces[0], hands[1], hand_len[1], pile, pile_n,
                    avoid[p], allowed[p], navoid[p], must[p])
        rng = getrandbits64(mt, mti, g, 0)
        _write(s, t, dt, rows[j], g, mt, mti, seat, phase, side, d, color, pending, top,
               hands, hand_len, pile, pile_n, dcards, ndisc, known, drawn_face, scores, uno,
               declined, drawn, power, shown_k, shown, catch_k, chal_legal, rec_action[p],
               rec_color[p], ptr, canon, rng)
        if seeds.shape[0]:
            seeds[j] = getrandbits64(mt, mti, g, 0)


@njit(cache=True, error_model="numpy")
def _write(s: Batch, t: Tables, dt: DetTables, i: int, g: int, mt: np.ndarray,
           mti: np.ndarray, seat: int, phase: int, side: int, d: int, color: int,
           pending: int, top: int, hands: np.ndarray, hand_len: np.ndarray, pile: np.ndarray,
           pile_n: int, dcards: np.ndarray, ndisc: int, known: np.ndarray, drawn_face: int,
           scores: np.ndarray, uno: np.ndarray, declined: np.ndarray, drawn: np.ndarray,
           power: np.ndarray, shown_k: int, shown: np.ndarray, catch_k: int,
           chal_legal: bool, ra: int, rc: int, ptr: np.ndarray, canon: np.ndarray,
           rng: np.uint64) -> None:
    """Row ``i`` from the sampled cards (physical ids, hands by relative seat) and the
    decoded observation: ``_infer_continuation``, the bluff, ``State.from_dict``'s ids."""
    n = t.n
    ft = t.ft
    S = s.S
    # State.from_dict: each name's lowest free id, hands by seat, pile from its top, discard
    ptr[:] = 0
    for q in range(n):
        k = (q - seat) % n
        for u in range(hand_len[k]):
            c = hands[k, u]
            m = dt.cls[c]
            canon[c] = dt.cls_ids[dt.cls_start[m] + ptr[m]]
            ptr[m] += 1
    for u in range(pile_n - 1, -1, -1):
        c = pile[u]
        m = dt.cls[c]
        canon[c] = dt.cls_ids[dt.cls_start[m] + ptr[m]]
        ptr[m] += 1
    for u in range(ndisc):
        c = dcards[u]
        m = dt.cls[c]
        canon[c] = dt.cls_ids[dt.cls_start[m] + ptr[m]]
        ptr[m] += 1
    faces = t.side_faces[side]
    s.loc[i, :] = -1
    s.acq[i, :] = 0
    s.known[i, :] = 0
    s.counts[i] = 0
    s.hid_counts[i] = 0
    s.hid_unseen[i] = 0
    s.disc_counts[i] = 0
    s.revealed[i] = 0
    s.revealed_from[i] = -1
    tick = 0
    for q in range(n):
        k = (q - seat) % n
        for u in range(hand_len[k]):
            c = hands[k, u]
            cid = canon[c]
            tick += 1
            s.loc[i, cid] = q
            s.acq[i, cid] = tick
            s.known[i, cid] = known[c]
            s.counts[i, q, faces[cid]] += 1
            hold_hidden(s, t, i, side, q, cid, 1)
        s.hand_len[i, q] = hand_len[k]
        s.uno_called[i, q] = uno[k]
        s.power[i, q] = power[k]
        s.scores[i, q] = scores[k]
        s.declined[i, q] = declined[k] if k else 0
        s.drawn_since[i, q] = drawn[k] if k else 0
    for u in range(pile_n):
        s.pile[i, u] = canon[pile[u]]
    for u in range(ndisc):
        cid = canon[dcards[u]]
        s.disc[i, u] = cid
        s.disc_counts[i, faces[cid]] += 1
    if shown_k > 0:
        s.revealed_from[i, seat] = (seat + shown_k) % n
        for f in range(t.nf):
            s.revealed[i, seat, f] = shown[f]
    # _infer_continuation
    play_seat, next_seat, stage, dealer = (seat - d) % n, (seat + d) % n, ST_NEXT, (seat - 1) % n
    flex_play = until_color = going_out = chal_ok = False
    skip_victim = True
    chal_seat = -1
    own_play = False
    own_flex = ra >= 0 and ft[T.FT_ACT_TYPE, ra] == PLAY_FLEX
    if phase == P_COLOR:
        first = ndisc == 1
        for q in range(n):
            first = first and hand_len[q] == t.hand_size
        rty = ft[T.FT_ACT_TYPE, ra] if ra >= 0 else -1
        flipped = (rty in (PLAY, PLAY_FLEX) and ft[
            T.FT_FACE_EFFECT, ft[T.FT_ACT_ARG, ra] if own_flex else ra] == E_FLIP)
        if first:  # C-/F-first-discard: the chooser names it, then the first player plays
            dealer = seat if t.dealer_chooses else (seat - 1) % n
            next_seat = (dealer + 1) % n
            d = 1
        elif flipped:  # F-flip: a Flip turned up a wild
            stage, play_seat, next_seat = ST_WINDOW, seat, (seat + d) % n
        else:
            own_play = True
    elif phase == P_TARGET:
        own_play = True
        own_flex = True
    elif phase in (P_CHALLENGE, P_STACK):
        player = (seat - d) % n
        flex_play = t.has_flex and ft[T.FT_FLEX_TARGETED, top] > 0 and not power[
            (player - seat) % n]
        stage, play_seat, skip_victim = ST_WINDOW, player, not flex_play
        until_color = ft[T.FT_FACE_EFFECT, top] == E_WDC
        chal_ok = chal_legal
        if chal_ok:
            chal_seat = player
    elif phase == P_CATCH:
        stage, play_seat = ST_EFFECT, (seat + catch_k) % n
    elif phase == P_REVERSE_BACK:
        stage = ST_WINDOW
    elif phase == P_JUMP_IN:
        next_seat = _next_after(ft, top, (seat - d) % n, d, n)
    if own_play:  # _own_play: the observer's card is being resolved
        flex_play = own_flex and t.has_flex and ft[T.FT_FLEX_EFFECT, top] >= 0
        stage = ST_TARGET if flex_play and ft[T.FT_FLEX_TARGETED, top] > 0 else ST_CATCH
        play_seat = seat
        going_out = hand_len[0] == 0
        if ft[T.FT_FLEX_CHAL, top] > 0 if flex_play else ft[T.FT_FACE_CHAL, top] > 0:
            chal_seat = seat
        if phase == P_TARGET:
            stage = ST_CATCH
    honest = True
    if chal_seat >= 0 and phase in (P_CHALLENGE, P_COLOR, P_TARGET):
        # G-wd-challenge: honest when its player held no card of the colour active before
        prior = rc if (ra >= 0 and chal_seat == seat and rc < WILD) else randbelow(
            mt, mti, g, 0, 4)
        cnt = s.counts[i, chal_seat]
        for f in range(t.nf):
            if cnt[f] and (dt.color_mask[prior, f] or (t.honest_wild
                                                        and dt.color_mask[WILD, f])):
                honest = False
    S[i, L.CUR] = seat
    S[i, L.PHASE] = phase
    S[i, L.DIR] = d
    S[i, L.COLOR] = color
    S[i, L.PENDING] = pending
    S[i, L.DRAWN] = canon[hands[0, hand_len[0] - 1]] if drawn_face >= 0 else -1
    S[i, L.LAST_DRAWN] = -1
    S[i, L.PASSES] = 0
    S[i, L.PLAY_SEAT] = play_seat
    S[i, L.GOING_OUT] = going_out
    S[i, L.HONEST] = honest
    S[i, L.CHAL_SEAT] = chal_seat
    S[i, L.CHAL_OK] = chal_ok
    S[i, L.SKIP_VICTIM] = skip_victim
    S[i, L.UNTIL_COLOR] = until_color
    S[i, L.FLEX_PLAY] = flex_play
    S[i, L.BOUNCE] = 0
    S[i, L.TARGET] = -1
    S[i, L.STAGE] = stage
    S[i, L.NEXT_SEAT] = next_seat
    S[i, L.DEALER] = dealer
    S[i, L.SIDE] = side
    S[i, L.TICK] = tick
    S[i, L.PILE_LEN] = pile_n
    S[i, L.DISC_LEN] = ndisc
    S[i, L.NROUNDS] = 0
    S[i, L.TOP] = faces[s.disc[i, ndisc - 1]]
    s.rng[i] = rng
    s.legal[i, :] = 0
    compute_legal(s, t, i)
    if t.catch_until_out and catch_victim(s, t, i) >= 0:  # as State.from_dict
        s.legal[i, t.catch_a] = 1
        S[i, L.NLEGAL] += 1
    S[i, L.ONE_LEGAL] = -1
