"""The batch engine against the Python engine, decision by decision (docs/architecture.md).

Every variant over its configuration matrix (every option value, 2/3/4/max players, reward
and episode modes, max_steps): observation, mask, current player, rewards, termination,
truncation and the final observation after every decision, the whole engine state every few.
"""

from __future__ import annotations

import pytest

from uno_env.batch.verify import Mismatch, config_matrix, run_config, run_variant
from uno_env.variants import list_variants


@pytest.mark.parametrize("variant", list_variants())
def test_batch_engine_plays_the_python_engines_games(variant: str) -> None:
    res = run_variant(variant, 20_000, seed=12)
    assert res.decisions >= 20_000 - 2 * len(config_matrix(variant))
    assert res.games >= 30  # games end (and auto-reset) inside the comparison
    assert res.states_compared >= res.decisions // 5


def test_matrix_covers_every_option_value_and_player_count() -> None:
    for variant in list_variants():
        from uno_env.variants import find_variant

        v = find_variant(variant)
        matrix = config_matrix(variant)
        assert {2, 3, 4, v.max_players} <= {n for n, _ in matrix}
        for name, spec in v.options.items():
            for value in spec.allowed or ():
                assert any(opts.get(name, spec.default) == value for _, opts in matrix), (
                    variant, name, value)


def test_the_check_sees_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check that cannot fail is no check: after the reset, give game 0's top pile card
    to seat 0 in the vector engine only."""
    import uno_env.batch.vector as vector
    from uno_env.batch import layout as L

    real = vector.vector_env

    def tampered(*args: object, **kw: object) -> vector.VectorEnv:
        v = real(*args, **kw)  # type: ignore[arg-type]
        reset = v.reset

        def bad_reset(*a: object, **k: object) -> object:
            out = reset(*a, **k)  # type: ignore[arg-type]
            s = v._s
            pl = s.S[0, L.PILE_LEN]
            s.loc[0, s.pile[0, pl - 1]] = 0
            s.S[0, L.PILE_LEN] = pl - 1
            return out

        v.reset = bad_reset  # type: ignore[method-assign]
        return v

    monkeypatch.setattr(vector, "vector_env", tampered)
    with pytest.raises(Mismatch, match="engine state"):
        run_config("classic", 2, {}, 200, num_envs=2, seed=3)
