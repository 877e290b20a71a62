"""G-score, F-alt-score, E-end and G-blocked; the rewards raw_env pays for them."""

from __future__ import annotations

from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.deal import deal
from uno_env.batch.layout import DEALER, NROUNDS, PHASE, Batch
from uno_env.batch.tables import Tables
from uno_env.rules.codes import P_OVER


@njit(cache=True, error_model="numpy")
def hand_value(s: Batch, t: Tables, i: int, seat: int) -> int:
    v = 0
    for f in range(t.nf):
        v += t.ft[T.FT_FACE_POINTS, f] * s.counts[i, seat, f]
    return v


@njit(cache=True, error_model="numpy")
def end_round(s: Batch, t: Tables, i: int, winner: int) -> None:
    """Score the round (``winner`` < 0: blocked), pay ``reward="points"``, deal the next
    round of a match or end the episode."""
    n = t.n
    r = s.S[i, NROUNDS] % t.rounds_kept  # older rounds of a long match are overwritten
    vals = s.rr_values[i, r]
    pts = s.rr_points[i, r]
    total = 0
    low = -1
    for q in range(n):
        vals[q] = hand_value(s, t, i, q)
        total += vals[q]
        if low < 0 or vals[q] < low:
            low = vals[q]
    blocked = winner < 0
    if blocked:
        k = 0
        for q in range(n):
            if vals[q] == low:
                k += 1
                winner = q
        if k != 1:
            winner = -1
    pts[:] = 0
    if winner >= 0:
        if t.penalty_scoring:
            for q in range(n):
                pts[q] = 0 if q == winner else vals[q]
        else:
            pts[winner] = total - vals[winner]
    best = 0
    for q in range(n):
        s.scores[i, q] += pts[q]
        best = max(best, s.scores[i, q])
    s.rr_winner[i, r] = winner
    s.rr_blocked[i, r] = blocked
    s.S[i, NROUNDS] += 1
    if t.reward_points and winner >= 0:
        for q in range(n):
            if t.penalty_scoring:
                if q != winner:
                    s.rew[i, q] += -pts[q] / 100.0
            elif q == winner:
                s.rew[i, q] += pts[q] / 100.0
            else:
                s.rew[i, q] += -vals[q] / 100.0
    if t.match_episode and best < t.target_score:
        deal(s, t, i, (s.S[i, DEALER] + 1) % n)  # G-dealer: the deal passes left
        return
    s.S[i, PHASE] = P_OVER


@njit(cache=True, error_model="numpy")
def pay_episode(s: Batch, t: Tables, i: int) -> None:
    """``reward="win_loss"``: the winners share +1, the others share -1 (zero-sum)."""
    if t.reward_points:
        return
    n = t.n
    sc = s.scores[i]
    if t.match_episode:
        best = sc[0]
        for q in range(n):
            best = min(best, sc[q]) if t.penalty_scoring else max(best, sc[q])
        nw = 0
        for q in range(n):
            nw += sc[q] == best
        if nw == n:
            return
        for q in range(n):
            s.rew[i, q] += 1.0 / nw if sc[q] == best else -1.0 / (n - nw)
        return
    w = s.rr_winner[i, (s.S[i, NROUNDS] - 1) % t.rounds_kept]
    if w < 0:
        return
    for q in range(n):
        s.rew[i, q] += 1.0 if q == w else -1.0 / (n - 1)
