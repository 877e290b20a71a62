"""The fields of a play-out, grouped by concern (the engine's classes share them).

:class:`StateFields` declares every attribute a :class:`~uno_env.rules.state.State` holds:
the state's fields in a block generated from the state table (``rules/table.py``, by
``python -m uno_env.codegen``), then the per-game constants ``_bind`` reads from the game.
Hot-path data are plain ints, lists and bytearrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from uno_env.variants.base import DecisionsFn, EffectFn, PendingFn, PlaysFn, WindowFn

if TYPE_CHECKING:
    from uno_env.rules.game import Game
    from uno_env.rules.hands import Hands
    from uno_env.rules.rng import SplitMix64


class StateFields:
    # <generated state-slots>: python -m uno_env.codegen (uno_env/rules/table.py)
    # --- configuration (never changes) ---
    game: Game
    n: int
    rng: SplitMix64  # the game's generator: every shuffle and the dealer come from it
    # --- the turn and the play being resolved (G-uno order: choices, catch, effect, window) ---
    current: int
    phase: int  # the decision asked (snapshot: its name)
    direction: int
    active_color: int  # WILD while a colour is chosen
    pending: int  # cards the victim will draw
    drawn_card: int  # the card drawn this turn, -1 none
    last_drawn: int
    passes: int  # G-blocked: turns in a row without a play
    play_seat: int
    going_out: bool
    honest: bool  # G-wd-challenge
    challenge_seat: int
    chal_ok: bool
    skip_victim: bool  # False: X-effects targeted draws skip nobody
    until_color: bool  # F-effects: Wild Draw Colour pending
    flex_play: bool
    bounce: bool  # E-reverse-back: the Reverse being played answers an effect
    target: int
    stage: int  # what remains to resolve (snapshot: its name)
    next_seat: int
    dealer: int
    side: int  # Flip: 0 light, 1 dark
    tick: int  # counts card acquisitions (acq)
    # --- piles (G-deal, G-reshuffle, F-flip) ---
    faces_of: list[int]  # card -> its face on the active side
    draw_pile: list[int]  # the top is the end (batch: a prefix, PILE_LEN)
    discard: list[int]
    discard_counts: bytearray
    acq: list[int]  # when each card was taken (F-which-card order)
    known: bytearray  # F-visibility: the holder has seen the card's hidden face
    # --- hands (Hands keeps held/counts/hand_len/present in step) ---
    book: Hands
    held: list[list[list[int]]]
    counts: list[bytearray]
    hand_len: list[int]
    present: list[int]
    uno_called: list[bool]  # G-uno: stands until the hand grows
    power: list[bool]  # X-power: green Power Cards
    revealed: list[tuple[int, bytes] | None]  # G-wd-challenge: (seat, face counts) shown
    # --- match ---
    scores: list[int]
    # --- public history of each seat (observation pieces opp_declined, opp_drawn) ---
    declined: list[int]  # bit c: kept a drawn card on colour c (none played since)
    drawn_since: list[int]  # cards taken since that seat last played a card
    # --- round results ---
    round_results: list[dict[str, Any]]
    # --- the decision asked ---
    legal: list[int]  # the actions `current` may take now (batch: 0/1)
    # </generated state-slots>
    # --- per-game constants read on the hot path (see _bind) ------------------------------
    _types: list[int]
    _match_bits: list[list[int]]
    _uno_on: bool
    _draw_action: int
    _has_flex: bool
    _plain: bool
    _uno_action: int
    _pass_action: int
    _vol_draw: bool
    _catch_any: bool
    _catch_action: int
    _effects: list[EffectFn]  # handler per effect code (rules/effects.py)
    _more_plays: PlaysFn | None  # the variant's own plays (Variant.more_plays)
    _take_pending: PendingFn | None  # the variant's own pending draws (Variant.take_pending)
    _window: WindowFn | None  # opened after each play (Variant.window), None when off
    _passes: list[WindowFn | None]  # per phase, what a pass means (Variant.passes)
    _answers: list[bool]  # per phase, a play in it answers an effect (Variant.answers)
    _decisions: list[DecisionsFn | None]  # per phase, the variant's (rules/legal.py)
    _take: Callable[[int, int, int], int]  # Hands.remove of `book`
    _give_one: Callable[[int, int, int], None]  # Hands.add_one of `book`
    # Slots, not an instance dict: past ~30 attributes CPython stops sharing dict keys and
    # every attribute access on the hot path gets slower (~12% of the engine's time).
    __slots__ = tuple(__annotations__)  # the fields declared above (string annotations)

    def _bind(self) -> None:
        """Per-game constants read on the hot path, held as plain attributes."""
        g = self.game
        self._types = g.actions.types
        self._match_bits = g.match_bits
        self._uno_on = g.rules.uno_on
        self._draw_action = g.actions.draw
        self._has_flex = g.has_flex
        self._more_plays = g.variant.plays_hook()
        # no flex faces, no double play, no plays of the variant's own: the short paths
        self._plain = not g.has_flex and not g.double_play and self._more_plays is None
        self._pass_action = g.actions.pass_
        self._uno_action = g.actions.uno
        self._vol_draw = g.voluntary_draw
        self._catch_any = g.catch_until_out
        self._catch_action = g.actions.catch

    def _use_hands(self, book: Hands) -> None:
        """Hold ``book`` and its lists as plain attributes (they are never rebound)."""
        self.book = book
        self.held, self.counts = book.held, book.counts
        self.hand_len, self.present = book.size, book.present
        self._take, self._give_one = book.remove, book.add_one  # bound once: the hot path
