"""What a variant is: deck data, rule options and a few hooks the engine calls.

A new variant is one small subclass of :class:`Variant` registered with :func:`register`; the
engine, environment and tests pick it up from the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from uno_env.cards import LIGHT_COLORS, WILD, WILD_DRAW, Face


@dataclass(frozen=True)
class Option:
    """A rule switch: its default and the values it accepts."""

    default: Any
    allowed: tuple[Any, ...] | None = None  # None: see `kind`
    kind: type | None = None  # int options: any int >= `minimum`
    minimum: int = 1
    help: str = ""

    def check(self, variant: str, name: str, value: Any) -> Any:
        if self.allowed is not None:
            # bool options accept only real bools: 1 == True would slip through `in`.
            ok = any(value is a or (type(value) is type(a) and value == a) for a in self.allowed)
            if not ok:
                raise ValueError(
                    f"option {name}={value!r} is not valid for {variant}; "
                    f"allowed: {', '.join(repr(a) for a in self.allowed)}"
                )
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int) or value < self.minimum:
                raise ValueError(
                    f"option {name}={value!r} is not valid for {variant}; "
                    f"allowed: an integer >= {self.minimum}"
                )
            return value
        return value


BOOL = (False, True)


class EffectTable(Protocol):
    """What a variant's effect handler may read and do to the play-out (the engine's
    ``State`` is one): seats are ints, ``direction`` is +1 or -1, faces index the game's
    face tables (``game.face_color`` ...); the ``_ask_*`` methods hand the next decision to
    a seat and return True."""

    game: Any
    n: int
    direction: int
    next_seat: int
    pending: int
    target: int
    skip_victim: bool
    bounce: bool
    faces_of: list[int]
    discard: list[int]
    active_color: int
    present: list[int]
    power: list[bool]
    until_color: bool
    last_drawn: int
    side: int
    counts: list[bytearray]

    def _draw(self, seat: int, n: int) -> int: ...
    def _take_draw(self, seat: int, extra: int) -> None: ...
    def _flip(self) -> None: ...
    def _flip_powers(self, seats: Sequence[int]) -> None: ...
    def _ask_color(self, seat: int) -> bool: ...
    def _ask(self, seat: int, phase: str) -> bool: ...
    def _start_turn(self, seat: int) -> None: ...
    def _ask_challenge(self, seat: int, challengeable: bool, stack: bool = False) -> bool: ...
    def _attack(self, p: int, f: int, stackable: bool, last: bool, stack_phase: bool) -> bool: ...


PlaysFn = Callable[[Any, int, int, list[int]], None]
"""A legal-play extension: ``(table, seat, drawn face or -1, legal)`` appends the actions of
the variant's own plays (on the seat's turn, or of the drawn card only)."""

DecisionsFn = Callable[[Any, int, list[int]], None]
"""A phase's legal decisions: ``(table, seat to act, legal)`` appends them; ``table`` is the
engine's state (its ``game.actions`` names the action ids)."""

PendingFn = Callable[[Any, int], bool]
"""A pending draw of the variant's own kind: ``(table, victim) -> handled``; when it returns
False the victim draws ``table.pending`` cards as usual."""

FirstFn = Callable[[Any, int, int], None]
"""C-first-discard for a variant's own effect: ``(table, colour chooser, first player)``
starts the round (the first card is on the discard pile)."""

WindowFn = Callable[[Any, int], bool]
"""The window of out-of-turn plays after a play resolves: ``(table, first seat to ask) -> a
decision is asked``; also a pass in it (``Variant.passes``: ``(table, seat who passed)``)."""

EffectFn = Callable[[Any, int, int, int, bool], bool]
"""An effect handler: ``(table, player, face, cards to draw, last card) -> a decision is
asked``; ``table`` is an :class:`EffectTable`. It sets ``next_seat`` unless it asks."""

COMMON_OPTIONS: dict[str, Option] = {
    "wd_challenge": Option(True, BOOL, help="G-wd-challenge: wild draws may be challenged"),
    "uno_catch": Option("auto", ("auto", "decision", "off"),
                        help="G-uno: how a missed call is caught"),
    "catch_window": Option("turn", ("turn", "until-out"),
                           help="G-uno: a missed call can be caught until the next turn starts "
                                "(`turn`) or until that player goes out (`until-out`)"),
    "voluntary_draw": Option(True, BOOL,
                             help="G-draw: a player may draw while holding a playable card"),
    "scoring": Option("winner", ("winner", "penalty"), help="G-score / F-alt-score / E-end"),
    "target_score": Option(500, kind=int, help="G-score: match length in points"),
    "episode": Option("round", ("round", "match"), help="one round or a whole match per episode"),
}


def skip_everyone(s: EffectTable, p: int, f: int, draw: int, last: bool) -> bool:
    """F-effects, X-effects (Flip's Skip Everyone, Flex's Skip All): everyone else is
    skipped, the same player plays again."""
    s.next_seat = p
    return False


def uno_ok(s: Any, seat: int) -> bool:
    """G-uno: ``seat`` may call UNO with this decision (it will hold one card after it)."""
    return bool(s._uno_on and not s.uno_called[seat] and s.hand_len[seat] == 2)


def jump_in_decisions(s: Any, p: int, legal: list[int]) -> None:
    """C-jump-in, E-jump-in: play the twin of the top card out of turn, or let it pass."""
    A = s.game.actions
    legal.append(A.play[s.faces_of[s.discard[-1]]])
    if uno_ok(s, p):
        legal.append(A.uno)
    legal.append(A.pass_)


def jump_in_window(s: Any, seat: int) -> bool:
    """C-jump-in, E-jump-in: ask, from ``seat`` on, the next player holding the twin of the
    top card (a wild has none); the window closes back at its player."""
    f = s.faces_of[s.discard[-1]]
    if s.game.face_wild[f]:
        return False
    n, d, p = s.n, s.direction, s.play_seat
    counts = s.counts
    while seat != p:
        if counts[seat][f]:
            return bool(s._ask(seat, "jump-in"))
        seat = (seat + d) % n
    return False


def pass_jump_in(s: Any, p: int) -> bool:
    """C-jump-in: a pass asks the next holder of the twin, if any."""
    return jump_in_window(s, (p + s.direction) % s.n)


class Variant:
    """Deck data plus hooks. Subclasses set the class attributes and may override hooks."""

    name: ClassVar[str]
    version: ClassVar[int] = 0  # the env name uno_<name>_v<version> (a new variant: v0)
    aliases: ClassVar[tuple[str, ...]] = ()
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    hand_size: ClassVar[int] = 7
    uno_penalty: ClassVar[int] = 2
    colors: ClassVar[tuple[tuple[str, ...], ...]] = (LIGHT_COLORS,)  # palette per side
    options: ClassVar[dict[str, Option]] = COMMON_OPTIONS
    # C-first-discard: the effects that are returned to the deck instead of starting the pile.
    first_discard_redraw: ClassVar[tuple[str, ...]] = (WILD_DRAW,)
    # Who picks the colour of a wild turned up first: "first" player (C) or "dealer" (F).
    first_wild_chooser: ClassVar[str] = "first"
    # X-first-discard: action cards turned first are ignored until a number is on top.
    first_discard_numbers_only: ClassVar[bool] = False
    # X-power: every player holds a Power Card (Flex).
    power_cards: ClassVar[bool] = False
    # The variant's own effects (by cards.py effect name), over the engine's core ones.
    effects: ClassVar[dict[str, EffectFn]] = {}
    # The legal decisions of the phases beyond the core's (by phase name, as in snapshots):
    # the engine dispatches to them (rules/legal.py). Every variant may open the jump-in
    # window (the `jump_in` option); Express adds reverse-back, Flex the target choice.
    decisions: ClassVar[dict[str, DecisionsFn]] = {"jump-in": jump_in_decisions}
    # The window after each play, opened when the `jump_in` option is on, and what a pass
    # means in the variant's phases (by phase name); the engine resumes when nobody is asked.
    window: ClassVar[WindowFn | None] = jump_in_window
    passes: ClassVar[dict[str, WindowFn]] = {"jump-in": pass_jump_in}
    # C-first-discard: how a first card of the variant's own effects starts the round (by
    # effect name; Flip: a Flip); other effects of the variant are not acted on.
    first_discard: ClassVar[dict[str, FirstFn]] = {}
    # The variant's phases in which a play answers the effect being resolved (Express's
    # reverse-back: the Reverse sends it back); the play's effect handler reads `bounce`.
    answers: ClassVar[tuple[str, ...]] = ()
    # The variant's own plays beside "play <face>" (Flex: flex plays), or None.
    more_plays: ClassVar[PlaysFn | None] = None
    # How a victim takes a pending draw of the variant's own kind (Flip: draw until the
    # named colour), or None: every pending draw is `pending` cards.
    take_pending: ClassVar[PendingFn | None] = None
    # G-wd-challenge: another wild in the player's hand also makes a wild draw dishonest
    # (X-effects: Flex). Data, not an override of is_honest, so the batch kernels read it.
    other_wild_dishonest: ClassVar[bool] = False

    def __init__(self) -> None:
        faces, cards = self.build_deck()
        self.faces: tuple[Face, ...] = tuple(faces)
        # cards[c] = the face id of card c on each side (one side for most variants).
        self.cards: tuple[tuple[int, ...], ...] = tuple(cards)
        self.card_names: tuple[str, ...] = tuple(self.card_name(c) for c in self.cards)
        # Flex: per face, its flex face (or None) and whether it carries the flip symbol.
        self.flex_faces: tuple[Face | None, ...] = ()
        self.power_flip: tuple[bool, ...] = ()

    # --- data -----------------------------------------------------------------------------
    def build_deck(self) -> tuple[Sequence[Face], Sequence[tuple[int, ...]]]:
        """Faces and physical cards (face ids per side)."""
        raise NotImplementedError

    def card_name(self, faces: tuple[int, ...]) -> str:
        return "|".join(self.faces[f].name for f in faces)

    @property
    def env_name(self) -> str:
        return f"uno_{self.name}_v{self.version}"

    # --- options --------------------------------------------------------------------------
    def resolve_options(self, num_players: int, given: dict[str, Any]) -> dict[str, Any]:
        """Validate ``given`` against this variant's options and fill in the defaults."""
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            raise ValueError(
                f"unknown option {unknown[0]!r} for {self.name}; "
                f"allowed: {', '.join(sorted(self.options))}"
            )
        opts = {k: spec.check(self.name, k, given[k]) if k in given else spec.default
                for k, spec in self.options.items()}
        lo, hi = self.player_range(opts)
        if isinstance(num_players, bool) or not isinstance(num_players, int) or not (
            lo <= num_players <= hi
        ):
            raise ValueError(
                f"num_players must be {lo}-{hi} for {self.name}, got {num_players!r}"
            )
        return opts

    def player_range(self, opts: dict[str, Any]) -> tuple[int, int]:
        return self.min_players, self.max_players

    # --- hooks ----------------------------------------------------------------------------
    @classmethod
    def hook(cls, name: str) -> Any:
        """The hook attribute ``name`` as a plain function (read from the class: never
        bound), or None."""
        return next(k.__dict__[name] for k in cls.__mro__ if name in k.__dict__)

    @classmethod
    def plays_hook(cls) -> PlaysFn | None:
        """:attr:`more_plays` as a plain function."""
        hook: PlaysFn | None = cls.hook("more_plays")
        return hook

    def is_honest(self, counts: Sequence[int], color_faces: Sequence[Sequence[int]],
                  prior_color: int) -> bool:
        """G-wd-challenge: a wild draw is honest when its player held no card of the colour
        that was active when it was played (the card itself already left the hand).
        ``counts``: the player's face counts; ``color_faces[c]``: the faces of colour c."""
        if self.other_wild_dishonest and any(counts[f] for f in color_faces[WILD]):
            return False
        return not any(counts[f] for f in color_faces[prior_color])


_REGISTRY: dict[str, type[Variant]] = {}
_ALIASES: dict[str, str] = {}
_INSTANCES: dict[str, Variant] = {}


def register(cls: type[Variant]) -> type[Variant]:
    """Class decorator: make a variant findable by its name and aliases."""
    _REGISTRY[cls.name] = cls
    for alias in (cls.name, *cls.aliases):
        _ALIASES[alias.lower()] = cls.name
    return cls


def find_variant(name: str) -> Variant:
    """The (shared, immutable) variant registered under ``name`` or an alias."""
    if not isinstance(name, str) or name.lower() not in _ALIASES:
        raise ValueError(
            f"unknown variant {name!r}; allowed: {', '.join(list_variants())}"
        )
    key = _ALIASES[name.lower()]
    if key not in _INSTANCES:
        _INSTANCES[key] = _REGISTRY[key]()
    return _INSTANCES[key]


def list_variants() -> list[str]:
    """Registered variant names, in registration order."""
    return list(_REGISTRY)
