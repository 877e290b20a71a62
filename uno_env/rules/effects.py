"""Resolving a play: the card's own choices, the catch (G-uno), its effect (C-, F-, X-,
E-effects), the win check and the jump-in window, then the next turn."""

from __future__ import annotations

from uno_env.cards import WILD
from uno_env.rules.codes import (
    E_DRAW,
    E_NUMBER,
    E_REVERSE,
    E_SKIP,
    E_WILD,
    E_WILD_DRAW,
    EFFECT_CODES,
    P_CATCH,
    P_CHALLENGE,
    P_COLOR,
    P_PLAY,
    P_STACK,
    P_TARGET,
    PHASE_CODES,
    ST_CATCH,
    ST_EFFECT,
    ST_NEXT,
    ST_TARGET,
    ST_WINDOW,
    UNO_AUTO,
    effect_code,
)
from uno_env.rules.legal import LegalDecisions, phase_table
from uno_env.variants.base import EffectFn, Variant

# declined bits a play of each colour leaves (a wild: all; State.declined)
_KEEP_BITS = [~(1 << c) for c in range(WILD)] + [-1]

class Resolution(LegalDecisions):
    """Play a card and resolve it up to the next decision."""
    __slots__ = ()

    def _take_draw(self, seat: int, extra: int) -> None:
        """The pending draw lands on ``seat`` (plus ``extra`` cards: a failed challenge);
        one of the variant's own kind is the variant's (``Variant.take_pending``)."""
        own = self._take_pending
        if own is None or not own(self, seat):
            self._draw(seat, self.pending)
        self.pending = 0
        if extra:
            self._draw(seat, extra)

    def _after_victim(self, victim: int) -> int:
        """Whose turn follows a victim who took the draw (X: targeted draws skip nobody)."""
        if self.skip_victim:
            return (victim + self.direction) % self.n
        return (self.play_seat + self.direction) % self.n

    def _no_play(self, p: int) -> None:
        """A turn that ended without a play because nothing could be drawn (G-blocked)."""
        self.passes += 1
        if self.passes >= self.n:
            self._end_round(-1)
        else:
            self._start_turn((p + self.direction) % self.n)

    def _play(self, p: int, f: int, card: int, two: bool, flex: bool) -> None:
        """Put a card of face ``f`` on the discard pile (``card`` if given, else the one held
        longest; two of them for a double play), then resolve it."""
        g = self.game
        if card >= 0:
            self.drawn_card = -1
        prior_color = self.active_color
        self.discard.append(self._take(p, f, card))
        self.discard_counts[f] += 1
        if two:  # C-double-play: the second counts as played on the first
            self.discard.append(self._take(p, f, -1))
            self.discard_counts[f] += 1
        left = self.hand_len[p]
        self.drawn_since[p] = 0
        if self.declined[p]:  # p held a card of that colour: what its decline said is stale
            self.declined[p] &= _KEEP_BITS[g.face_color[f]]
        self.passes = 0
        self.play_seat = p
        self.going_out = left == 0
        self.flex_play = flex
        if flex:
            wild = g.flex_wild[f]
            self.stage = ST_TARGET if g.flex_targeted[f] else ST_CATCH
            if self.power[p]:
                self._flip_powers((p,))  # X-power (i): turns red
        else:
            wild = g.face_wild[f]
            self.stage = ST_CATCH
            if self._has_flex and g.power_flip[f]:  # X-power (ii): the flip symbol
                self._flip_powers((p,))
        if g.flex_challengeable[f] if flex else g.face_challengeable[f]:
            self.challenge_seat = p
            self.honest = g.variant.is_honest(self.counts[p], g.color_faces, prior_color)
        if wild:
            # G-wild-color; a last card's colour would not matter, except for a face whose
            # effect reads it (Flip's Wild Draw Colour: Face.color_on_last)
            if not self.going_out or (not flex and g.face_color_on_last[f]):
                self.active_color = WILD  # none until chosen (never the previous one)
                self.current = p
                self.phase = P_COLOR
                return
        else:  # X-flex-play: the card then lies as its normal face, whose colour counts
            self.active_color = g.face_color[f]
        self._run()

    def _run(self) -> None:
        """Resolve the played card from the stage it stopped at until a decision is needed:
        target, catch (G-uno), effect, then the win check and jump-in window, then the
        next turn. Straight-line code: it runs after every play."""
        st = self.stage
        if st == ST_TARGET:  # X-effects: the colour first, then the victim
            if self.n == 2:
                self.target = 1 - self.play_seat
            else:
                self.stage = ST_CATCH
                self.current = self.play_seat
                self.phase = P_TARGET
                return
            st = ST_CATCH
        if st == ST_CATCH:  # G-uno: after the card's own choices, before its effect
            p = self.play_seat
            if self._uno_on and self.hand_len[p] == 1 and not self.uno_called[p]:
                g = self.game
                if g.uno_mode == UNO_AUTO:
                    self._draw(p, g.uno_penalty)
                elif not g.catch_until_out and self._ask_catch((p + self.direction) % self.n):
                    self.stage = ST_EFFECT
                    return
            st = ST_EFFECT
        if st == ST_EFFECT:
            self.stage = ST_WINDOW
            f = self.faces_of[self.discard[-1]]
            e = self.game.flex_effect[f] if self.flex_play else self.game.face_effect[f]
            if e in (E_NUMBER, E_WILD):  # the common case, kept inline
                self.next_seat = (self.play_seat + self.direction) % self.n
            elif self._effect():
                return
            st = ST_WINDOW
        if st == ST_WINDOW:
            if self.going_out:  # G-win-round: after the last card's effect
                self.stage = ST_NEXT
                self._end_round(self.play_seat)
                return
            window = self._window  # the variant's (jump-in), None when off
            if window is not None and window(self, (self.play_seat + self.direction) % self.n):
                self.stage = ST_NEXT
                return
        self.stage = ST_NEXT
        self.current = self.next_seat  # _start_turn, inlined
        self.phase = P_PLAY
        self.drawn_card = -1

    def _ask_catch(self, seat: int) -> bool:
        """Ask the next opponent (from ``seat`` on) whether to catch; False when none is left."""
        if seat == self.play_seat:
            return False
        self.current = seat
        self.phase = P_CATCH
        return True

    def _effect(self) -> bool:
        """The effect of the card just played (C-, F-, X-, E-effects; numbers and plain
        wilds are handled inline in ``_run``) from the dispatch table: core handlers below,
        the variant's own in its file. True when someone must decide before play goes on."""
        g = self.game
        f = self.faces_of[self.discard[-1]]
        if self.flex_play:
            e, draw = g.flex_effect[f], g.flex_draw[f]
        else:
            e, draw = g.face_effect[f], g.face_draw[f]
        return self._effects[e](self, self.play_seat, f, draw, self.going_out)

    def _ask(self, seat: int, phase: str) -> bool:
        """Hand ``seat`` the decision of a phase named as in ``PHASES`` (a variant's own
        phases: their legal decisions are the variant's, ``Variant.decisions``)."""
        self.current = seat
        self.phase = PHASE_CODES[phase]
        return True

    def _ask_color(self, seat: int) -> bool:
        """G-wild-color: ``seat`` names the colour (none is active until then)."""
        self.active_color = WILD
        self.current = seat
        self.phase = P_COLOR
        return True

    def _ask_challenge(self, seat: int, challengeable: bool, stack: bool = False) -> bool:
        """G-wd-challenge / C-stacking: the victim decides (``stack``: the stack phase)."""
        self.chal_ok = challengeable
        self.current = seat
        self.phase = P_STACK if stack else P_CHALLENGE
        return True

    def _attack(self, p: int, f: int, stackable: bool, last: bool, stack_phase: bool) -> bool:
        """A draw card lands on the next player (the pending draw is set): they challenge or
        stack first when they may; a last card's victim draws at once (G-win-round)."""
        v = (p + self.direction) % self.n
        self.skip_victim = True
        if not last:
            chal = self.game.face_challengeable[f]
            if chal or stackable:
                return self._ask_challenge(v, chal, stack=stack_phase)
        self._take_draw(v, 0)
        self.next_seat = (v + self.direction) % self.n
        return False

    def _bind(self) -> None:
        super()._bind()
        self._effects = effect_table(self.game.variant)
        v = self.game.variant
        self._take_pending = v.hook("take_pending")
        self._window = v.hook("window") if self.game.jump_in else None
        self._passes = phase_table(v, v.passes)
        self._answers = [bool(x) for x in phase_table(v, dict.fromkeys(v.answers, True))]


# --- core effect handlers: (state, player, face, cards to draw, last card) -> must decide ---
def _skip(s: Resolution, p: int, f: int, draw: int, last: bool) -> bool:
    """C-effects: the next player loses the turn."""
    s.next_seat = (p + 2 * s.direction) % s.n
    return False


def _reverse(s: Resolution, p: int, f: int, draw: int, last: bool) -> bool:
    """C-effects: the direction flips; G-two-players: Reverse acts as Skip."""
    s.direction = d = -s.direction
    s.next_seat = p if s.n == 2 else (p + d) % s.n
    return False


def _draw_card(s: Resolution, p: int, f: int, draw: int, last: bool) -> bool:
    """Draw Two / Wild Draw Four (and Flip's Draw One/Five, Wild Draw Two): the next player
    draws and loses the turn, unless they may challenge or stack first."""
    g = s.game
    s.pending += draw
    e = g.flex_effect[f] if s.flex_play else g.face_effect[f]
    return s._attack(p, f, stackable=g.stacking, last=last, stack_phase=e == E_DRAW)


def _next(s: Resolution, p: int, f: int, draw: int, last: bool) -> bool:
    """Numbers and plain wilds: the next player's turn (``_run`` inlines this)."""
    s.next_seat = (p + s.direction) % s.n
    return False


CORE_EFFECTS: dict[int, EffectFn] = {
    E_NUMBER: _next, E_WILD: _next,
    E_SKIP: _skip, E_REVERSE: _reverse, E_DRAW: _draw_card, E_WILD_DRAW: _draw_card,
}
_TABLES: dict[type[Variant], list[EffectFn]] = {}


def _unknown(s: Resolution, p: int, f: int, draw: int, last: bool) -> bool:
    raise AssertionError(f"no handler for the effect of {s.game.face_names[f]!r}")


def effect_table(variant: Variant) -> list[EffectFn]:
    """Handler per effect code: the core's, then the variant's own (``Variant.effects``)."""
    table = _TABLES.get(type(variant))
    if table is None:
        by_code = dict(CORE_EFFECTS)
        for name, handler in variant.effects.items():
            by_code[effect_code(name)] = handler
        table = [by_code.get(code, _unknown) for code in range(len(EFFECT_CODES))]
        _TABLES[type(variant)] = table
    return table
