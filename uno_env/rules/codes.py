"""Every small-int code of the engine in one place: phases (the decision asked of the player
to act), stages (what remains to resolve after a play), decision types (what an action does),
effect codes (what a face does) and UNO catch modes. Plain ints: the hot path compares them.
"""

from __future__ import annotations

from uno_env import cards as K

# Phases: the decision being asked of `current` (PHASES names them in snapshots).
(P_PLAY, P_DRAWN, P_COLOR, P_CHALLENGE, P_STACK, P_CATCH, P_JUMP_IN, P_REVERSE_BACK,
 P_TARGET, P_OVER) = range(10)
PHASES = ("play", "drawn", "color", "challenge", "stack", "catch", "jump-in", "reverse-back",
          "target", "over")
PHASE_CODES = {name: code for code, name in enumerate(PHASES)}

# What remains to resolve after a card was played (G-uno: choices, catch, effect, window).
ST_TARGET, ST_CATCH, ST_EFFECT, ST_WINDOW, ST_NEXT = range(5)
STAGES = ("target", "catch", "effect", "window", "next")

# Decision types: the kind of each action of the action table.
PLAY, PLAY_TWO, PLAY_FLEX, DRAW, PASS, COLOR, CHALLENGE, ACCEPT, UNO, CATCH, TARGET = range(11)

# Effect codes of faces (cards.py names them; EFFECT_CODES maps a name to its code).
(E_NUMBER, E_SKIP, E_REVERSE, E_DRAW, E_WILD, E_WILD_DRAW, E_SKIP_EVERYONE, E_FLIP, E_WDC,
 E_REVERSE_SKIP, E_ALL_DRAW, E_TARGET_DRAW, E_ALL_FLIP) = range(13)
EFFECT_CODES = {
    K.NUMBER: E_NUMBER, K.SKIP: E_SKIP, K.REVERSE: E_REVERSE, K.DRAW: E_DRAW,
    K.WILD_PLAIN: E_WILD, K.WILD_DRAW: E_WILD_DRAW, K.SKIP_EVERYONE: E_SKIP_EVERYONE,
    K.FLIP: E_FLIP, K.WILD_DRAW_COLOR: E_WDC, K.REVERSE_SKIP: E_REVERSE_SKIP,
    K.ALL_DRAW: E_ALL_DRAW, K.TARGET_DRAW: E_TARGET_DRAW, K.ALL_FLIP: E_ALL_FLIP,
}

# The effects the core handles itself (rules/effects.py); every other effect of a deck is
# handled by its variant (``Variant.effects``).
CORE_EFFECT_NAMES = (K.NUMBER, K.SKIP, K.REVERSE, K.DRAW, K.WILD_PLAIN, K.WILD_DRAW)


def effect_code(name: str) -> int:
    """The code of an effect name. A name not listed above (a variant's own new effect)
    gets the next free code on first use, so that a new effect is a change in its
    variant's file only (the compiled batch engine knows only the codes above)."""
    code = EFFECT_CODES.get(name)
    if code is None:
        code = EFFECT_CODES[name] = len(EFFECT_CODES)
    return code


# G-uno: how a missed call is caught (option uno_catch).
UNO_OFF, UNO_AUTO, UNO_DECISION = 0, 1, 2
UNO_MODES = {"off": UNO_OFF, "auto": UNO_AUTO, "decision": UNO_DECISION}
