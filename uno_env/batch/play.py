"""Applying one decision and resolving the card played (C-, F-, X-, E-effects, G-uno,
C-jump-in, E-reverse-back), mirroring ``State._apply``, ``_play``, ``_run`` and ``_effect``."""

from __future__ import annotations

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch import tables as T
from uno_env.batch.cache import njit
from uno_env.batch.deal import start_turn
from uno_env.batch.effects import (
    after_victim,
    ask_catch,
    catch_victim,
    effect,
    open_window,
    take_draw,
    top_face,
)
from uno_env.batch.layout import Batch
from uno_env.batch.piles import draw, flip_powers, hold_hidden
from uno_env.batch.scoring import end_round
from uno_env.batch.support import PASS_JUMP_IN
from uno_env.batch.tables import Tables
from uno_env.cards import WILD
from uno_env.rules.codes import (
    ACCEPT,
    CATCH,
    CHALLENGE,
    COLOR,
    DRAW,
    P_CATCH,
    P_COLOR,
    P_DRAWN,
    P_PLAY,
    P_TARGET,
    PASS,
    PLAY,
    PLAY_FLEX,
    PLAY_TWO,
    ST_CATCH,
    ST_EFFECT,
    ST_NEXT,
    ST_TARGET,
    ST_WINDOW,
    TARGET,
    UNO,
    UNO_AUTO,
    UNO_OFF,
)


@njit(cache=True, inline="always", error_model="numpy")
def _oldest(s: Batch, t: Tables, i: int, seat: int, f: int) -> int:
    """The card of face ``f`` that ``seat`` has held longest."""
    best = -1
    cards = t.face_cards[s.S[i, L.SIDE], f]
    for k in range(cards.shape[0]):
        c = cards[k]
        if c >= 0 and s.loc[i, c] == seat and (best < 0 or s.acq[i, c] < s.acq[i, best]):
            best = c
    return best


@njit(cache=True, inline="always", error_model="numpy")
def _discard(s: Batch, t: Tables, i: int, seat: int, c: int, f: int) -> None:
    hold_hidden(s, t, i, s.S[i, L.SIDE], seat, c, -1)
    s.loc[i, c] = -1
    s.counts[i, seat, f] -= 1
    s.disc[i, s.S[i, L.DISC_LEN]] = c
    s.S[i, L.DISC_LEN] += 1
    s.S[i, L.TOP] = f
    s.disc_counts[i, f] += 1


@njit(cache=True, inline="always", error_model="numpy")
def _is_honest(s: Batch, t: Tables, i: int, seat: int, prior: int) -> bool:
    """G-wd-challenge (X-effects: another wild in hand also counts)."""
    for f in range(t.nf):
        col = t.ft[T.FT_FACE_COLOR, f]
        if s.counts[i, seat, f] and (col == prior or (t.honest_wild and col == WILD)):
            return False
    return True


@njit(cache=True, inline="always", error_model="numpy")
def play(s: Batch, t: Tables, i: int, p: int, f: int, card: int, two: bool,
         flex: bool) -> None:
    """Put a card of face ``f`` on the discard pile (``card`` if given, else the one held
    longest; two for a double play), then resolve it."""
    S = s.S
    if card >= 0:
        S[i, L.DRAWN] = -1
    else:
        card = _oldest(s, t, i, p, f)
    prior = S[i, L.COLOR]
    _discard(s, t, i, p, card, f)
    left = s.hand_len[i, p] - 1
    if two:  # C-double-play: the second counts as played on the first
        _discard(s, t, i, p, _oldest(s, t, i, p, f), f)
        left -= 1
    s.hand_len[i, p] = left
    s.drawn_since[i, p] = 0
    if s.declined[i, p]:  # p held a card of that colour: what its decline said is stale
        color = t.ft[T.FT_FACE_COLOR, f]
        if color != WILD:
            s.declined[i, p] &= ~np.uint8(1 << color)
    S[i, L.PASSES] = 0
    S[i, L.PLAY_SEAT] = p
    S[i, L.GOING_OUT] = left == 0
    S[i, L.FLEX_PLAY] = flex
    if flex:
        wild = t.ft[T.FT_FLEX_WILD, f]
        S[i, L.STAGE] = ST_TARGET if t.ft[T.FT_FLEX_TARGETED, f] else ST_CATCH
        if s.power[i, p]:
            flip_powers(s, t, i, p)  # X-power (i): turns red
    else:
        wild = t.ft[T.FT_FACE_WILD, f]
        S[i, L.STAGE] = ST_CATCH
        if t.ft[T.FT_POWER_FLIP, f]:  # X-power (ii): the flip symbol
            flip_powers(s, t, i, p)
    if t.ft[T.FT_FLEX_CHAL, f] if flex else t.ft[T.FT_FACE_CHAL, f]:
        S[i, L.CHAL_SEAT] = p
        S[i, L.HONEST] = _is_honest(s, t, i, p, prior)
    if wild:
        # G-wild-color; a last card's colour does not matter, except for a face whose
        # effect reads it (Face.color_on_last: Flip's Wild Draw Colour)
        if left != 0 or (not flex and t.ft[T.FT_COLOR_ON_LAST, f]):
            S[i, L.COLOR] = WILD  # none until chosen (never the previous one)
            S[i, L.CUR] = p
            S[i, L.PHASE] = P_COLOR
            return
    else:  # X-flex-play: the card then lies as its normal face, whose colour counts
        S[i, L.COLOR] = t.ft[T.FT_FACE_COLOR, f]
    run(s, t, i)


@njit(cache=True, error_model="numpy")
def run(s: Batch, t: Tables, i: int) -> None:
    """Resolve the played card from the stage it stopped at until a decision is needed."""
    S = s.S
    n = t.n
    st = S[i, L.STAGE]
    if st == ST_TARGET:  # X-effects: the colour first, then the victim
        if n == 2:
            S[i, L.TARGET] = 1 - S[i, L.PLAY_SEAT]
        else:
            S[i, L.STAGE] = ST_CATCH
            S[i, L.CUR] = S[i, L.PLAY_SEAT]
            S[i, L.PHASE] = P_TARGET
            return
        st = ST_CATCH
    if st == ST_CATCH:  # G-uno: after the card's own choices, before its effect
        p = S[i, L.PLAY_SEAT]
        if t.uno_mode != UNO_OFF and s.hand_len[i, p] == 1 and not s.uno_called[i, p]:
            if t.uno_mode == UNO_AUTO:
                draw(s, t, i, p, t.uno_penalty)
            elif not t.catch_until_out and ask_catch(s, t, i, (p + S[i, L.DIR]) % n):
                S[i, L.STAGE] = ST_EFFECT
                return
        st = ST_EFFECT
    if st == ST_EFFECT:
        S[i, L.STAGE] = ST_WINDOW
        if effect(s, t, i):
            return
        st = ST_WINDOW
    if st == ST_WINDOW:
        if S[i, L.GOING_OUT]:  # G-win-round: after the last card's effect
            S[i, L.STAGE] = ST_NEXT
            end_round(s, t, i, S[i, L.PLAY_SEAT])
            return
        if t.jump_in and open_window(s, t, i, (S[i, L.PLAY_SEAT] + S[i, L.DIR]) % n):
            S[i, L.STAGE] = ST_NEXT
            return
    S[i, L.STAGE] = ST_NEXT
    start_turn(s, i, S[i, L.NEXT_SEAT])


@njit(cache=True, error_model="numpy")
def apply(s: Batch, t: Tables, i: int, a: int) -> None:
    """One decision of the current player (already known to be legal)."""
    S = s.S
    kind = t.ft[T.FT_ACT_TYPE, a]
    p = S[i, L.CUR]
    ph = S[i, L.PHASE]
    n = t.n
    drawn = S[i, L.DRAWN] if ph == P_DRAWN else -1
    if kind == PLAY:  # "play <face f>" is action f
        S[i, L.BOUNCE] = t.ft[T.FT_PHASE_ANSWERS, ph]  # E-reverse-back: Variant.answers
        play(s, t, i, p, a, drawn, False, False)
    elif kind == DRAW:
        if draw(s, t, i, p, 1):
            S[i, L.PASSES] = 0
            S[i, L.DRAWN] = S[i, L.LAST_DRAWN]
            S[i, L.PHASE] = P_DRAWN
        else:  # G-reshuffle / G-blocked: nothing to draw, the turn ends
            S[i, L.PASSES] += 1
            if S[i, L.PASSES] >= n:
                end_round(s, t, i, -1)
            else:
                start_turn(s, i, (p + S[i, L.DIR]) % n)
    elif kind == PASS:
        if ph == P_DRAWN:  # G-draw-then-play: keep the drawn card
            s.declined[i, p] |= np.uint8(1 << S[i, L.COLOR])
            start_turn(s, i, (p + S[i, L.DIR]) % n)
        elif ph == P_CATCH:
            if not ask_catch(s, t, i, (p + S[i, L.DIR]) % n):
                run(s, t, i)
        elif (t.ft[T.FT_PHASE_PASS, ph] == PASS_JUMP_IN  # Variant.passes (batch/support.py)
              and not open_window(s, t, i, (p + S[i, L.DIR]) % n)):
            run(s, t, i)
    elif kind == COLOR:
        S[i, L.COLOR] = t.ft[T.FT_ACT_ARG, a]
        run(s, t, i)
    elif kind == ACCEPT:
        take_draw(s, t, i, p, 0)
        S[i, L.NEXT_SEAT] = after_victim(s, t, i, p)
        S[i, L.STAGE] = ST_WINDOW
        run(s, t, i)
    elif kind == CHALLENGE:
        q = S[i, L.CHAL_SEAT]
        s.revealed[i, p, :] = s.counts[i, q, :]  # G-wd-challenge: shown to p only
        s.revealed_from[i, p] = q
        if S[i, L.HONEST]:
            take_draw(s, t, i, p, 2)
            S[i, L.NEXT_SEAT] = after_victim(s, t, i, p)
        else:
            take_draw(s, t, i, q, 0)
            S[i, L.NEXT_SEAT] = p if S[i, L.SKIP_VICTIM] else (
                S[i, L.PLAY_SEAT] + S[i, L.DIR]) % n
        S[i, L.STAGE] = ST_WINDOW
        run(s, t, i)
    elif kind == TARGET:  # X-effects: k seats after the player in the current direction
        S[i, L.TARGET] = (p + t.ft[T.FT_ACT_ARG, a] * S[i, L.DIR]) % n
        run(s, t, i)
    elif kind == PLAY_FLEX:
        S[i, L.BOUNCE] = 0
        play(s, t, i, p, t.ft[T.FT_ACT_ARG, a], drawn, False, True)
    elif kind == UNO:
        s.uno_called[i, p] = 1
    elif kind == CATCH:
        if ph == P_CATCH:
            draw(s, t, i, S[i, L.PLAY_SEAT], t.uno_penalty)
            run(s, t, i)
        else:  # catch_window="until-out": then the same decision goes on
            draw(s, t, i, catch_victim(s, t, i), t.uno_penalty)
    elif kind == PLAY_TWO:
        S[i, L.BOUNCE] = 0
        play(s, t, i, p, t.ft[T.FT_ACT_ARG, a], -1, True, False)


__all__ = ["P_PLAY", "apply", "top_face"]
