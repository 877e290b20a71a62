"""The one declaration of a play-out's state: every field of both engines, one line each.

Generated from :data:`FIELDS` (see docs/architecture.md, "The state table"):

* the Python engine: the typed slots of ``StateFields`` (``rules/fields.py``, a generated
  block), the snapshot's plain keys and ``clone``'s copy lists (``rules/snapshot.py``, at
  import);
* the batch engine: the column constants of ``S`` and ``NFIELDS``, the ``Batch`` arrays
  and ``allocate`` (``batch/layout.py``), ``borrow_batch`` (``batch/borrow.py``), all
  generated blocks, and the Python <-> batch conversion (``batch/convert.py``, at import).

The blocks are checked-in source, written by ``python -m uno_env.codegen`` (a test fails
until they are current): numba freezes module-level integers into the kernels at compile
time, and a plain ``CUR = 0`` line keeps that as fast as hand-written constants, readable,
and visible to mypy. Adding a field is one line here, ``python -m uno_env.codegen``, and
the rule code that uses it.

Columns: ``scope`` says what one value belongs to, and so the batch shape: ``game``
(``[B]``: a column of ``S`` when ``col`` is set), ``seat`` ``[B, N]``, ``card`` ``[B, C]``,
``face`` ``[B, F]``, ``seat_face`` ``[B, N, F]``, ``seat_hidden`` (the same with two sides,
else ``[B, N, 0]``), ``round`` ``[B, R]``, ``round_seat`` ``[B, R, N]``, ``action``
``[B, A rounded up to 8]``. ``dtype``: the batch array's (``S``
is int64; ``bool`` marks a flag). ``py``: the Python attribute's type (None: batch only);
``batch``: the ``Batch`` member (None: Python only, or a column of ``S``); ``col``: the
constant naming its column of ``S``. ``snap``: its key in ``State.to_dict`` (None: not
stored, or stored by hand: phase and stage by name, cards by name, ``known`` per hand).
``copy``: how ``clone`` copies it (``same``, ``list``, ``bytes``; ``own``: by hand).
``own``: encoded by hand, in the snapshot and, for an array, in the conversion (piles as
prefixes, the hands' bookkeeping, the legal row).
"""

from __future__ import annotations

from typing import NamedTuple

SCOPES = ("game", "seat", "card", "face", "seat_face", "seat_hidden", "round", "round_seat",
          "action")
COPIES = ("same", "list", "bytes", "own")


class Field(NamedTuple):
    name: str
    scope: str
    dtype: str = "int64"
    default: int = 0
    py: str | None = "int"
    col: str | None = None
    batch: str | None = None
    snap: str | None = None
    copy: str = "same"
    own: bool = False
    absent_ok: bool = False  # snapshot key missing from older snapshots: the default then
    doc: str = ""

    @property
    def in_s(self) -> bool:
        """A column of the batch's ``S``."""
        return self.col is not None

    @property
    def kind(self) -> type:
        """The Python type of one value (``bool`` for flags, else ``int``)."""
        return bool if self.dtype == "bool" or (self.py or "").endswith("[bool]") else int


def _s(name: str, col: str, dtype: str = "int64", snap: str | None = None,
       doc: str = "", **kw: object) -> Field:
    """A game scalar held by both engines (a plain attribute; a column of ``S``)."""
    return Field(name, "game", dtype, py="bool" if dtype == "bool" else "int", col=col,
                 snap=snap, doc=doc, **kw)  # type: ignore[arg-type]


def _b(col: str, doc: str) -> Field:
    """A batch-only game scalar (a column of ``S``)."""
    return Field(col.lower(), "game", py=None, col=col, doc=doc)


# Rows grouped by concern; a plain string opens a group (a comment in the generated code).
TABLE: tuple[Field | str, ...] = (
    "configuration (never changes)",
    Field("game", "game", py="Game", doc=""),
    Field("n", "game", doc=""),
    Field("rng", "game", "uint64", py="SplitMix64", batch="rng", copy="own", own=True,
          doc="the game's generator: every shuffle and the dealer come from it"),
    Field("seeder", "game", "uint64", py=None, batch="seeder",
          doc="the env seeder (raw_env's reset() without a seed)"),
    "the turn and the play being resolved (G-uno order: choices, catch, effect, window)",
    _s("current", "CUR", snap="current"),
    _s("phase", "PHASE", own=True, doc="the decision asked (snapshot: its name)"),
    _s("direction", "DIR", snap="direction"),
    _s("active_color", "COLOR", snap="active_color", doc="WILD while a colour is chosen"),
    _s("pending", "PENDING", snap="pending_draw", doc="cards the victim will draw"),
    _s("drawn_card", "DRAWN", own=True, doc="the card drawn this turn, -1 none"),
    _s("last_drawn", "LAST_DRAWN"),
    _s("passes", "PASSES", snap="passes", doc="G-blocked: turns in a row without a play"),
    _s("play_seat", "PLAY_SEAT", snap="play_seat"),
    _s("going_out", "GOING_OUT", "bool", snap="going_out"),
    _s("honest", "HONEST", "bool", snap="honest", doc="G-wd-challenge"),
    _s("challenge_seat", "CHAL_SEAT", snap="challenge_seat"),
    _s("chal_ok", "CHAL_OK", "bool", snap="chal_ok"),
    _s("skip_victim", "SKIP_VICTIM", "bool", snap="skip_victim",
       doc="False: X-effects targeted draws skip nobody"),
    _s("until_color", "UNTIL_COLOR", "bool", snap="until_color",
       doc="F-effects: Wild Draw Colour pending"),
    _s("flex_play", "FLEX_PLAY", "bool", snap="flex_play"),
    _s("bounce", "BOUNCE", "bool", snap="bounce",
       doc="E-reverse-back: the Reverse being played answers an effect"),
    _s("target", "TARGET", snap="target"),
    _s("stage", "STAGE", own=True, doc="what remains to resolve (snapshot: its name)"),
    _s("next_seat", "NEXT_SEAT", snap="next_seat"),
    _s("dealer", "DEALER", snap="dealer"),
    _s("side", "SIDE", snap="side", doc="Flip: 0 light, 1 dark"),
    _s("tick", "TICK", doc="counts card acquisitions (acq)"),
    _b("PILE_LEN", "cards in the draw pile"),
    _b("DISC_LEN", "cards in the discard pile"),
    _b("NSTEPS", "decisions taken (max_steps)"),
    _b("NROUNDS", "rounds finished (round results kept)"),
    _b("NLEGAL", "legal actions now"),
    _b("ONE_LEGAL", "scratch of compute_legal/settle: the only legal action"),
    _b("TOP", "the face of the discard's top card on the side up (one load, not three)"),
    "piles (G-deal, G-reshuffle, F-flip)",
    Field("faces_of", "card", py="list[int]", doc="card -> its face on the active side"),
    Field("draw_pile", "card", "int16", py="list[int]", batch="pile", copy="list", own=True,
          doc="the top is the end (batch: a prefix, PILE_LEN)"),
    Field("discard", "card", "int16", py="list[int]", batch="disc", copy="list", own=True),
    Field("discard_counts", "face", "uint8", py="bytearray", batch="disc_counts",
          copy="bytes"),
    Field("loc", "card", "int8", -1, py=None, batch="loc", doc="holder seat, -1 in no hand"),
    Field("acq", "card", "int32", py="list[int]", batch="acq", copy="list",
          doc="when each card was taken (F-which-card order)"),
    Field("known", "card", "uint8", py="bytearray", batch="known", copy="bytes",
          doc="F-visibility: the holder has seen the card's hidden face"),
    "hands (Hands keeps held/counts/hand_len/present in step)",
    Field("book", "seat", py="Hands", copy="own"),
    Field("held", "seat", py="list[list[list[int]]]", copy="own"),
    Field("counts", "seat_face", "uint8", py="list[bytearray]", batch="counts", copy="own",
          own=True),
    Field("hand_len", "seat", "int16", py="list[int]", batch="hand_len", copy="own",
          own=True),
    Field("hidden_counts", "seat_hidden", "uint8", py=None, batch="hid_counts",
          doc="F-visibility: held cards by hidden face"),
    Field("hidden_unseen", "seat_hidden", "uint8", py=None, batch="hid_unseen",
          doc="those not seen by the holder (dealt)"),
    Field("present", "seat", py="list[int]", copy="own"),
    Field("uno_called", "seat", "uint8", py="list[bool]", batch="uno_called",
          snap="uno_called", copy="list", doc="G-uno: stands until the hand grows"),
    Field("power", "seat", "uint8", 1, py="list[bool]", batch="power", snap="power_green",
          copy="list", doc="X-power: green Power Cards"),
    Field("revealed", "seat_face", "uint8", py="list[tuple[int, bytes] | None]",
          batch="revealed", copy="list", own=True,
          doc="G-wd-challenge: (seat, face counts) shown"),
    Field("revealed_from", "seat", "int8", -1, py=None, batch="revealed_from",
          doc="whose hand `revealed` is, -1 none"),
    "match",
    Field("scores", "seat", py="list[int]", batch="scores", snap="scores", copy="list"),
    "public history of each seat (observation pieces opp_declined, opp_drawn)",
    Field("declined", "seat", "uint8", py="list[int]", batch="declined", snap="declined",
          copy="list", absent_ok=True,
          doc="bit c: kept a drawn card on colour c (none played since)"),
    Field("drawn_since", "seat", "int16", py="list[int]", batch="drawn_since",
          snap="drawn_since", copy="list", absent_ok=True,
          doc="cards taken since that seat last played a card"),
    "round results",
    Field("round_results", "round", py="list[dict[str, Any]]", copy="own", own=True),
    Field("rr_winner", "round", "int16", py=None, batch="rr_winner",
          doc="the last R rounds of a match"),
    Field("rr_blocked", "round", "uint8", py=None, batch="rr_blocked"),
    Field("rr_points", "round_seat", "int32", py=None, batch="rr_points"),
    Field("rr_values", "round_seat", "int32", py=None, batch="rr_values"),
    "rewards (the env's, batch only)",
    Field("rew", "seat", "float64", py=None, batch="rew",
          doc="rewards of the last step (raw_env.rewards)"),
    Field("cum", "seat", "float64", py=None, batch="cum",
          doc="raw_env._cumulative_rewards"),
    "the decision asked",
    Field("legal", "action", "uint8", py="list[int]", batch="legal", copy="list", own=True,
          doc="the actions `current` may take now (batch: 0/1)"),
)

FIELDS: tuple[Field, ...] = tuple(f for f in TABLE if isinstance(f, Field))
"""Every field, in declaration order."""
BY_NAME = {f.name: f for f in FIELDS}

PY_FIELDS = tuple(f for f in FIELDS if f.py is not None)
"""The Python engine's attributes (``StateFields``'s slots, beside its per-game bindings)."""
S_FIELDS = tuple(f for f in FIELDS if f.in_s)
"""The columns of the batch's ``S``, in column order."""
ARRAYS = tuple(f for f in FIELDS if f.batch is not None)
"""The batch's own arrays (after ``S``), in ``Batch`` order."""
SNAP_SCALARS = tuple(f for f in FIELDS if f.snap and f.scope == "game")
SNAP_LISTS = tuple(f for f in FIELDS if f.snap and f.scope != "game")
CLONE_SAME = tuple(f.name for f in PY_FIELDS if f.copy == "same")
CLONE_LIST = tuple(f.name for f in PY_FIELDS if f.copy == "list")
CLONE_BYTES = tuple(f.name for f in PY_FIELDS if f.copy == "bytes")
BOTH = tuple(f for f in FIELDS if f.py is not None and (f.in_s or (f.batch and not f.own)))
"""Fields both engines hold in the same form: converted one to one (``batch/convert.py``)."""


def _check() -> None:
    for f in FIELDS:
        assert f.scope in SCOPES and f.copy in COPIES, f
        assert not (f.col and f.batch), f"{f.name}: a column of S or an array, not both"
    names = [f.name for f in FIELDS]
    assert len(set(names)) == len(names), "a field is declared twice"


_check()
