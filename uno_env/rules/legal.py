"""Legal decisions: what the player to act may do now (G-match, G-draw, G-uno, and every
phase's choices). ``legal`` is rebuilt in place after every decision."""

from __future__ import annotations

from typing import Any

from uno_env.rules.codes import (
    P_CATCH,
    P_CHALLENGE,
    P_COLOR,
    P_DRAWN,
    P_OVER,
    P_PLAY,
    P_STACK,
    PHASES,
)
from uno_env.rules.scoring import Scoring
from uno_env.variants.base import DecisionsFn, Variant

_TABLES: dict[type[Variant], list[DecisionsFn | None]] = {}


def phase_table(variant: Variant, hooks: dict[str, Any]) -> list[Any]:
    """A variant's hooks by phase name (``Variant.decisions``, ``Variant.passes``) as a list
    by phase code, None where it has none; a misspelt phase name is refused."""
    table: list[Any] = [None] * len(PHASES)
    for name, hook in hooks.items():
        if name not in PHASES:
            raise ValueError(f"{variant.name}: unknown phase {name!r} in its hooks; "
                             f"allowed: {', '.join(PHASES)}")
        table[PHASES.index(name)] = hook
    return table


def decision_table(variant: Variant) -> list[DecisionsFn | None]:
    """Handler per phase code for the phases a variant adds (``Variant.decisions``); the
    core phases are computed inline in ``_compute_legal``."""
    table = _TABLES.get(type(variant))
    if table is None:
        table = _TABLES[type(variant)] = phase_table(variant, variant.decisions)
    return table


class LegalDecisions(Scoring):
    """The mask: ``_compute_legal`` for the phase, ``catch_victim`` for G-uno's catch."""
    __slots__ = ()

    def _bind(self) -> None:
        super()._bind()
        self._decisions = decision_table(self.game.variant)

    def playable(self, face: int) -> bool:
        """G-match: colour, number/symbol, or wild."""
        top = self.faces_of[self.discard[-1]]
        return bool(self._match_bits[self.active_color][top] >> face & 1)

    def flex_playable(self, seat: int, face: int) -> bool:
        """X-flex-play: a green Power Card and a flex face that matches the top card."""
        if not self.power[seat]:
            return False
        top = self.faces_of[self.discard[-1]]
        return bool(self.game.flex_match_bits[self.active_color][top] >> face & 1)

    # --- legal decisions --------------------------------------------------------------------
    def _compute_legal(self) -> None:
        legal = self.legal
        legal.clear()
        p = self.current
        ph = self.phase
        if ph == P_PLAY:
            # G-match over bit sets; "play <face f>" is action f
            bits = self.present[p] & self._match_bits[self.active_color][
                self.faces_of[self.discard[-1]]]
            if not bits and not self._uno_on and not self._has_flex:
                legal.append(self._draw_action)
                return
            while bits:
                low = bits & -bits
                legal.append(low.bit_length() - 1)
                bits ^= low
            if self._plain:  # no flex faces, no double play: the common case, kept short
                if not legal:
                    legal.append(self._draw_action)
                    return
                if self._uno_on and self.hand_len[p] == 2 and not self.uno_called[p]:
                    legal.append(self._uno_action)
                if self._vol_draw:  # G-draw: draw while holding a playable card
                    legal.append(self._draw_action)
                return
        elif ph == P_DRAWN and self._plain:  # G-draw-then-play: only the drawn card
            f = self.faces_of[self.drawn_card]
            if self._match_bits[self.active_color][self.faces_of[self.discard[-1]]] >> f & 1:
                legal.append(f)  # G-match, as `playable`; "play <face f>" is action f
                if self._uno_on and self.hand_len[p] == 2 and not self.uno_called[p]:
                    legal.append(self._uno_action)
            legal.append(self._pass_action)
            return
        g = self.game
        A = g.actions
        hand_len = self.hand_len[p]
        uno_ok = self._uno_on and not self.uno_called[p]
        if ph == P_PLAY:
            more = self._more_plays  # the variant's own plays (Flex: flex plays)
            if more is not None:
                more(self, p, -1, legal)
            any_two = False
            if g.double_play:  # C-double-play
                two = A.play_two
                cnt = self.counts[p]
                for f in list(legal):
                    if f < g.num_faces and two[f] >= 0 and cnt[f] >= 2:
                        legal.append(two[f])
                        any_two = True
            can_play = bool(legal)
            if uno_ok and ((hand_len == 2 and can_play) or (hand_len == 3 and any_two)):
                legal.append(A.uno)
            if self._vol_draw or not can_play:  # G-draw: voluntary_draw
                legal.append(A.draw)
        elif ph == P_DRAWN:  # G-draw-then-play, X-drawn-only: only the drawn card
            f = self.faces_of[self.drawn_card]
            if self.playable(f):
                legal.append(A.play[f])
            more = self._more_plays
            if more is not None:
                more(self, p, f, legal)
            if uno_ok and hand_len == 2 and legal:
                legal.append(A.uno)
            legal.append(A.pass_)
        elif ph == P_COLOR:
            legal.extend(A.color[self.side])
        elif ph in (P_CHALLENGE, P_STACK):
            if ph == P_CHALLENGE and self.chal_ok:
                legal.append(A.challenge)
            if g.stacking:  # C-stacking: same symbol as the draw card on top
                cnt = self.counts[p]
                tsym = g.face_symbol[self.faces_of[self.discard[-1]]]
                can_stack = False
                for f in range(g.num_faces):
                    if cnt[f] and g.face_symbol[f] == tsym:
                        legal.append(A.play[f])
                        can_stack = True
                if uno_ok and hand_len == 2 and can_stack:
                    legal.append(A.uno)
            legal.append(A.accept)
        elif ph == P_CATCH:
            legal.append(A.catch)
            legal.append(A.pass_)
        else:  # the variant's phases (jump-in, reverse-back, target): Variant.decisions
            hook = self._decisions[ph]
            if hook is not None:
                hook(self, p, legal)

    def catch_victim(self) -> int:
        """G-uno: the seat that ``catch`` would penalise now, -1 when none.

        In the catch phase (``catch_window="turn"``) it is the player who just played; with
        ``catch_window="until-out"`` it is the first opponent of ``current`` in turn order
        who holds one card without having called UNO (the mask then offers ``catch``)."""
        p = self.current
        if self.phase == P_CATCH:
            return self.play_seat
        if not self._catch_any or self.phase == P_OVER:
            return -1
        n, d = self.n, self.direction
        hand_len, called = self.hand_len, self.uno_called
        for k in range(1, n):
            s = (p + k * d) % n
            if hand_len[s] == 1 and not called[s]:
                return s
        return -1
