"""Borrowed array views without reference counting, for the inside of kernels.

numba counts references to every array a function touches (an atomic call per access in
branchy code); our kernels touch dozens of arrays per decision, which made that counting
cost more than the game. ``borrow(a)`` is ``a`` with no meminfo, so counting does nothing;
a kernel borrows its arguments on entry (the caller keeps the real arrays alive) and never
lets a borrowed view escape.
"""

from __future__ import annotations

from typing import Any

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from uno_env.batch.layout import Batch
from uno_env.batch.tables import Tables


@intrinsic
def borrow(typingctx: Any, arr: Any) -> Any:
    if not isinstance(arr, types.Array):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder)
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        out.nitems = src.nitems
        out.itemsize = src.itemsize
        out.data = src.data
        out.shape = src.shape
        out.strides = src.strides
        return out._getvalue()

    return arr(arr), codegen


@njit(cache=True)
def borrow_batch(s: Batch) -> Batch:
    return Batch(
        borrow(s.S),
        borrow(s.rng),
        borrow(s.seeder),
        borrow(s.pile),
        borrow(s.disc),
        borrow(s.disc_counts),
        borrow(s.loc),
        borrow(s.acq),
        borrow(s.known),
        borrow(s.counts),
        borrow(s.hand_len),
        borrow(s.uno_called),
        borrow(s.power),
        borrow(s.revealed),
        borrow(s.revealed_from),
        borrow(s.scores),
        borrow(s.rr_winner),
        borrow(s.rr_blocked),
        borrow(s.rr_points),
        borrow(s.rr_values),
        borrow(s.rew),
        borrow(s.cum),
        borrow(s.legal),
    )


@njit(cache=True)
def borrow_tables(t: Tables) -> Tables:
    return Tables(
        t.n,
        t.nf,
        t.nc,
        t.na,
        t.hand_size,
        borrow(t.side_faces),
        borrow(t.face_color),
        borrow(t.face_symbol),
        borrow(t.face_effect),
        borrow(t.face_draw),
        borrow(t.face_points),
        borrow(t.face_wild),
        borrow(t.face_chal),
        borrow(t.flex_effect),
        borrow(t.flex_draw),
        borrow(t.flex_wild),
        borrow(t.flex_chal),
        borrow(t.power_flip),
        borrow(t.match),
        borrow(t.flex_match),
        borrow(t.face_cards),
        borrow(t.reverse_face),
        borrow(t.first_redraw),
        borrow(t.act_type),
        borrow(t.act_arg),
        borrow(t.play_two),
        borrow(t.play_flex),
        borrow(t.color_act),
        borrow(t.target_act),
        t.draw_a,
        t.pass_a,
        t.challenge_a,
        t.accept_a,
        t.uno_a,
        t.catch_a,
        t.uno_mode,
        t.uno_penalty,
        t.stacking,
        t.double_play,
        t.jump_in,
        t.reverse_back,
        t.has_flex,
        t.power_cards,
        t.sides,
        t.numbers_only,
        t.dealer_chooses,
        t.honest_wild,
        t.penalty_scoring,
        t.target_score,
        t.match_episode,
        t.reward_points,
        t.max_steps,
        t.rounds_kept,
        t.obs_dim,
        borrow(t.obs_at),
    )
