"""Borrowed array views without reference counting, for the inside of kernels.

numba counts references to every array a function touches (an atomic call per access in
branchy code); our kernels touch dozens of arrays per decision, which made that counting
cost more than the game. ``borrow(a)`` is ``a`` with no meminfo, so counting does nothing;
a kernel borrows its arguments on entry (the caller keeps the real arrays alive) and never
lets a borrowed view escape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.datamodel import models, register_default
from numba.core.imputils import impl_ret_borrowed, lower_getattr_generic
from numba.core.typing.templates import AttributeTemplate, infer_getattr
from numba.extending import intrinsic

from uno_env.batch.cache import njit
from uno_env.batch.layout import Batch
from uno_env.batch.tables import Tables


class BorrowedArray(types.Array):
    """An array type whose values carry no meminfo: numba emits no reference counting."""

    def __init__(self, dtype: Any, ndim: int, layout: str, readonly: bool = False,
                 aligned: bool = True) -> None:
        super().__init__(dtype, ndim, layout, readonly=readonly,  # type: ignore[call-overload]
                         aligned=aligned,
                         name=f"borrowed({dtype}, {ndim}d, {layout})")

    def copy(self, dtype: Any = None, ndim: Any = None, layout: Any = None,  # type: ignore[override]
             readonly: Any = None, aligned: Any = None) -> BorrowedArray:
        return BorrowedArray(self.dtype if dtype is None else dtype,
                             self.ndim if ndim is None else ndim,
                             self.layout if layout is None else layout,
                             self.mutable is False if readonly is None else readonly,
                             self.aligned if aligned is None else aligned)

    @property
    def key(self) -> Any:
        return ("borrowed", *super().key)


@register_default(BorrowedArray)
class _BorrowedModel(models.ArrayModel):
    """The array layout, minus the meminfo member that reference counting looks for."""

    def has_nrt_meminfo(self) -> bool:
        return False

    def traverse(self, builder: Any) -> list[Any]:
        return []

    def traverse_models(self) -> list[Any]:
        return []


@intrinsic
def _borrow(typingctx: Any, arr: Any) -> Any:
    if not isinstance(arr, types.Array) or isinstance(arr, BorrowedArray):
        return None
    out_t = BorrowedArray(arr.dtype, arr.ndim, arr.layout)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(out_t)(context, builder)
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        out.nitems = src.nitems
        out.itemsize = src.itemsize
        out.data = src.data
        out.shape = src.shape
        out.strides = src.strides
        return out._getvalue()

    return out_t(arr), codegen


borrow = cast(Callable[[Any], Any], _borrow)  # the intrinsic, typed for calls from kernels


# <generated borrow>: python -m uno_env.codegen (uno_env/rules/table.py)
@njit(cache=True, error_model="numpy")
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
        borrow(s.hid_counts),
        borrow(s.hid_unseen),
        borrow(s.uno_called),
        borrow(s.power),
        borrow(s.revealed),
        borrow(s.revealed_from),
        borrow(s.scores),
        borrow(s.declined),
        borrow(s.drawn_since),
        borrow(s.rr_winner),
        borrow(s.rr_blocked),
        borrow(s.rr_points),
        borrow(s.rr_values),
        borrow(s.rew),
        borrow(s.cum),
        borrow(s.legal),
    )


@njit(cache=True, error_model="numpy")
def borrow_tables(t: Tables) -> Tables:
    return Tables(
        t.n,
        t.nf,
        t.nc,
        t.na,
        t.hand_size,
        borrow(t.side_faces),
        borrow(t.ft),
        borrow(t.match),
        borrow(t.flex_match),
        borrow(t.face_cards),
        borrow(t.reverse_face),
        borrow(t.color_act),
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
        t.voluntary_draw,
        t.catch_until_out,
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
    )
# </generated borrow>


class Ref(types.Type):
    """A pointer to a named tuple (the state or the tables) living in a kernel's frame.

    numba passes a named tuple by value, member by member: the state's 23 arrays and the
    tables were ~330 machine words copied onto the stack on every call of a rule function.
    A ``Ref`` is one pointer; ``r.field`` loads the member where it is used."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        super().__init__(name=f"ref({inner})")


@register_default(Ref)
class _RefModel(models.PrimitiveModel):
    def __init__(self, dmm: Any, fe_type: Ref) -> None:
        be_type = dmm.lookup(fe_type.inner).get_value_type().as_pointer()
        super().__init__(dmm, fe_type, be_type)


@infer_getattr
class _RefAttributes(AttributeTemplate):
    key = Ref

    def generic_resolve(self, ty: Ref, attr: str) -> Any:  # type: ignore[override]
        if attr in ty.inner.fields:
            return ty.inner.types[ty.inner.fields.index(attr)]
        return None


@lower_getattr_generic(Ref)
def _ref_getattr(context: Any, builder: Any, ty: Ref, value: Any, attr: str) -> Any:
    k = ty.inner.fields.index(attr)
    member = builder.load(cgutils.gep_inbounds(builder, value, 0, k))
    return impl_ret_borrowed(context, builder, ty.inner.types[k], member)


@intrinsic
def _as_ref(typingctx: Any, tup: Any) -> Any:
    """``tup`` stored once in the calling kernel's frame; valid until that kernel returns,
    so a kernel makes its refs on entry and never returns one."""
    if not isinstance(tup, types.BaseNamedTuple):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ptr = cgutils.alloca_once(builder, context.get_value_type(tup))
        builder.store(args[0], ptr)
        return ptr

    return Ref(tup)(tup), codegen


as_ref = cast(Callable[[Any], Any], _as_ref)  # the intrinsic, typed for a call from a kernel


@njit(cache=True, inline="always", error_model="numpy")
def unsigned(j: int) -> int:
    """A game index as ``uint64``: numba then emits no negative-index wraparound on each
    access with it (1.07x). Only an index: ``uint64 op int64`` would be float64 in numba."""
    return np.uint64(j)  # type: ignore[return-value]
