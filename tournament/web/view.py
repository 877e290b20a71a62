"""What a page may draw: the deck's card table, a seat's view, replay frames, public events.

A seat's view is decoded from that seat's observation alone (:func:`seat_view`), so a page
showing it can never show more than the observation holds: opponents' hands are counts
(Flip: the other side of their cards, as at a real table; Flex: every Power Card), the draw
pile is a count and, for Flip, the other side of its top card. Replays also carry the full
state (:func:`frame`), from which the page draws every hand when asked to reveal them.
Cards travel by face name; the card table says how each face looks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.actions import ACCEPT, DRAW, PASS
from uno_env.rules.codes import P_JUMP_IN, P_REVERSE_BACK, PHASES

# Why a decision was asked, for the move list (an out-of-turn play is a jump-in).
PHASE_LABELS = {P_JUMP_IN: "jump-in", P_REVERSE_BACK: "reverse back"}


def card_table(game: Any) -> dict[str, Any]:
    """The deck's faces (public: what the box holds), keyed by face name, and the palettes."""
    faces = {}
    for f, face in enumerate(game.faces):
        flex = game.flex_faces[f]
        faces[face.name] = {
            "color": face.color, "symbol": face.symbol, "effect": face.effect,
            "draw": face.draw, "side": face.side, "power_flip": bool(game.power_flip[f]),
            "flex": None if flex is None else {"name": flex.name, "color": flex.color,
                                               "symbol": flex.symbol, "effect": flex.effect,
                                               "draw": flex.draw},
        }
    return {"variant": game.variant.name, "palettes": [list(p) for p in game.colors],
            "sides": game.num_sides, "power_cards": bool(game.power_cards), "faces": faces,
            "face_names": list(game.face_names)}


def _names(counts: np.ndarray, names: list[str]) -> list[str]:
    return [names[f] for f in np.flatnonzero(counts) for _ in range(int(counts[f]))]


def _one(piece: np.ndarray) -> int | None:
    hot = np.flatnonzero(piece)
    return int(hot[0]) if len(hot) else None


def seat_view(layout: Any, obs: Any, seat: int) -> dict[str, Any]:
    """The table as ``seat`` sees it, from ``seat``'s observation and nothing else."""
    game = layout.game
    n, nf = game.num_players, game.num_faces
    p = layout.decode(obs)
    names = layout.face_names
    flip, power = layout.sides, layout.power
    players: list[dict[str, Any]] = [{} for _ in range(n)]
    for k in range(n):
        s = (seat + k) % n
        if k == 0:
            players[s] = {"hand": int(p["hand"].sum()), "uno": bool(p["own_uno"][0]),
                          "score": int(p["own_score"][0]), "cards": _names(p["hand"], names),
                          "backs": None}
        else:
            i = k - 1
            players[s] = {"hand": int(p["opp_hand_size"][i]), "uno": bool(p["opp_uno"][i]),
                          "score": int(p["opp_score"][i]), "cards": None,
                          "backs": _names(p["opp_hidden"][i * nf:(i + 1) * nf], names)
                          if flip else None}
        if power:
            players[s]["power"] = bool(p["own_power"][0] if k == 0 else p["opp_power"][k - 1])
    color, phase = _one(p["active_color"]), _one(p["phase"])
    frm, catch = _one(p["revealed_from"]), _one(p["catch_target"])
    pile_back = _one(p["pile_hidden"]) if flip else None
    return {
        "seat": seat,
        "side": int(p["dark_side"][0]) if flip else 0,
        "top": names[_one(p["top"]) or 0],
        "color": color,
        "direction": -1 if p["counter_clockwise"][0] else 1,
        "pile": int(p["draw_pile"][0]),
        "pile_back": None if pile_back is None else names[pile_back],
        "discard": int(p["discard"].sum()),
        "pending": int(p["pending_draw"][0]),
        "phase": None if phase is None else PHASES[phase],
        "players": players,
        "seen_backs": _names(p["own_hidden"], names) if flip else None,
        "revealed": None if frm is None else {"from": (seat + frm + 1) % n,
                                              "cards": _names(p["revealed"], names)},
        "catch_target": None if catch is None else (seat + catch + 1) % n,
    }


def frame(state: Any) -> dict[str, Any]:
    """The full state of a replay step, compactly (cards as ids of the card list)."""
    g = state.game
    hands = state.hands
    out: dict[str, Any] = {
        "h": hands, "t": state.discard[-1], "dl": len(state.discard),
        "p": len(state.draw_pile), "pt": state.draw_pile[-1] if state.draw_pile else -1,
        "c": state.active_color, "d": state.direction, "cur": state.current,
        "ph": PHASES[state.phase], "pe": state.pending, "u": [int(u) for u in state.uno_called],
        "s": list(state.scores), "sd": state.side, "ps": state.play_seat,
    }
    if g.power_cards:
        out["pw"] = [int(x) for x in state.power]
    if g.num_sides > 1:
        out["kn"] = [[c for c in h if state.known[c]] for h in hands]
    if any(r is not None for r in state.revealed):
        out["rv"] = [None if r is None else [r[0], list(r[1])] for r in state.revealed]
    return out


# --- public events ----------------------------------------------------------------------------
def public_facts(state: Any) -> dict[str, Any]:
    """What everyone at the table sees change: hand sizes, side, direction, Power Cards,
    rounds and scores."""
    return {"hand": list(state.hand_len), "side": state.side, "dir": state.direction,
            "power": list(state.power), "rounds": len(state.round_results),
            "scores": list(state.scores)}


def effects(before: dict[str, Any], after: dict[str, Any], names: list[str], actor: int,
            kind: int) -> list[str]:
    """What a decision visibly caused, in words (for move lists and the play log)."""
    def draws(s: int) -> str:
        return "you draw" if names[s] == "you" else f"{names[s]} draws"

    def whose(s: int) -> str:
        return "your" if names[s] == "you" else f"{names[s]}'s"

    out = []
    if after["rounds"] > before["rounds"]:
        gained = [a - b for a, b in zip(after["scores"], before["scores"], strict=True)]
        got = [f"{names[s]} +{g}" for s, g in enumerate(gained) if g]
        out.append("round over" + (f": {', '.join(got)} points" if got else ""))
        return out  # a new deal follows: hand sizes start again
    for s, (b, a) in enumerate(zip(before["hand"], after["hand"], strict=True)):
        grown = a - b - (1 if kind == DRAW and s == actor else 0)
        if grown > 0:
            out.append(f"{draws(s)} {grown}")
    if after["side"] != before["side"]:
        out.append("everything flips to the " + ("dark" if after["side"] else "light")
                   + " side")
    if after["dir"] != before["dir"]:
        out.append("play turns " + ("counter-clockwise" if after["dir"] < 0 else "clockwise"))
    for s, (b, a) in enumerate(zip(before["power"], after["power"], strict=True)):
        if a != b:
            out.append(f"{whose(s)} Power Card turns {'green' if a else 'red'}")
    return out


def hidden_decision(kind: int) -> bool:
    """Decisions whose mere asking tells something about the hand (a pass after a draw: the
    drawn card was playable; a jump-in, stack or reverse-back pass: the player holds the
    card), so the live table never shows them for opponents: at a real table the turn
    simply moves on."""
    return kind in (PASS, ACCEPT)
