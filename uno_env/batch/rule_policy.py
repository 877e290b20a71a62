"""The rule agent (``agents/rule.py``) as a numba kernel over the batch state.

It reads the same facts the Python agent decodes from its observation, straight from the
state (own ``counts`` = ``hand``, ``disc_counts`` = ``discard``, ``TOP``, ``COLOR``, ``DIR``,
``hand_len`` = ``opp_hand_size``, ``SIDE`` = ``dark_side``, hidden faces by ``loc``/``known``
= ``opp_hidden``/``own_hidden``), and reproduces its arithmetic: scores in float64 in the
same order of operations, ties to the first maximum in the agent's ``plays`` order, and the
bluff estimate in float32 as NumPy 2 computes it there (``np.float32`` with Python floats
stays float32; ``np.mean`` sums in order and divides in float32). The action table is the
agent's own parse (``RuleAgent._kind``/``_arg``; ``uno_env.batch.rule_tables``), so both read
one declaration.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch.cache import njit
from uno_env.batch.layout import Batch
from uno_env.batch.rule_tables import (
    EC_DRAW,
    EC_FLIP,
    EC_SKIP,
    EC_TEMPO,
    F_COLOR,
    F_DRAW,
    F_POINTS,
    F_SIDE,
    F_WILD,
    R_ARG,
    R_CARDS,
    R_CHAL,
    R_COLOR,
    R_EFFECT,
    R_FLEX,
    R_KIND,
    R_SIDE,
    R_WILD,
    WILD_BIN,
    RuleTables,
)
from uno_env.batch.tables import Tables
from uno_env.cards import NUM_COLORS


@njit(cache=True, error_model="numpy")
def _side(s: Batch, t: Tables, rt: RuleTables, i: int) -> int:
    """RuleAgent._side: Flip's ``dark_side``, else the top face's side."""
    if t.sides:
        return 1 if s.S[i, L.SIDE] > 0 else 0
    side: int = rt.face[F_SIDE, s.S[i, L.TOP]]
    return side


@njit(cache=True, error_model="numpy")
def _flip_bonus(s: Batch, t: Tables, rt: RuleTables, i: int, seat: int) -> float:
    """RuleAgent._flip_bonus: the hidden faces of the next player (F-visibility)."""
    if not t.sides:
        return 0.0
    nxt = (seat + s.S[i, L.DIR]) % t.n
    hidden = t.side_faces[s.S[i, L.SIDE] ^ 1]
    strong, own = 0, 0
    for c in range(t.nc):
        q = s.loc[i, c]
        if q == nxt:
            f = hidden[c]
            strong += rt.face[F_WILD, f] + rt.face[F_DRAW, f]
        elif q == seat and s.known[i, c]:
            own += rt.face[F_WILD, hidden[c]]
    bonus = 8.0 - 8.0 * strong
    bonus += 4.0 * own
    return -16.0 if bonus < -16.0 else bonus  # max(bonus, -16.0)


@njit(cache=True, inline="always", error_model="numpy")
def _held(s: Batch, rt: RuleTables, om: Any, i: int, seat: int) -> None:
    """``om.scratch[i, bin]``: the hand's cards of each colour bin (``WILD_BIN``: wilds),
    summed over the runs of faces of one bin (a branch per held face mispredicted)."""
    held = om.scratch
    for k in range(WILD_BIN + 1):
        held[i, k] = 0
    row = s.counts[i, seat]
    runs = rt.runs
    for r in range(runs.shape[0]):
        c = 0
        for f in range(runs[r, 0], runs[r, 1]):
            c += row[f]
        held[i, runs[r, 2]] += c


@njit(cache=True, inline="always", error_model="numpy")
def _best_play(s: Batch, t: Tables, rt: RuleTables, om: Any, i: int, seat: int,
               n_plays: int) -> int:
    """The first play with the highest RuleAgent._play_score (``n_plays`` are legal)."""
    lg = s.legal
    act = rt.act
    base = rt.base
    order = rt.play_order
    held = om.scratch
    _held(s, rt, om, i, seat)
    wilds = held[i, WILD_BIN]
    danger = s.hand_len[i, (seat + s.S[i, L.DIR]) % t.n] <= 2
    flip_done = False
    flip = 0.0
    best, best_score = -1, 0.0
    seen = 0
    for j in range(order.shape[0]):
        a = order[j]
        if a < 0 or not lg[i, a]:
            continue
        ec = act[R_EFFECT, a]
        score = base[a]
        if ec == EC_DRAW:
            score += 30.0 if danger else 6.0
        elif ec == EC_TEMPO:
            score += 25.0 if danger else 5.0
        elif ec == EC_SKIP:
            if danger:
                score += 25.0
        elif ec == EC_FLIP:
            if not flip_done:
                flip = _flip_bonus(s, t, rt, i, seat)
                flip_done = True
            score += flip
        cards = act[R_CARDS, a]
        if cards == 2:
            score += 15.0
        if act[R_FLEX, a]:
            score -= 3.0
        if act[R_WILD, a]:
            if act[R_CHAL, a] and wilds > 1:
                score = score - 65.0
            else:
                score = score - (50.0 if ec == EC_DRAW else 60.0)
        else:
            same = float(held[i, act[R_SIDE, a] * NUM_COLORS + act[R_COLOR, a]])
            score = score + 10.0 * (same - cards)
        if best < 0 or score > best_score:
            best, best_score = a, score
        seen += 1
        if seen == n_plays:  # no legal play after this one
            break
    return best


@njit(cache=True, error_model="numpy")
def _choose_color(s: Batch, t: Tables, rt: RuleTables, i: int, seat: int) -> int:
    """RuleAgent._choose_color: most held, then most points held, then most discarded."""
    best = -1
    b0, b1, b2 = 0, 0, 0
    runs = rt.runs
    cnt = s.counts[i, seat]
    disc = s.disc_counts[i]
    points = rt.face[F_POINTS]
    for a in range(rt.n_lead, t.na):  # the leading actions are plays
        if not s.legal[i, a] or rt.act[R_KIND, a] != rt.k_color:
            continue
        b = rt.act[R_SIDE, a] * NUM_COLORS + rt.act[R_ARG, a]
        k0, k1, k2 = 0, 0, 0
        for r in range(runs.shape[0]):
            if runs[r, 2] != b:
                continue
            for f in range(runs[r, 0], runs[r, 1]):
                h = cnt[f]
                k0 += h
                k1 += h * points[f]
                k2 += disc[f]
        if best < 0 or k0 > b0 or (k0 == b0 and (k1 > b1 or (k1 == b1 and k2 > b2))):
            best, b0, b1, b2 = a, k0, k1, k2
    return best


@njit(cache=True, error_model="numpy")
def _choose_target(s: Batch, t: Tables, rt: RuleTables, i: int, seat: int) -> int:
    """RuleAgent._choose_target: the fewest cards (then the nearest seat)."""
    n = t.n
    ccw = s.S[i, L.DIR] < 0
    best, b_size, b_k = -1, 0, 0
    for a in range(t.na):
        if not s.legal[i, a] or rt.act[R_KIND, a] != rt.k_target:
            continue
        k = rt.act[R_ARG, a]
        rel = (n - k) % n if ccw else k
        size = s.hand_len[i, (seat + rel) % n]
        if best < 0 or size < b_size or (size == b_size and k < b_k):
            best, b_size, b_k = a, size, k
    return best


@njit(cache=True, error_model="numpy")
def _bluff_chance(s: Batch, t: Tables, rt: RuleTables, om: Any, i: int,
                  seat: int) -> float:
    """RuleAgent._bluff_chance, float32 where NumPy computes it in float32."""
    side = _side(s, t, rt, i)
    top = s.S[i, L.TOP]
    disc = s.disc_counts
    prev = om.prev_discard
    cand = 0  # bit c: colour c is a candidate for the previous colour
    if om.has_prev[i, seat]:
        ok = True
        for f in range(t.nf):
            if int(disc[i, f]) - prev[i, seat, f] - (1 if f == top else 0) < 0:
                ok = False
                break
        if ok:
            for f in range(t.nf):
                added = int(disc[i, f]) - prev[i, seat, f] - (1 if f == top else 0)
                if added and not rt.face[F_WILD, f] and rt.face[F_SIDE, f] == side:
                    cand |= 1 << rt.face[F_COLOR, f]
            pc = om.prev_color[i, seat]
            if cand == 0 and pc >= 0:
                cand = 1 << pc
    if cand == 0:
        cand = (1 << NUM_COLORS) - 1
    hand_total, disc_total = 0, 0
    for f in range(t.nf):
        hand_total += s.counts[i, seat, f]
        disc_total += disc[i, f]
    unseen = float(rt.num_cards) - float(hand_total) - float(disc_total)
    n = t.n
    before = (seat + 1) % n if s.S[i, L.DIR] < 0 else (seat + n - 1) % n
    held = s.hand_len[i, before]
    total = np.float32(0.0)
    m = 0
    for c in range(NUM_COLORS):
        if not cand >> c & 1:
            continue
        hc, dc = 0, 0
        for f in range(t.nf):
            if rt.face[F_SIDE, f] == side and rt.face[F_COLOR, f] == c and not rt.face[F_WILD, f]:
                hc += s.counts[i, seat, f]
                dc += disc[i, f]
        k = np.float32(rt.deck_color[side, c] - hc - dc)
        none = np.float32(1.0)
        for j in range(held):
            left = unseen - j
            if left <= 0:
                break
            x = np.float32(left) - k
            q = x / np.float32(left) if x >= np.float32(0.0) else np.float32(0.0)
            none = np.float32(none * q)
        total = np.float32(total + (np.float32(1.0) - none))
        m += 1
    return float(np.float32(total / np.float32(m)))


@njit(cache=True, inline="always", error_model="numpy")
def _remember(s: Batch, rt: RuleTables, om: Any, i: int, seat: int, a: int,
              nf: int) -> None:
    """RuleAgent._remember: the discard counts and colour once this decision is made."""
    prev = om.prev_discard
    disc = s.disc_counts
    for f in range(nf):
        prev[i, seat, f] = disc[i, f]
    col = s.S[i, L.COLOR]
    pc = col if col < NUM_COLORS else -1
    k = rt.act[R_KIND, a]
    if k == rt.k_play or k == rt.k_play_two or k == rt.k_play_flex:
        prev[i, seat, rt.act[R_ARG, a]] += rt.act[R_CARDS, a]
        pc = -1 if rt.act[R_WILD, a] else rt.act[R_COLOR, a]
    elif k == rt.k_color:
        pc = rt.act[R_ARG, a]
    om.prev_color[i, seat] = pc
    om.has_prev[i, seat] = 1


@njit(cache=True, inline="always", error_model="numpy")
def _first_set(lg: np.ndarray, i: int, end: int) -> int:
    """The first legal action below ``end`` (one is known to be legal there)."""
    a = 0
    while not lg[i, a] and a < end - 1:
        a += 1
    return a


@njit(cache=True, inline="always", error_model="numpy")
def rule_action(s: Batch, t: Tables, rt: RuleTables, om: Any, i: int, seat: int) -> int:
    """``RuleAgent.act`` for ``seat`` (the seat to act) in game ``i``; -1 if none is legal."""
    kind = rt.act[R_KIND]
    lg = s.legal
    nl = rt.n_lead
    lead = 0  # legal plays among the leading actions: a sum, no branch per action
    for a in range(nl):
        lead += lg[i, a]
    n_legal, first, n_plays, a_play = lead, -1, lead, -1
    a_uno, a_catch, a_chal, a_accept, a_pass, a_draw = -1, -1, -1, -1, -1, -1
    any_color, any_target = False, False
    for a in range(nl, t.na):
        if not lg[i, a]:
            continue
        n_legal += 1
        if first < 0:
            first = a
        k = kind[a]
        if k == rt.k_play or k == rt.k_play_two or k == rt.k_play_flex:
            n_plays += 1
            a_play = a
        elif k == rt.k_uno:
            a_uno = a if a_uno < 0 else a_uno
        elif k == rt.k_catch:
            a_catch = a if a_catch < 0 else a_catch
        elif k == rt.k_color:
            any_color = True
        elif k == rt.k_target:
            any_target = True
        elif k == rt.k_challenge:
            a_chal = a if a_chal < 0 else a_chal
        elif k == rt.k_accept:
            a_accept = a if a_accept < 0 else a_accept
        elif k == rt.k_pass:
            a_pass = a if a_pass < 0 else a_pass
        elif k == rt.k_draw:
            a_draw = a if a_draw < 0 else a_draw
    if n_legal == 0:
        return -1
    # with a leading play legal, the first legal action is the first leading one (and the
    # one play when there is one): looked up only where the agent reads it
    if n_legal == 1:
        action = _first_set(lg, i, nl) if lead else first
    elif a_uno >= 0:  # G-uno: always call
        action = a_uno
    elif a_catch >= 0:
        action = a_catch
    elif any_color:
        action = _choose_color(s, t, rt, i, seat)
    elif any_target:
        action = _choose_target(s, t, rt, i, seat)
    elif a_chal >= 0 and _bluff_chance(s, t, rt, om, i, seat) >= rt.threshold:
        action = a_chal
    elif n_plays == 1:
        action = a_play if a_play >= 0 else _first_set(lg, i, nl)
    elif n_plays > 1:
        action = _best_play(s, t, rt, om, i, seat, n_plays)
    elif a_accept >= 0:
        action = a_accept
    elif a_pass >= 0:
        action = a_pass
    elif a_draw >= 0:
        action = a_draw
    else:
        action = first
    if rt.track:
        _remember(s, rt, om, i, seat, action, t.nf)
    return action
