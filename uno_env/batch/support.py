"""What the batch kernels implement, and the check that a variant uses nothing else.

The kernels mirror the Python engine's rule code by hand: a branch per effect in
``effects.py``, a branch per phase in ``legal.py`` and ``play.py``, the variant hooks in
``deal.py`` and ``piles.py``. A variant is accepted only when every effect handler and hook
it uses (``Variant.effects``, ``decisions``, ``passes``, ``window``, ``more_plays``,
``take_pending``, ``first_discard``, ``is_honest``) is one listed here, whose mirror the
kernels have; otherwise :func:`check_variant` refuses with the unknown ones named. Without
it a new effect would run on the kernels' nearest branch and diverge in rare states.
Adding a kernel for an effect or phase: the branch, then its handler here.
"""

from __future__ import annotations

from typing import Any

from uno_env import cards as K
from uno_env.rules.codes import (
    CORE_EFFECT_NAMES,
    E_DRAW,
    E_NUMBER,
    E_REVERSE,
    E_SKIP,
    E_WILD,
    E_WILD_DRAW,
    PHASES,
    effect_code,
)
from uno_env.rules.effects import CORE_EFFECTS, effect_table
from uno_env.variants import base, express, flex, flip
from uno_env.variants.base import Variant

# Effect name -> the Python handlers whose behaviour the kernel branch of that effect mirrors.
EFFECTS: dict[str, tuple[Any, ...]] = {
    K.NUMBER: (CORE_EFFECTS[E_NUMBER],),
    K.WILD_PLAIN: (CORE_EFFECTS[E_WILD],),
    K.SKIP: (CORE_EFFECTS[E_SKIP], express.skip),  # express: E-reverse-back (t.reverse_back)
    K.REVERSE: (CORE_EFFECTS[E_REVERSE], express.reverse),
    K.DRAW: (CORE_EFFECTS[E_DRAW], express.draw_one),
    K.WILD_DRAW: (CORE_EFFECTS[E_WILD_DRAW],),
    K.SKIP_EVERYONE: (base.skip_everyone,),
    K.FLIP: (flip.flip_sides,),
    K.WILD_DRAW_COLOR: (flip.wild_draw_color,),
    K.REVERSE_SKIP: (flex.reverse_skip,),
    K.ALL_DRAW: (flex.all_draw,),
    K.TARGET_DRAW: (flex.target_draw,),
    K.ALL_FLIP: (flex.all_flip,),
}
# Phase name -> its legal decisions (Variant.decisions) that legal.compute_legal mirrors;
# the core phases are computed inline by both engines.
CORE_PHASES = ("play", "drawn", "color", "challenge", "stack", "catch", "over")
DECISIONS: dict[str, Any] = {"jump-in": base.jump_in_decisions,
                             "reverse-back": express.reverse_back_decisions,
                             "target": flex.target_decisions}
# What a pass in a variant's phase means (Variant.passes): kernel code per handler, the
# value of the tables' PHASE_PASS row (0: no pass in that phase).
PASS_NONE, PASS_JUMP_IN = 0, 1
PASSES: dict[Any, int] = {base.pass_jump_in: PASS_JUMP_IN}
# The single-function hooks (None: unused) and the first-discard hooks by effect name.
HOOKS: dict[str, tuple[Any, ...]] = {
    "window": (None, base.jump_in_window),
    "more_plays": (None, flex.flex_plays),
    "take_pending": (None, flip.draw_until_color),
}
FIRST_DISCARD: dict[str, Any] = {K.FLIP: flip.flip_first}


def _label(fn: Any) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}"


def problems(variant: Variant) -> list[str]:
    """What ``variant`` uses that the kernels lack (empty: the batch engine plays it)."""
    out: list[str] = []
    fn: Any  # a handler or hook of each kind in turn
    handlers = effect_table(variant)
    used = {f.effect for f in variant.faces}
    used |= {f.effect for f in variant.flex_faces if f is not None}
    for name in sorted(used):
        fn = handlers[effect_code(name)]
        if fn not in EFFECTS.get(name, ()):
            out.append(f"effect {name!r} (handler {_label(fn)}) has no kernel")
    for name in sorted({*variant.decisions, *variant.passes, *variant.answers}):
        if name not in PHASES:
            out.append(f"phase {name!r} is not a phase; phases: {', '.join(PHASES)}")
        elif name in CORE_PHASES:
            out.append(f"phase {name!r} is a core phase: its decisions are the engine's")
    for name, fn in variant.decisions.items():
        if name in PHASES and name not in CORE_PHASES and DECISIONS.get(name) is not fn:
            out.append(f"phase {name!r} (decisions {_label(fn)}) has no kernel")
    for name, fn in variant.passes.items():
        if fn not in PASSES:
            out.append(f"a pass in phase {name!r} ({_label(fn)}) has no kernel")
    for name in variant.answers:
        if name not in variant.decisions:
            out.append(f"phase {name!r} answers an effect but has no decisions")
    for hook, known in HOOKS.items():
        fn = type(variant).hook(hook)
        if fn not in known:
            out.append(f"hook {hook} ({_label(fn)}) has no kernel")
    for name, fn in variant.first_discard.items():
        if FIRST_DISCARD.get(name) is not fn:
            out.append(f"first discard of {name!r} ({_label(fn)}) has no kernel")
    if type(variant).is_honest is not Variant.is_honest:
        out.append(f"is_honest is overridden ({_label(type(variant).is_honest)}); the "
                   "kernels read Variant.other_wild_dishonest instead")
    return out


def known() -> str:
    """The effects and phases the kernels implement, for error messages."""
    core = ", ".join(CORE_EFFECT_NAMES)
    own = ", ".join(n for n in EFFECTS if n not in CORE_EFFECT_NAMES)
    return (f"the batch engine knows the effects {core}, {own} and the phases "
            f"{', '.join(CORE_PHASES)}, {', '.join(DECISIONS)}")


def check_variant(variant: Variant, who: str = "the batch engine") -> None:
    """Refuse a variant the kernels cannot play: ``ValueError`` naming what they lack."""
    found = problems(variant)
    if found:
        raise ValueError(f"{who} does not support variant {variant.name!r}: "
                         f"{'; '.join(found)}. {known().capitalize()}")
