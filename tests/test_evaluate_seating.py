"""``uno-env evaluate --seating one``: one agent against a field of another, its seat rotated
over each deal (how the 4-player agent of docs/results.md is measured)."""

from __future__ import annotations

import pytest

from uno_env.cli import main
from uno_env.training.evaluate import deal_group, deal_seed, evaluate, seat_owner


def test_one_seat_rotates_over_each_deal() -> None:
    n = 4
    assert deal_group(n, "one") == n and deal_group(n, "alternate") == 2
    for deal in range(3):
        games = range(deal * n, deal * n + n)
        assert len({deal_seed(7, g, n) for g in games}) == 1  # one deal per group
        seats_of_a = [[s for s in range(n) if seat_owner(g, s, n, "one") == 0] for g in games]
        assert sorted(x for (x,) in seats_of_a) == list(range(n))  # A once in every seat
    assert deal_seed(7, 0, n) != deal_seed(7, n, n)


def test_two_player_seatings_are_the_same_games() -> None:
    a = evaluate("rule", "random", 12, seed=4, max_steps=400)
    b = evaluate("rule", "random", 12, seed=4, max_steps=400, seating="one")
    assert [r.wins for r in a.agents] == [r.wins for r in b.agents]
    assert a.decisions == b.decisions


def test_one_against_a_field_counts_each_side_and_splits_over_workers() -> None:
    one = evaluate("rule", "random", 16, num_players=4, seed=5, seating="one", max_steps=2000)
    two = evaluate("rule", "random", 16, num_players=4, seed=5, seating="one", max_steps=2000,
                   workers=2)
    assert [r.wins for r in one.agents] == [r.wins for r in two.agents]
    assert one.decisions == two.decisions
    a, field = one.agents
    assert a.wins + field.wins + one.shared + one.no_winner == 16
    assert "A in one seat, B in the other 3" in one.format()
    # the seating changes who sits where: the same deals seated alternately differ
    alt = evaluate("rule", "random", 16, num_players=4, seed=5, max_steps=2000)
    assert alt.decisions != one.decisions or alt.agents[0].wins != a.wins


def test_bad_seating_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown seating 'solo'; choose one of alternate, one"):
        evaluate("rule", "random", 4, seating="solo")


def test_cli_seating(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--agents", "rule,random", "--games", "8", "--players", "4",
                 "--seating", "one", "--no-progress"]) == 0
    assert "each deal played 4 times, A in every seat" in capsys.readouterr().out
