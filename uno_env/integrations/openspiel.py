"""Every variant as a Python OpenSpiel game: ``pyspiel.load_game("python_uno_flip(players=3)")``.

Importing this module registers one game per registered variant
(:func:`uno_env.variants.list_variants`), named ``python_uno_<variant>``, the way OpenSpiel's
own Python games do (``open_spiel/python/games/kuhn_poker.py``). Needs ``open_spiel``.

Parameters: ``players``, each rule option of the variant (``stacking=true``,
``uno_catch=decision``, ... with the env's names, defaults and checks), ``max_steps`` (the
env's decision limit: reaching it ends the game with returns 0, as the env truncates),
``num_deals`` and ``seed`` (the chance model, below).

The action table, its meanings and the returns are the PettingZoo env's
(``raw_env(...).action_meanings``; ``reward="win_loss"``: the winners share +1, the others
-1). Player ``i`` is the env's ``player_i``.

Chance model: explicit chance over seeded shuffles. Every random event of a game (the
dealer, the deal, and the reshuffles of the discard pile that happen mid-game, G-reshuffle)
comes from the engine's one seeded generator (:mod:`uno_env.rules.rng`), which the env and
the compiled batch engine reproduce bit for bit. So a game starts at one chance node with
``num_deals`` equally likely outcomes: outcome ``i`` seeds the play-out exactly as
``raw_env(...).reset(seed=seed + i)`` does, and everything random after it follows from that
seed. A state is thus determined by its history, as OpenSpiel expects, and whoever samples
chance (``random_sim_test``, Shimmy's seeded ``reset``, a bot's ``random_state``) picks the
deal. Why not a chance node per card drawn (OpenSpiel's Crazy Eights)? The engine draws
inside one decision (forced draws, draw penalties, reshuffles), so it would have to stop at
every draw, and games could no longer be replayed against the env or the batch engine.
Why not ``SAMPLED_STOCHASTIC``? OpenSpiel serialises such a game with its generator state
(``Game::GetRNGState``), which pybind11 does not let a Python game provide, so
``serialize_game_and_state`` would fail. The price: a game has ``num_deals`` (default 65,536)
possible deals and shuffle sequences, not every permutation of the deck; algorithms that
enumerate chance exactly see those. A clone plays on with the same future shuffles; a state
from :meth:`UnoState.resample_from_infostate` has its own (any deal consistent with the
player's information, not only the seeded ones).

Observations (:mod:`uno_env.integrations.openspiel_observer`): the env's observation vector
with its named pieces, and the same as text; the information state adds, to the string,
every decision taken so far (all public in UNO). ``resample_from_infostate`` draws a full
state the player to act cannot tell from the real one with the project's determinization
(:func:`uno_env.determinize.determinize`; with 2 players it also keeps what the opponent's
forced draws and a challenge showed, :mod:`uno_env.inference`, as the project's ISMCTS agent
does), so ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` plays these games (the C++
``pyspiel.ISMCTSBot`` cannot: a Python state cannot override its C++ resampling).
Serialisation (``pyspiel.serialize_game_and_state``) stores the engine's snapshot
(``State.to_dict``); a deserialised state plays on exactly as the original.
"""

from __future__ import annotations

import json
import random
from array import array
from itertools import repeat
from typing import Any

import numpy as np
import pyspiel

from uno_env.aec import DEFAULT_MAX_STEPS
from uno_env.determinize import Recall, determinize
from uno_env.integrations.openspiel_observer import UnoObserver
from uno_env.integrations.openspiel_parts import DrawKnowledge, Play, table_for
from uno_env.rules.codes import P_OVER
from uno_env.rules.rng import SplitMix64
from uno_env.rules.state import State
from uno_env.variants import find_variant, list_variants

PREFIX = "python_uno_"
NUM_DEALS = 1 << 16  # default chance outcomes: seeds seed .. seed + NUM_DEALS - 1
MAX_NUM_DEALS = 1 << 20  # chance_outcomes() lists them all
GAME_PARAMETERS = ("players", "max_steps", "num_deals", "seed")  # beside the rule options


def short_name(variant: str) -> str:
    """The OpenSpiel name of a variant: ``python_uno_<variant>``."""
    return PREFIX + find_variant(variant).name


def _parameter_spec(variant: str) -> dict[str, Any]:
    v = find_variant(variant)
    spec: dict[str, Any] = {"players": v.min_players, "max_steps": DEFAULT_MAX_STEPS,
                            "num_deals": NUM_DEALS, "seed": 0}
    spec.update({k: opt.default for k, opt in v.options.items()})
    return spec


def _max_players(variant: str) -> int:
    """The most players any option setting allows (Express: 10 with allow_more_players)."""
    v = find_variant(variant)
    defaults = {k: o.default for k, o in v.options.items()}
    settings = [defaults] + [{**defaults, k: a} for k, o in v.options.items()
                             for a in (o.allowed or ())]
    return max(v.player_range(s)[1] for s in settings)


def game_type(variant: str) -> pyspiel.GameType:
    """The registered :class:`pyspiel.GameType` of a variant."""
    v = find_variant(variant)
    return pyspiel.GameType(
        short_name=short_name(v.name),
        long_name=f"Python UNO {v.name.capitalize()}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        # one chance node over seeded deals: see the module docstring
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_max_players(v.name),
        min_num_players=v.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_spec(v.name))


class UnoGame(pyspiel.Game):
    """One configuration of one variant; ``new_initial_state()`` starts a play-out."""

    variant: str = "classic"

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        spec = _parameter_spec(self.variant)
        unknown = sorted(set(given) - set(spec))
        if unknown:
            raise ValueError(f"unknown parameter {unknown[0]!r} for {short_name(self.variant)}; "
                             f"allowed: {', '.join(sorted(spec))}")
        values = {**spec, **given}
        players, max_steps, num_deals, seed = (values.pop(k) for k in GAME_PARAMETERS)
        for name, value, low, high in (("players", players, 1, None),
                                       ("max_steps", max_steps, 1, None),
                                       ("num_deals", num_deals, 1, MAX_NUM_DEALS),
                                       ("seed", seed, 0, None)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low or (
                    high is not None and value > high):
                allowed = f"{low}-{high}" if high else f">= {low}"
                raise ValueError(f"parameter {name}={value!r} is not valid; allowed: an "
                                 f"integer {allowed}")
        # the rules check the options and the player count (with the env's messages)
        table = table_for(self.variant, players, json.dumps(values, sort_keys=True), max_steps)
        info = pyspiel.GameInfo(
            num_distinct_actions=table.game.num_actions,
            max_chance_outcomes=num_deals,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_steps)
        super().__init__(game_type(self.variant), info, {**given, "players": players})
        self.table = table
        self.num_deals, self.seed = num_deals, seed
        self._deal_prob = 1.0 / num_deals

    def new_initial_state(self) -> UnoState:
        """A play-out at its chance node (the deal)."""
        return UnoState(self)

    def deal_seed(self, outcome: int) -> int:
        """The engine seed of chance outcome ``outcome``: ``raw_env.reset(seed=seed +
        outcome)``'s (that seed seeds a SplitMix64 whose first draw seeds the engine)."""
        if isinstance(outcome, bool) or not 0 <= outcome < self.num_deals:
            raise ValueError(f"chance outcome {outcome!r} is not valid; allowed: "
                             f"0-{self.num_deals - 1}")
        return SplitMix64(self.seed + outcome).next_u64()

    def max_chance_nodes_in_history(self) -> int:
        return 1

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> UnoObserver:
        """The observer (OpenSpiel's PyObserver protocol); see ``openspiel_observer``."""
        return UnoObserver(self.table.game, self.table.layout,
                           iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
                           params)


class UnoState(pyspiel.State):
    """One play-out. ``engine`` is the rules-engine :class:`~uno_env.rules.state.State`
    (None before the deal), as ``raw_env(...).engine``."""

    def __init__(self, game: UnoGame) -> None:
        super().__init__(game)
        self._table = game.table
        self._play: Play | None = None
        # seat, action, seat, action, ... of every decision (all public); an array, which
        # clone's deep copy copies at once (a list of pairs is copied item by item)
        self._moves = array("i")
        # each seat's last decision and the colour it saw (determinize's `recall`)
        self._recall: list[tuple[int, int] | None] = [None] * game.table.game.num_players
        self._deal_seed = -1  # the engine seed of the deal (DrawKnowledge replays from it)
        self._draws = DrawKnowledge()  # each seat's draw inferences, found on demand
        self._truncated = False

    @property
    def engine(self) -> State | None:
        return None if self._play is None else self._play.state

    @property
    def moves(self) -> list[tuple[int, int]]:
        """``(seat, action)`` of every decision so far, in order."""
        m = self._moves
        return list(zip(m[::2], m[1::2], strict=True))

    def current_player(self) -> int:
        if self._play is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self._truncated or self._play.state.phase == P_OVER:
            return int(pyspiel.PlayerId.TERMINAL)
        return self._play.state.current

    def _legal_actions(self, player: int) -> list[int]:
        assert self._play is not None and player >= 0
        return sorted(self._play.state.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._play is None
        game = self.get_game()
        return list(zip(range(game.num_deals), repeat(game._deal_prob)))

    def _apply_action(self, action: int) -> None:
        if self._play is None:
            seed = self.get_game().deal_seed(int(action))
            self._deal_seed = seed
            self._play = Play(self._table, State(self._table.game, seed=seed))
            return
        g = self._play.state
        seat = g.current
        color = g.active_color
        g.step(int(action))  # IllegalActionError (a ValueError, game unchanged) if illegal
        self._moves.extend((seat, int(action)))
        self._recall[seat] = (int(action), color)
        if g.phase != P_OVER and len(self._moves) >= 2 * self._table.max_steps:
            self._truncated = True  # the env's truncation: returns 0

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal seed {self.get_game().seed + action}"
        meanings = self._table.game.actions.meanings
        if not 0 <= action < len(meanings):
            raise ValueError(f"action {action} is not valid; allowed: 0-{len(meanings) - 1}")
        return meanings[action]

    def is_terminal(self) -> bool:
        return self._play is not None and (self._truncated
                                           or self._play.state.phase == P_OVER)

    def returns(self) -> list[float]:
        """The env's ``win_loss`` rewards: the winners share +1, the others share -1; 0 for
        all until the end, and when the decision limit ends the game."""
        n = self._table.game.num_players
        out = [0.0] * n
        if self._play is None or self._truncated:
            return out
        winners = self._play.state.winners()
        if not winners or len(winners) == n:
            return out
        for s in range(n):
            out[s] = 1.0 / len(winners) if s in winners else -1.0 / (n - len(winners))
        return out

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> UnoState:
        """A state that ``player_id`` (the player to act) cannot tell from this one: the same
        information state, the hidden cards and future shuffles drawn by
        :func:`uno_env.determinize.determinize` from a seed taken from
        ``probability_sampler`` (OpenSpiel's ``UniformProbabilitySampler``)."""
        out: UnoState = self.clone()
        if self._play is None or self.is_terminal():
            return out
        g = self._play.state
        if player_id != g.current:
            raise ValueError(f"resample_from_infostate needs the player to act ({g.current}), "
                             f"got player {player_id}: determinization samples decision "
                             "points only")
        rng = random.Random(int(probability_sampler() * 2**53))
        mask = np.zeros(self._table.game.num_actions, np.int8)
        mask[g.legal] = 1
        last = self._recall[player_id]
        known = self._draws.known(self._table, self._deal_seed, self._moves, player_id)
        sample = determinize(self._table.game, self._table.layout.build(g, player_id), mask,
                             rng, seat=player_id,
                             recall=None if last is None else Recall(*last), **known)
        out._play = Play(self._table, sample)
        return out

    def __str__(self) -> str:
        if self._play is None:
            return "deal pending"
        from uno_env.render import render_text

        g = self._play.state
        return render_text(g, g.current, reveal=True) + ("\ntruncated" if self._truncated else "")


def _register() -> None:
    registered = set(pyspiel.registered_names())
    for name in list_variants():
        cls = type(f"Uno{name.capitalize()}Game", (UnoGame,),
                   {"variant": name, "__module__": __name__})
        globals()[cls.__name__] = cls
        if short_name(name) not in registered:
            pyspiel.register_game(game_type(name), cls)


_register()
