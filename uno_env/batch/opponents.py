"""Compiled opponents: ``random`` and ``rule`` as numba kernels over the batch state.

Each kernel chooses exactly what the Python agent would choose on the same game
(``agents/random_agent.py``, ``agents/rule.py``; ``tests/test_batch_opponents.py`` checks
every decision against them), so a game with compiled opponents is the game the Python
loop would have played.

The contract (stable; the vector env and evaluation build on it):

- Opponent kinds, one int per (game, seat): :data:`OPP_EXTERNAL` (0: not compiled, e.g. the
  learner or a policy seat handled outside the kernels), :data:`OPP_RANDOM` (1),
  :data:`OPP_RULE` (2).
- ``ot = build_opponent_tables(game, layout, batch_tables)``: an :class:`OpponentTables`
  named tuple of arrays and scalars with every static fact the kernels read (built once per
  configuration; the rule agent's parsed action table, read from a ``RuleAgent`` itself).
- ``om = allocate_opponent_memory(num_envs, num_players, num_faces)``: an
  :class:`OpponentMemory` named tuple: each (game, seat)'s Mersenne Twister (``mt``,
  ``mti``) and rule memory (``prev_discard``, ``prev_color``, ``has_prev``), plus scratch.
- ``opponent_reset(om, i, seat, seed)`` (``@njit``): ``agent.seed(seed); agent.reset()`` for
  game ``i``'s ``seat``: the generator is ``random.Random(seed)`` (any int64; CPython seeds
  with ``abs(seed)``) and the rule memory is cleared. ``opponent_clear(om, i, seat)`` is
  ``agent.reset()`` alone. :func:`set_random_state` / :func:`random_state` (Python) copy a
  seat's generator from / to ``random.Random.getstate()`` form. (``SingleAgentEnv.reset``
  draws ``rng.integers(2**63)`` for every opponent seat that has a ``seed`` method, the
  rule agent's included, whose ``seed`` does nothing: pass that draw here for both kinds.)
- Inside a fused kernel, ``ot, om = borrow_opponents(ot, om)`` then ``as_ref(ot)``,
  ``as_ref(om)`` (as ``uno_env.batch.step`` does with the state and tables) spares reference
  counting and copies of the tuples on every call.
- ``opponent_act(s, t, ot, om, i, seat, kind) -> int64`` (``@njit``): the action the agent
  of ``kind`` chooses now in game ``i`` for ``seat``, which must be the seat to act
  (``s.S[i, CUR]``) with its legal row in ``s.legal[i]``; it updates that seat's memory as
  the Python agent does (the rule agent remembers after its own decision). -1 for
  :data:`OPP_EXTERNAL` or when no action is legal. It touches only game ``i``'s rows, so
  games may run on any thread.

``s`` and ``t`` are the batch state and tables (``uno_env.batch.layout.Batch``,
``uno_env.batch.tables.Tables``) as given or borrowed inside a kernel (``as_ref``); both
functions compile for either, so they can be fused into other ``@njit`` kernels.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import numpy as np

from uno_env.batch import layout as L
from uno_env.batch.borrow import as_ref, borrow, borrow_batch, borrow_tables
from uno_env.batch.cache import njit
from uno_env.batch.layout import Batch
from uno_env.batch.mt19937 import N as MT_N
from uno_env.batch.mt19937 import randbelow, seed_int
from uno_env.batch.rule_policy import rule_action
from uno_env.batch.rule_tables import RuleTables, rule_tables
from uno_env.batch.tables import Tables
from uno_env.observation import ObservationLayout
from uno_env.rules.game import Game

OPP_EXTERNAL, OPP_RANDOM, OPP_RULE = 0, 1, 2
KINDS = {"random": OPP_RANDOM, "rule": OPP_RULE}
"""Agent specs with a compiled kernel, and their kind."""
SCRATCH = 16  # scratch per game: the rule agent's per-colour counts of one decision


OpponentTables = RuleTables  # the rule agent's tables hold every static fact (random needs none)


class OpponentMemory(NamedTuple):
    mt: np.ndarray  # [B, N, 624] uint32: each seat's random.Random state
    mti: np.ndarray  # [B, N] int64: its index (624: twist on the next draw)
    prev_discard: np.ndarray  # [B, N, F] int16: the rule agent's _prev_discard
    prev_color: np.ndarray  # [B, N] int8: its _prev_color, -1 for None
    has_prev: np.ndarray  # [B, N] uint8: 0 while _prev_discard is None
    scratch: np.ndarray  # [B, SCRATCH] int64


def build_opponent_tables(game: Game, layout: ObservationLayout,
                          batch_tables: Tables) -> OpponentTables:
    """The static facts of one configuration (``layout`` and ``batch_tables`` are those of
    the batch engine playing it; checked to be the same game)."""
    if layout.game is not game and layout.size != ObservationLayout(game).size:
        raise ValueError("the observation layout belongs to another game")
    if batch_tables.na != game.num_actions or batch_tables.n != game.num_players:
        raise ValueError(f"the batch tables are of another game ({batch_tables.n} players, "
                         f"{batch_tables.na} actions; this game: {game.num_players}, "
                         f"{game.num_actions})")
    return rule_tables(game)


def allocate_opponent_memory(num_envs: int, num_players: int,
                             num_faces: int) -> OpponentMemory:
    """Zeroed memory for ``num_envs`` games of ``num_players`` seats (``opponent_reset``
    each seat before it acts)."""
    b, n = int(num_envs), int(num_players)
    return OpponentMemory(
        mt=np.zeros((b, n, MT_N), np.uint32), mti=np.full((b, n), MT_N, np.int64),
        prev_discard=np.zeros((b, n, int(num_faces)), np.int16),
        prev_color=np.full((b, n), -1, np.int8), has_prev=np.zeros((b, n), np.uint8),
        scratch=np.zeros((b, SCRATCH), np.int64))


@njit(cache=True, error_model="numpy")
def opponent_clear(om: OpponentMemory, i: int, seat: int) -> None:
    """``agent.reset()``: the rule agent forgets the game (the generator is kept)."""
    om.has_prev[i, seat] = 0
    om.prev_color[i, seat] = -1


@njit(cache=True, error_model="numpy")
def opponent_reset(om: OpponentMemory, i: int, seat: int, seed: int) -> None:
    """``agent.seed(seed); agent.reset()``: ``random.Random(seed)``'s state, no memory."""
    om.mti[i, seat] = seed_int(om.mt[i, seat], seed)
    opponent_clear(om, i, seat)


@njit(cache=True, error_model="numpy")
def random_action(s: Batch, t: Tables, om: OpponentMemory, i: int, seat: int) -> int:
    """``RandomAgent.act``: ``legal[rng.randrange(len(legal))]`` over the legal row."""
    lg = s.legal
    na = t.na
    k = 0
    for a in range(na):
        k += lg[i, a]
    if k == 0:
        return -1
    r = randbelow(om.mt, om.mti, i, seat, k)
    for a in range(na):
        if lg[i, a]:
            if r == 0:
                return a
            r -= 1
    return -1


@njit(cache=True, inline="always", error_model="numpy")
def opponent_act(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, i: int,
                 seat: int, kind: int) -> int:
    """The action of the ``kind`` agent at ``seat`` (the seat to act) in game ``i``."""
    if kind == OPP_RANDOM:
        return random_action(s, t, om, i, seat)
    if kind == OPP_RULE:
        return rule_action(s, t, ot, om, i, seat)
    return -1


@njit(cache=True, error_model="numpy")
def borrow_opponents(ot: OpponentTables, om: OpponentMemory) -> tuple[OpponentTables,
                                                                      OpponentMemory]:
    """``ot`` and ``om`` with borrowed arrays (``uno_env.batch.borrow``), for the inside of
    a kernel that keeps the real ones alive; pass them on as ``as_ref(...)`` of each."""
    return (RuleTables(borrow(ot.act), borrow(ot.base), borrow(ot.play_order), borrow(ot.face),
                       borrow(ot.deck_color), borrow(ot.runs), ot.num_cards, ot.track,
                       ot.threshold, ot.n_lead, ot.k_play,
                       ot.k_play_two, ot.k_play_flex, ot.k_draw, ot.k_pass, ot.k_color,
                       ot.k_target, ot.k_challenge, ot.k_accept, ot.k_uno, ot.k_catch),
            OpponentMemory(borrow(om.mt), borrow(om.mti), borrow(om.prev_discard),
                           borrow(om.prev_color), borrow(om.has_prev), borrow(om.scratch)))


@njit(cache=True, error_model="numpy")
def act_games(s: Batch, t: Tables, ot: OpponentTables, om: OpponentMemory, games: np.ndarray,
              kinds: np.ndarray, out: np.ndarray) -> None:
    """``out[games[j]] = opponent_act(...)`` for the seat to act in each of ``games``, as an
    agent of ``kinds[j]`` (a caller that moves opponents from Python, once per tick)."""
    s = as_ref(borrow_batch(s))
    t = as_ref(borrow_tables(t))
    ot, om = borrow_opponents(ot, om)
    ot, om = as_ref(ot), as_ref(om)
    for j in range(games.shape[0]):
        i = games[j]
        out[i] = opponent_act(s, t, ot, om, i, s.S[i, L.CUR], kinds[j])


def set_random_state(om: OpponentMemory, i: int, seat: int, state: tuple[object, ...]) -> None:
    """Load ``random.Random.getstate()`` (or ``RandomAgent.get_state()``) into a seat."""
    words = state[1]
    if not isinstance(words, tuple | list) or len(words) != MT_N + 1:
        raise ValueError(f"not a random.Random state: expected (version, {MT_N + 1} ints, "
                         f"gauss), got {type(words).__name__} of length "
                         f"{len(words) if isinstance(words, tuple | list) else '?'}")
    om.mt[i, seat] = np.asarray(words[:MT_N], dtype=np.uint32)
    om.mti[i, seat] = int(words[MT_N])


def random_state(om: OpponentMemory, i: int, seat: int) -> tuple[object, ...]:
    """A seat's generator as ``random.Random.getstate()`` gives it."""
    words = tuple(int(x) for x in om.mt[i, seat]) + (int(om.mti[i, seat]),)
    return (random.Random().getstate()[0], words, None)
