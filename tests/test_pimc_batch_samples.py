"""Where the batched search's samples come from (uno_env.agents.pimc_batch.draw_samples,
docs/expert-iteration.md): the compiled determinizer and the Python one draw the same samples
and seeds from the same generator and leave it in the same state, the search gives the same
results from either, and the Python path is taken where the compiled one cannot draw."""

from __future__ import annotations

import random

import numpy as np
import pytest

from uno_env import raw_env
from uno_env.agents.pimc_batch import BatchPIMC, Position, Samples, draw_samples, search_actions
from uno_env.batch.determinize import Determinizer
from uno_env.determinize import Recall
from uno_env.inference import Avoid
from uno_env.rules.game import Game


def _decisions(variant: str, n: int, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    env = raw_env(variant, num_players=n)
    env.reset(seed=4)
    rng = random.Random(0)
    out = []
    while len(out) < count and not env.engine.is_over:
        o = env.observe(env.agent_selection)
        if len(search_actions(env.game, o["action_mask"])) > 1:
            out.append((o["observation"], o["action_mask"]))
        env.step(rng.choice(np.flatnonzero(o["action_mask"]).tolist()))
    return out


@pytest.mark.parametrize(("variant", "n"), [("classic", 2), ("flip", 3)])
def test_compiled_and_python_samples_are_the_same(variant: str, n: int) -> None:
    game = Game(variant, n)
    for k, (obs, mask) in enumerate(_decisions(variant, n, 4)):
        faces = np.zeros(game.num_faces, bool)
        faces[:10] = True
        known = {"avoid": [Avoid(faces, 1)]} if k % 2 else {}
        recall = Recall(int(np.flatnonzero(mask)[0]), 0) if k % 2 else None
        a, b = random.Random(k), random.Random(k)
        fast, fast_seeds = draw_samples(game, obs, mask, a, 3, recall, known)
        slow, slow_seeds = draw_samples(game, obs, mask, b, 3, recall, known, compiled=False)
        assert isinstance(fast, Samples) and isinstance(slow, list)
        assert fast_seeds == slow_seeds
        assert [s.to_dict() for s in fast] == [s.to_dict() for s in slow]
        assert fast[-1].to_dict() == slow[2].to_dict()
        assert a.getstate() == b.getstate()  # the generator left where determinize leaves it


def test_the_search_gives_the_same_results_from_either_path() -> None:
    import torch

    torch.manual_seed(0)
    game = Game("classic", 2)
    net = _tiny_net(game)
    pos = _decisions("classic", 2, 3)
    search = BatchPIMC(game, {}, net, z=0.0, rows=23)  # positions split between batches
    got = []
    for compiled in (True, False):
        todo = []
        for k, (obs, mask) in enumerate(pos):
            states, seeds = draw_samples(game, obs, mask, random.Random(k), 4,
                                         compiled=compiled)
            todo.append(Position(obs, mask, search_actions(game, mask), states, seeds))
        got.append(search.search(todo))
    for x, y in zip(*got, strict=True):
        assert x.move == y.move and x.first == y.first
        np.testing.assert_array_equal(x.wins, y.wins)
        np.testing.assert_array_equal(x.q, y.q)


class _Subclass(random.Random):
    pass


def test_a_generator_subclass_takes_the_python_path() -> None:
    game = Game("classic", 2)
    obs, mask = _decisions("classic", 2, 1)[0]
    states, seeds = draw_samples(game, obs, mask, _Subclass(3), 2)
    ref, ref_seeds = draw_samples(game, obs, mask, random.Random(3), 2)
    assert isinstance(states, list) and seeds == ref_seeds
    assert [s.to_dict() for s in states] == [s.to_dict() for s in ref]


def test_samples_of_another_table_are_refused() -> None:
    game = Game("classic", 2, stacking=True)
    obs, mask = _decisions("classic", 2, 1)[0]
    states, seeds = draw_samples(game, obs, mask, random.Random(1), 2)
    assert isinstance(states, Samples)
    assert states.det.game.options == Determinizer("classic", 2, stacking=True).game.options
    search = BatchPIMC(Game("classic", 2), {}, _tiny_net(Game("classic", 2)), rows=8)
    with pytest.raises(ValueError, match="drawn for another table"):
        search.search([Position(obs, mask, search_actions(game, mask), states, seeds)])
    with pytest.raises(IndexError):
        states[2]


def _tiny_net(game: Game):
    from uno_env.agents.policy import PolicyNet

    env = raw_env(game.variant.name, num_players=game.num_players, **game.options)
    return PolicyNet(env.layout.size, game.num_actions, hidden=(16,)).eval()
