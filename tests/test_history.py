"""The public-history observation pieces (`opp_declined`, `opp_drawn`, G-hidden) from fixed
deals, and the policy files that predate them (they read every other piece).

The compiled engine writes the same pieces: ``tests/test_batch_diff.py`` compares the whole
observation vector of both engines after every decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import test_rules_draw_catch as dc
import torch
from scenario_helpers import act, make_deck

from uno_env import ObservationLayout, raw_env
from uno_env.agents.policy import (
    PolicyNet,
    config_key,
    input_index,
    load_policy,
    policy_payload,
    policy_pieces,
    save_policy,
    widen_inputs,
)
from uno_env.cards import LIGHT_COLORS
from uno_env.observation import HISTORY_PIECES

RED, YELLOW = LIGHT_COLORS.index("red"), LIGHT_COLORS.index("yellow")
SEAT0 = ["yellow-5", "wild", "green-1", "green-2", "blue-7", "green-8", "blue-4"]
SEAT1 = ["red-8", "red-2", "blue-1", "blue-2", "green-4", "green-7", "yellow-8"]


def history(env: raw_env, seat: int) -> tuple[list[int], int]:
    """(colours declined, cards drawn) of the other player, in ``seat``'s observation."""
    o = ObservationLayout(env.game).decode(env.observe(env.possible_agents[seat]))
    return [int(x) for x in np.flatnonzero(o["opp_declined"])], int(o["opp_drawn"][0])


def classic(seat1: list[str] = SEAT1, seat0: list[str] = SEAT0,
            draw: tuple[str, ...] = ("yellow-7",)) -> raw_env:
    return dc.deal("classic", seat1, seat0, draw=draw, voluntary_draw=True,
                   catch_window="turn")


def test_g_hidden_history_a_kept_card_declines_the_colour_until_one_of_it_is_played() -> None:
    env = classic()
    assert history(env, 0) == ([], 0) and history(env, 1) == ([], 0)  # nothing at the deal
    act(env, "draw")  # seat 1 draws yellow-7 on red-5 and keeps it (the engine: no play)
    assert env.engine.current == 0
    assert history(env, 0) == ([RED], 1)
    assert history(env, 1) == ([], 0)  # seat 0 did nothing yet
    act(env, "play yellow-5")
    act(env, "play yellow-7")  # a yellow card: red stays declined, the drawn count restarts
    assert history(env, 0) == ([RED], 0)
    assert history(env, 1) == ([], 0)
    act(env, "play wild")
    act(env, "color red")
    act(env, "play red-8")  # a red card: the decline is stale
    assert history(env, 0) == ([], 0)


def test_g_hidden_history_cards_taken_count_until_the_next_play() -> None:
    """Every card taken counts: draws, a draw card's penalty."""
    env = classic(seat0=["red-draw-two", *SEAT0[1:]])
    act(env, "play red-8")
    act(env, "play red-draw-two")  # seat 1 takes 2 and loses its turn
    assert env.engine.current == 0
    assert history(env, 0) == ([], 2)
    act(env, "play wild")
    act(env, "color green")
    assert history(env, 1) == ([], 0)
    act(env, "draw")  # seat 1 holds green cards, draws anyway and keeps the card
    if env.engine.current == 1:  # the drawn card (from the fixed pile) was playable: keep it
        act(env, "pass")
    assert history(env, 0) == ([LIGHT_COLORS.index("green")], 3)


def test_f_flip_clears_the_declined_colours() -> None:
    """F-flip: the dark side has other colours; nothing is known of them."""
    names = dc.Names("flip")
    hands = {1: names(SEAT1), 0: names(["red-flip", *SEAT0[2:]])}
    first, *pile = names(["red-5", "yellow-7", "green-3"])
    env = raw_env("flip", 2, voluntary_draw=True)
    env.reset(seed=0, options={"deck": make_deck("flip", 2, 0, hands=hands, first=first,
                                                 draw=pile), "dealer": 0})
    act(env, "draw")
    assert history(env, 0) == ([RED], 1)
    act(env, "play red-flip")
    assert env.engine.side == 1
    assert history(env, 0) == ([], 1)


def test_history_survives_a_snapshot_and_an_old_snapshot_has_none() -> None:
    env = classic()
    act(env, "draw")
    snap = env.engine.to_dict()
    assert snap["declined"] == [0, 1 << RED] and snap["drawn_since"] == [0, 1]
    game = env.engine.from_dict(env.game, snap)
    assert game.declined == [0, 1 << RED] and game.drawn_since == [0, 1]
    old = {k: v for k, v in snap.items() if k not in ("declined", "drawn_since")}
    assert env.engine.from_dict(env.game, old).declined == [0, 0]


# --- policy files from before the history pieces ------------------------------------------

def _legacy_file(tmp_path: Path, critic_extra: int = 0) -> tuple[Path, PolicyNet]:
    """A policy file as the first shipped ones were written: no `pieces`, fewer inputs."""
    lay = ObservationLayout(raw_env("classic", 2).game)
    old_dim = sum(p.size for p in lay.pieces if p.name not in HISTORY_PIECES)
    key: dict[str, Any] = {**config_key("classic", 2, {}), "obs_dim": old_dim}
    del key["pieces"]
    torch.manual_seed(0)
    net = PolicyNet(old_dim, key["num_actions"], (32, 32), critic_extra=critic_extra,
                    obs_scale=np.linspace(0.1, 1.0, old_dim).astype(np.float32))
    path = save_policy(tmp_path / "old.pt", net, key)
    assert "pieces" not in torch.load(path, weights_only=True)
    return path, net


def _inputs(lay: ObservationLayout, rows: int = 6) -> torch.Tensor:
    x = torch.rand(rows, lay.size, generator=torch.Generator().manual_seed(1)) * 4
    return x


def test_an_old_policy_file_reads_every_piece_but_the_history(tmp_path: Path) -> None:
    path, old = _legacy_file(tmp_path)
    net, payload = load_policy(path)
    lay = ObservationLayout(raw_env("classic", 2).game)
    assert policy_pieces(payload) == [p.name for p in lay.pieces if p.name not in HISTORY_PIECES]
    x = _inputs(lay)
    keep = torch.as_tensor(input_index(payload))
    mask = torch.ones(len(x), net.num_actions, dtype=torch.bool)
    torch.testing.assert_close(net(x, mask)[0], old(x[:, keep], mask)[0])
    x2 = x.clone()
    for name in HISTORY_PIECES:  # the history cannot change what an old network does
        p = lay.by_name[name]
        x2[:, p.start:p.stop] += 3
    torch.testing.assert_close(net(x2, mask)[0], net(x, mask)[0])


def test_a_new_policy_file_names_its_pieces_and_reads_the_whole_vector(tmp_path: Path) -> None:
    key = config_key("classic", 2, {})
    assert set(HISTORY_PIECES) <= set(key["pieces"])
    net = PolicyNet(key["obs_dim"], key["num_actions"], (16,))
    payload = policy_payload(net, key)
    assert input_index(payload) is None
    bad = {**payload, "pieces": [*key["pieces"], "no_such_piece"]}
    with pytest.raises(ValueError, match="no_such_piece"):
        input_index(bad)


@pytest.mark.parametrize("critic_extra", [0, 5])
def test_widened_weights_compute_the_same_policy_and_value(tmp_path: Path,
                                                           critic_extra: int) -> None:
    """`init:` from an old file: zero weights from the new pieces, the same function."""
    path, old = _legacy_file(tmp_path, critic_extra)
    _, payload = load_policy(path)
    key = config_key("classic", 2, {})
    lay = ObservationLayout(raw_env("classic", 2).game)
    full = PolicyNet(key["obs_dim"], key["num_actions"], (32, 32), critic_extra=critic_extra)
    full.load_state_dict(widen_inputs(payload["model"], input_index(payload), full))
    x = _inputs(lay)
    extra = torch.rand(len(x), critic_extra) if critic_extra else None
    keep = torch.as_tensor(input_index(payload))
    mask = torch.ones(len(x), full.num_actions, dtype=torch.bool)
    for a, b in zip(full(x, mask, extra), old(x[:, keep], mask, extra), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-4)
