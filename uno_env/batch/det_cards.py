"""The hidden cards of a determinization, compiled: ``uno_env.determinize._fill`` (with its
``_kuhn``) and ``uno_env.inference.respect``, step for step, drawing from a CPython
``random.Random`` state (``uno_env.batch.mt19937``), so that both consume the generator
identically and pick the same physical cards.

Where the Python code walks a ``Counter``'s elements, a list comprehension or a dict of
candidate lists, the kernel walks the same items in the same order: faces ascending, cards
in the shuffled deck order, the augmenting-path search (``_kuhn``) as an explicit stack that
visits candidates exactly as the recursion does.
"""

from __future__ import annotations

import numpy as np

from uno_env.batch.cache import njit
from uno_env.batch.mt19937 import randbelow, shuffle

TRIES = 50  # uno_env.determinize._TRIES: random assignments before giving up
OK, RETRY, BAD, NO_DEAL = 0, 1, 2, 3  # _fill's outcomes; BAD: contradicts the deck


@njit(cache=True, error_model="numpy")
def kuhn(nl: int, cstart: np.ndarray, clen: np.ndarray, cbuf: np.ndarray, nr: int,
         got: np.ndarray, owner: np.ndarray) -> bool:
    """``determinize._kuhn``: left item ``i`` takes one of ``cbuf[cstart[i]:][:clen[i]]``
    (right items ``< nr``, in preference order); ``got[i]`` its right item, ``owner[r]``
    the left item holding ``r`` (-1 none). False when some item finds no augmenting path."""
    seen = np.zeros(nr, np.int64)
    owner[:nr] = -1
    sx = np.empty(nl + 1, np.int64)  # the recursion's frames: item, next candidate, taken
    spos = np.empty(nl + 1, np.int64)
    sr = np.empty(nl + 1, np.int64)
    for i in range(nl):
        stamp = i + 1  # place(i, set()): a fresh `seen` per top-level call
        sp = 0
        sx[0] = i
        spos[0] = 0
        done = False
        while sp >= 0:
            x = sx[sp]
            pos = spos[sp]
            found = -1
            while pos < clen[x]:
                r = cbuf[cstart[x] + pos]
                pos += 1
                if seen[r] != stamp:
                    found = r
                    break
            spos[sp] = pos
            if found < 0:  # this frame returns False: its caller tries its next candidate
                sp -= 1
                continue
            seen[found] = stamp
            sr[sp] = found
            if owner[found] < 0:  # a free item: every frame takes the item it tried
                for k in range(sp, -1, -1):
                    owner[sr[k]] = sx[k]
                    got[sx[k]] = sr[k]
                done = True
                break
            sp += 1
            sx[sp] = owner[found]
            spos[sp] = 0
        if not done:
            return False
    return True


@njit(cache=True, error_model="numpy")
def _remove_first(xs: np.ndarray, n: int, v: int) -> bool:
    """``list.remove(v)`` on ``xs[:n]`` (the tail shifts left); False when ``v`` is absent."""
    for j in range(n):
        if xs[j] == v:
            for u in range(j, n - 1):
                xs[u] = xs[u + 1]
            return True
    return False


@njit(cache=True, error_model="numpy")
def _fill(mt: np.ndarray, mti: np.ndarray, r: int, act: np.ndarray, hid: np.ndarray,
          sides: bool, pair_ok: np.ndarray, own: np.ndarray, own_known: np.ndarray,
          disc: np.ndarray, top: int, sizes: np.ndarray, opp_hidden: np.ndarray,
          pile_n: int, pile_top: int, drawn_face: int, cap: int, hands: np.ndarray,
          hand_len: np.ndarray, pile: np.ndarray, disc_out: np.ndarray,
          known: np.ndarray) -> int:
    """One try of ``determinize._fill`` with generator ``r``: hands by relative seat (own
    first; oldest first), the draw pile (top last), the discard (top last), ``known`` of
    the own seen cards. Returns OK, RETRY (the Python returns None) or BAD."""
    nc = act.shape[0]
    nf = own.shape[0]
    faces = np.empty(nc, np.int64)
    nown = 0
    for f in range(nf):
        for _ in range(own[f]):
            faces[nown] = f
            nown += 1
    shuffle(mt, mti, r, 0, faces, 0, nown)
    slot_a = np.empty(nc + 1, np.int64)
    slot_h = np.empty(nc + 1, np.int64)
    ns = 0
    has_known = sides and own_known.sum() > 0
    seen_n = 0
    if has_known:
        hs = np.empty(nc, np.int64)
        nh = 0
        for h in range(nf):
            for _ in range(own_known[h]):
                hs[nh] = h
                nh += 1
        shuffle(mt, mti, r, 0, hs, 0, nh)
        dh = -1
        if drawn_face >= 0:  # F-visibility: the drawn card was seen; it is one of those
            opts = np.empty(nh, np.int64)
            nopt = 0
            for t in range(nh):
                first = True
                for u in range(t):
                    if hs[u] == hs[t]:
                        first = False
                        break
                if first and pair_ok[drawn_face, hs[t]]:
                    opts[nopt] = hs[t]
                    nopt += 1
            if nopt == 0:
                return RETRY
            dh = opts[randbelow(mt, mti, r, 0, nopt)]
            _remove_first(hs, nh, dh)
            nh -= 1
            if not _remove_first(faces, nown, drawn_face):
                return BAD
            nown -= 1
        cstart = np.empty(nh, np.int64)
        clen = np.empty(nh, np.int64)
        cbuf = np.empty(nh * nown + 1, np.int64)
        pos = 0
        for t in range(nh):
            cstart[t] = pos
            for j in range(nown):
                if pair_ok[faces[j], hs[t]]:
                    cbuf[pos] = j
                    pos += 1
            clen[t] = pos - cstart[t]
        pgot = np.empty(nh, np.int64)
        powner = np.empty(nown + 1, np.int64)
        if not kuhn(nh, cstart, clen, cbuf, nown, pgot, powner):
            return RETRY
        for t in range(nh):
            slot_a[ns] = faces[pgot[t]]
            slot_h[ns] = hs[t]
            ns += 1
        seen_n = nh
        for j in range(nown):
            if powner[j] < 0:
                slot_a[ns] = faces[j]
                slot_h[ns] = -1
                ns += 1
        if drawn_face >= 0:
            slot_a[ns] = drawn_face
            slot_h[ns] = dh
            ns += 1
    else:
        if drawn_face >= 0:  # the drawn card is the newest of its face
            if not _remove_first(faces, nown, drawn_face):
                return BAD
            faces[nown - 1] = drawn_face
        for j in range(nown):
            slot_a[ns] = faces[j]
            slot_h[ns] = -1
            ns += 1
    n_own = ns
    rest = np.empty(nc, np.int64)
    nd = 0
    for f in range(nf):
        for _ in range(disc[f] - (1 if f == top else 0)):
            rest[nd] = f
            nd += 1
    shuffle(mt, mti, r, 0, rest, 0, nd)
    for t in range(nd):
        slot_a[ns] = rest[t]
        slot_h[ns] = -1
        ns += 1
    slot_a[ns] = top
    slot_h[ns] = -1
    ns += 1
    n_disc = nd + 1
    nopp = sizes.shape[0]
    opp_n = np.zeros(nopp, np.int64)
    for k in range(nopp):
        for h in range(nf):
            for _ in range(opp_hidden[k, h]):
                slot_a[ns] = -1
                slot_h[ns] = h
                ns += 1
                opp_n[k] += 1
    if pile_top >= 0:
        slot_a[ns] = -1
        slot_h[ns] = pile_top
        ns += 1
    order = np.arange(nc)
    shuffle(mt, mti, r, 0, order, 0, nc)
    # candidate lists in deck order: by active face, by inactive face, then by pair
    hid_at = nf * cap
    pairs_at = 2 * nf * cap
    cbuf = np.empty(pairs_at + ns * cap, np.int64)
    act_n = np.zeros(nf, np.int64)
    hid_n = np.zeros(nf, np.int64)
    for c in order:
        f = act[c]
        cbuf[f * cap + act_n[f]] = c
        act_n[f] += 1
        if sides:
            h = hid[c]
            cbuf[hid_at + h * cap + hid_n[h]] = c
            hid_n[h] += 1
    cstart = np.empty(ns, np.int64)
    clen = np.empty(ns, np.int64)
    pos = pairs_at
    for s in range(ns):
        a, h = slot_a[s], slot_h[s]
        if h < 0:
            cstart[s] = a * cap
            clen[s] = act_n[a]
        elif a < 0:
            cstart[s] = hid_at + h * cap
            clen[s] = hid_n[h]
        else:
            cstart[s] = pos
            for u in range(act_n[a]):
                c = cbuf[a * cap + u]
                if hid[c] == h:
                    cbuf[pos] = c
                    pos += 1
            clen[s] = pos - cstart[s]
    got = np.empty(ns, np.int64)
    owner = np.empty(nc, np.int64)
    if not kuhn(ns, cstart, clen, cbuf, nc, got, owner):
        return RETRY
    left = np.empty(nc, np.int64)
    nleft = 0
    for c in order:
        if owner[c] < 0:
            left[nleft] = c
            nleft += 1
    at = n_own + n_disc
    for k in range(nopp):
        m = 0
        for u in range(opp_n[k]):
            hands[k + 1, m] = got[at + u]
            m += 1
        at += opp_n[k]
        while m < sizes[k]:
            if nleft == 0:
                return RETRY
            nleft -= 1
            hands[k + 1, m] = left[nleft]
            m += 1
        shuffle(mt, mti, r, 0, hands[k + 1], 0, m)
        hand_len[k + 1] = m
    npile = nleft + ns - at
    if npile != pile_n:
        return RETRY
    pile[:nleft] = left[:nleft]
    pile[nleft:npile] = got[at:ns]
    for t in range(n_disc):
        disc_out[t] = got[n_own + t]
    for t in range(n_own):
        hands[0, t] = got[t]
    hand_len[0] = n_own
    known[:] = 0
    for t in range(seen_n):
        known[got[t]] = 1
    if has_known and drawn_face >= 0:
        known[got[n_own - 1]] = 1
    shuffle(mt, mti, r, 0, hands[0], 0, n_own - (1 if drawn_face >= 0 else 0))
    return OK


@njit(cache=True, error_model="numpy")
def sample_cards(mt: np.ndarray, mti: np.ndarray, r: int, act: np.ndarray, hid: np.ndarray,
                 sides: bool, pair_ok: np.ndarray, own: np.ndarray, own_known: np.ndarray,
                 disc: np.ndarray, top: int, sizes: np.ndarray, opp_hidden: np.ndarray,
                 pile_n: int, pile_top: int, drawn_face: int, cap: int, hands: np.ndarray,
                 hand_len: np.ndarray, pile: np.ndarray, disc_out: np.ndarray,
                 known: np.ndarray) -> int:
    """``determinize._sample_cards``'s tries: OK, BAD or NO_DEAL (none in ``TRIES``)."""
    for _ in range(TRIES):
        st = _fill(mt, mti, r, act, hid, sides, pair_ok, own, own_known, disc, top, sizes,
                   opp_hidden, pile_n, pile_top, drawn_face, cap, hands, hand_len, pile,
                   disc_out, known)
        if st != RETRY:
            return st
    return NO_DEAL


@njit(cache=True, error_model="numpy")
def respect(mt: np.ndarray, mti: np.ndarray, r: int, face: np.ndarray, hand: np.ndarray,
            hlen: int, pile: np.ndarray, plen: int, avoid: np.ndarray, allowed: np.ndarray,
            navoid: int, need: np.ndarray) -> None:
    """``uno_env.inference.respect`` on physical cards (``face``: side 0's faces)."""
    nf = need.shape[0]
    idx = np.empty(max(hlen, plen) + 1, np.int64)
    if need.any():
        have = np.zeros(nf, np.int64)
        for i in range(hlen):
            have[face[hand[i]]] += 1
        short = np.empty(nf, np.int64)
        nshort = 0
        for f in range(nf):
            if need[f] > have[f]:
                short[nshort] = f
                nshort += 1
        js = np.empty(plen + 1, np.int64)
        for u in range(nshort):
            f = short[u]
            want = need[f] - have[f]
            nj = 0
            for j in range(plen):
                if nj < want and face[pile[j]] == f:
                    js[nj] = j
                    nj += 1
            for v in range(nj):
                j = js[v]
                nsp = 0
                for i in range(hlen):
                    g = face[hand[i]]
                    if have[g] > need[g]:
                        idx[nsp] = i
                        nsp += 1
                if nsp == 0:
                    break
                i = idx[randbelow(mt, mti, r, 0, nsp)]
                have[face[hand[i]]] -= 1
                have[f] += 1
                c = hand[i]
                hand[i] = pile[j]
                pile[j] = c
    if navoid == 0:
        return
    banned = np.zeros(nf, np.bool_)
    for k in range(navoid):
        for f in range(nf):
            if avoid[k, f]:
                banned[f] = True
    free = np.empty(plen + 1, np.int64)
    nfree = 0
    for j in range(plen):
        if not banned[face[pile[j]]]:
            free[nfree] = j
            nfree += 1
    shuffle(mt, mti, r, 0, free, 0, nfree)
    for k in range(navoid):
        kept = need.copy()
        nbad = 0
        inside = 0
        for i in range(hlen):
            g = face[hand[i]]
            if avoid[k, g]:
                inside += 1
                if kept[g] > 0:
                    kept[g] -= 1
                else:
                    idx[nbad] = i
                    nbad += 1
        shuffle(mt, mti, r, 0, idx, 0, nbad)
        over = inside - allowed[k]
        while over > 0 and nbad > 0 and nfree > 0:
            nbad -= 1
            nfree -= 1
            i, j = idx[nbad], free[nfree]
            c = hand[i]
            hand[i] = pile[j]
            pile[j] = c
            over -= 1
