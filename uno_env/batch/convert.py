"""Game ``i`` of a batch to a Python :class:`State` and back (snapshots, restores, tests)."""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch.layout import Batch
from uno_env.batch.tables import Tables
from uno_env.rules.codes import P_OVER
from uno_env.rules.game import Game
from uno_env.rules.hands import Hands
from uno_env.rules.rng import SplitMix64
from uno_env.rules.state import State
from uno_env.rules.table import BOTH

# The fields both engines hold in the same form (the state table's BOTH): a column of S, or
# a per-seat / per-card array that is a list (or bytearray) in the Python engine.
_SCALARS = tuple((f.name, getattr(L, f.col), f.kind) for f in BOTH if f.col)
_LISTS = tuple((f.name, f.batch, f.kind) for f in BOTH if f.batch and f.py != "bytearray")
_BYTES = tuple((f.name, f.batch) for f in BOTH if f.batch and f.py == "bytearray")


def round_results(s: Batch, t: Tables, i: int) -> list[dict[str, Any]]:
    """The round results of game ``i`` as ``State.round_results`` holds them."""
    k = int(s.S[i, L.NROUNDS])
    if k > t.rounds_kept:
        raise ValueError(f"game {i} has played {k} rounds; a vector env keeps the results of "
                         f"the last {t.rounds_kept} only, so it cannot be snapshot")
    return [{"winner": int(s.rr_winner[i, r]), "blocked": bool(s.rr_blocked[i, r]),
             "points": [int(x) for x in s.rr_points[i, r]],
             "hand_values": [int(x) for x in s.rr_values[i, r]]} for r in range(k)]


def to_state(s: Batch, t: Tables, game: Game, i: int) -> State:
    """A Python engine state equal to game ``i`` (play continues identically in both)."""
    st = State.__new__(State)
    st.game = game
    st.n = n = t.n
    S = s.S[i]
    for name, k, kind in _SCALARS:
        setattr(st, name, kind(S[k]))
    for name, member, kind in _LISTS:
        setattr(st, name, [kind(x) for x in getattr(s, member)[i]])
    for name, member in _BYTES:
        setattr(st, name, bytearray(getattr(s, member)[i].tobytes()))
    st.rng = SplitMix64(int(s.rng[i]))
    st.round_results = round_results(s, t, i)
    st.faces_of = faces = game.side_faces[st.side]
    st.draw_pile = [int(c) for c in s.pile[i, :S[L.PILE_LEN]]]
    st.discard = [int(c) for c in s.disc[i, :S[L.DISC_LEN]]]
    st._use_hands(Hands(n, game.num_faces))
    for c in sorted(np.nonzero(s.loc[i] >= 0)[0], key=st.acq.__getitem__):  # oldest first
        st.book.add_one(int(s.loc[i, c]), int(c), faces[c])
    st.revealed = [None if s.revealed_from[i, q] < 0 else
                   (int(s.revealed_from[i, q]), s.revealed[i, q].tobytes()) for q in range(n)]
    st.legal = [int(a) for a in np.nonzero(s.legal[i])[0]]
    st._bind()
    return st


def from_state(s: Batch, t: Tables, st: State, i: int) -> None:
    """Load a Python engine state into game ``i``."""
    if st.phase == P_OVER:
        raise ValueError("a finished game cannot be loaded into a vector env (its games "
                         "reset automatically)")
    if len(st.round_results) > t.rounds_kept:
        raise ValueError(f"the snapshot has {len(st.round_results)} round results; a vector "
                         f"env keeps {t.rounds_kept}")
    S = s.S[i]
    for name, k, _ in _SCALARS:
        S[k] = int(getattr(st, name))
    for name, member, _ in _LISTS:
        getattr(s, member)[i] = getattr(st, name)
    for name, member in _BYTES:
        getattr(s, member)[i] = np.frombuffer(bytes(getattr(st, name)), np.uint8)
    S[L.PILE_LEN] = len(st.draw_pile)
    S[L.DISC_LEN] = len(st.discard)
    S[L.NROUNDS] = len(st.round_results)
    s.rng[i] = np.uint64(st.rng.state)
    for r, res in enumerate(st.round_results):
        s.rr_winner[i, r] = res["winner"]
        s.rr_blocked[i, r] = res["blocked"]
        s.rr_points[i, r] = res["points"]
        s.rr_values[i, r] = res["hand_values"]
    s.pile[i, :len(st.draw_pile)] = st.draw_pile
    s.disc[i, :len(st.discard)] = st.discard
    S[L.TOP] = t.side_faces[S[L.SIDE], st.discard[-1]] if st.discard else 0
    s.loc[i] = -1
    for q in range(t.n):
        for cards in st.held[q]:
            for c in cards:
                s.loc[i, c] = q
        s.counts[i, q] = np.frombuffer(bytes(st.counts[q]), np.uint8)
        shown = st.revealed[q]
        s.revealed_from[i, q] = -1 if shown is None else shown[0]
        s.revealed[i, q] = 0 if shown is None else np.frombuffer(shown[1], np.uint8)
    s.hand_len[i] = st.hand_len
    s.hid_counts[i] = 0
    s.hid_unseen[i] = 0
    if t.sides:  # F-visibility: what hold_hidden keeps up to date in the kernels
        hidden = t.side_faces[S[L.SIDE] ^ 1]
        for card in np.nonzero(s.loc[i] >= 0)[0]:
            holder, h = s.loc[i, card], hidden[card]
            s.hid_counts[i, holder, h] += 1
            s.hid_unseen[i, holder, h] += 1 - s.known[i, card]
    s.legal[i] = 0
    s.legal[i, st.legal] = 1
    S[L.NLEGAL] = len(st.legal)
    S[L.ONE_LEGAL] = -1  # scratch of legal.compute_legal/settle, never read at rest
