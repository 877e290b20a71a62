"""OpenSpiel's ISMCTS bot against the project's ``rule`` agent on a registered UNO game
(docs/openspiel.md).

The bot is OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``) with
random rollouts; it samples worlds with the game's ``resample_from_infostate`` (the
project's determinization). The ``rule`` agent reads the same observation tensor the env
gives it. Every deal is played twice with the seats swapped; the win rate of the bot comes
with a 95% interval clustered by deal (:func:`uno_env.stats.clustered_rate`). A game cut
by the decision limit counts as no win. Needs the ``openspiel`` extra. Usage::

    python examples/openspiel_ismcts.py [--variant classic] [--deals 2]
        [--simulations 20] [--max-steps 300] [--seed 0] [--option stacking=true ...]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from uno_env import agents
from uno_env.cli import options_dict, parse_option
from uno_env.integrations import openspiel as uos
from uno_env.stats import clustered_rate


def play(game: pyspiel.Game, deal: int, bot_seat: int, bot: Any, rule: Any) -> list[float]:
    """One game from chance outcome ``deal``: the bot at ``bot_seat``, ``rule`` elsewhere."""
    state = game.new_initial_state()
    state.apply_action(deal)
    rule.reset()
    n_act = game.num_distinct_actions()
    while not state.is_terminal():
        p = state.current_player()
        if p == bot_seat:
            action = bot.step(state)
        else:
            mask = np.zeros(n_act, np.int8)
            mask[state.legal_actions()] = 1
            action = rule.act(np.asarray(state.observation_tensor(p), np.float32), mask)
        state.apply_action(int(action))
    returns: list[float] = state.returns()
    return returns


def run(variant: str = "classic", deals: int = 2, simulations: int = 20, max_steps: int = 300,
        seed: int = 0, **options: Any) -> dict[str, Any]:
    """Play ``deals`` deals twice (seats swapped) at 2 players; the bot's wins per deal."""
    game = pyspiel.load_game(uos.short_name(variant),
                             {"players": 2, "max_steps": max_steps, "seed": seed, **options})
    rs = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0,
                           max_simulations=simulations, random_state=rs)
    rule = agents.load("rule", variant=variant, num_players=2, seed=seed, **options)
    clusters, truncated, seat_wins = [], 0, [0, 0]
    for deal in range(deals):
        wins = 0
        for seat in (0, 1):
            returns = play(game, deal, seat, bot, rule)
            won = int(returns[seat] > 0)
            wins += won
            seat_wins[seat] += won
            truncated += returns == [0.0, 0.0]
        clusters.append((wins, 2))
    p, _, low, high = clustered_rate(clusters)
    return {"variant": variant, "games": 2 * deals, "seat_wins": seat_wins,
            "simulations": simulations, "win_rate": p, "ci95": (low, high),
            "truncated": truncated}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--deals", type=int, default=2)
    ap.add_argument("--simulations", type=int, default=20)
    ap.add_argument("--max-steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", type=parse_option, metavar="K=V",
                    help="rule option, repeatable (e.g. --option stacking=true)")
    a = ap.parse_args(argv)
    t = time.perf_counter()
    out = run(a.variant, a.deals, a.simulations, a.max_steps, a.seed,
              **options_dict(a.option))
    low, high = out["ci95"]
    w0, w1 = out["seat_wins"]
    print(f"OpenSpiel ISMCTS ({a.simulations} simulations) vs rule, {a.variant}: "
          f"{out['games']} games ({a.deals} deals, seats swapped; wins as player_0 {w0}/"
          f"{a.deals}, as player_1 {w1}/{a.deals}), win rate {out['win_rate']:.1%} (95% CI "
          f"{low:.1%}-{high:.1%}), {out['truncated']} cut by the decision limit, "
          f"{time.perf_counter() - t:.1f}s")
    return out


if __name__ == "__main__":
    main()
