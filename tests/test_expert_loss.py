"""The distillation targets and loss of expert iteration (docs/expert-loop.md)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_selfplay import sample_observations  # noqa: E402

from uno_env.agents.policy import PolicyNet  # noqa: E402
from uno_env.training.expert.loss import (  # noqa: E402
    distill_loss,
    improved_policy,
    search_value,
    targets,
)

NAN = np.nan


def test_improved_policy_is_prior_times_exp_q_over_tau_on_searched_legal_actions() -> None:
    prior = np.array([[0.5, 0.3, 0.15, 0.05]])
    q = np.array([[0.6, 0.4, NAN, NAN]])  # action 2 legal but not searched, 3 illegal
    mask = np.array([[1, 1, 1, 0]], np.uint8)
    tau = 0.2
    pi, valid = improved_policy(prior, q, mask, tau)
    w = np.array([0.5 * np.exp(0.6 / tau), 0.3 * np.exp(0.4 / tau), 0.0, 0.0])
    np.testing.assert_allclose(pi[0], w / w.sum(), rtol=1e-6)
    assert valid.tolist() == [True] and pi.dtype == np.float32


def test_masked_and_unsearched_actions_get_zero_and_rows_without_search_are_invalid() -> None:
    rng = np.random.default_rng(0)
    mask = rng.random((50, 9)) < 0.6
    mask[:, 0] = True
    prior = rng.random((50, 9)) * mask
    prior /= prior.sum(1, keepdims=True)
    q = np.where(mask & (rng.random((50, 9)) < 0.7), rng.random((50, 9)), NAN)
    q[:, 0] = np.where(np.arange(50) % 10 == 0, NAN, q[:, 0])
    q[::10] = NAN  # every tenth row searched nothing
    # a row whose q is a number on an illegal action: the mask wins
    q[1, ~mask[1]] = 0.99
    pi, valid = improved_policy(prior, q, mask, 0.1)
    searched = mask & ~np.isnan(q)
    assert (pi[~searched] == 0).all()
    assert valid.tolist() == searched.any(1).tolist() and not valid[::10].any()
    np.testing.assert_allclose(pi[valid].sum(1), 1.0, rtol=1e-6)
    assert (pi[~valid] == 0).all()


def test_tau_limits_prior_renormalised_and_argmax_of_q() -> None:
    prior = np.array([[0.1, 0.6, 0.2, 0.1], [0.2, 0.3, 0.5, 0.0]])
    q = np.array([[0.7, 0.5, 0.2, NAN], [0.4, 0.9, 0.9, NAN]])  # row 1: a tie at the top
    mask = np.array([[1, 1, 1, 1], [1, 1, 1, 0]], np.uint8)
    hot, _ = improved_policy(prior, q, mask, 1e6)
    np.testing.assert_allclose(hot[0], [0.1 / 0.9, 0.6 / 0.9, 0.2 / 0.9, 0], atol=1e-5)
    np.testing.assert_allclose(hot[1], [0.2, 0.3, 0.5, 0], atol=1e-5)
    cold, _ = improved_policy(prior, q, mask, 1e-6)
    np.testing.assert_allclose(cold[0], [1, 0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(cold[1], [0, 0.375, 0.625, 0], atol=1e-6)  # shared by prior
    # a searched action the prior gave exactly 0 still wins the tau -> 0 limit
    z, _ = improved_policy(np.array([[1.0, 0.0]]), np.array([[0.2, 0.8]]),
                           np.ones((1, 2), np.uint8), 1e-6)
    np.testing.assert_allclose(z[0], [0, 1], atol=1e-6)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("inf"), float("nan")])
def test_bad_tau_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="tau must be a finite number > 0"):
        improved_policy(np.ones((1, 2)) / 2, np.zeros((1, 2)), np.ones((1, 2)), bad)


def test_shapes_must_agree() -> None:
    with pytest.raises(ValueError, match="same shape"):
        improved_policy(np.ones((2, 3)), np.zeros((2, 4)), np.ones((2, 3)), 1.0)


@pytest.mark.parametrize("n", [2, 4])
def test_value_target_is_the_win_loss_return_of_the_search_share(n: int) -> None:
    pi = np.array([[0.25, 0.75, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float32)
    q = np.array([[0.2, 0.6, NAN], [1.0, NAN, NAN], [0.3, 0.0, NAN]])
    v = search_value(pi, q, n)
    share = np.array([0.25 * 0.2 + 0.75 * 0.6, 1.0, 0.0])
    np.testing.assert_allclose(v, (n * share - 1) / (n - 1), rtol=1e-6)
    assert v[1] == pytest.approx(1.0) and v[2] == pytest.approx(-1.0 / (n - 1))


def real_labels(count: int, seed: int) -> dict[str, np.ndarray]:
    """Label rows at real classic positions: a fresh network's probabilities as the prior,
    made-up playout shares on a random part of the legal actions."""
    rows = sample_observations(count, seed)
    obs = np.stack([o for o, _ in rows]).astype(np.float32)
    mask = np.stack([m for _, m in rows]).astype(np.uint8)
    torch.manual_seed(seed)
    net = PolicyNet(obs.shape[1], mask.shape[1], [16])
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(obs), torch.from_numpy(mask))
    prior = torch.softmax(logits, -1).numpy()
    rng = np.random.default_rng(seed)
    searched = (mask > 0) & (rng.random(mask.shape) < 0.8)
    q = np.where(searched, rng.random(mask.shape), np.nan).astype(np.float32)
    return {"obs": obs, "mask": mask, "prior": prior, "q": q}


def test_targets_at_real_positions_and_the_loss_reaches_zero_kl_at_pi_prime() -> None:
    labels = real_labels(80, 5)
    t = targets(labels, 0.1, 2)
    valid = (labels["mask"].astype(bool) & ~np.isnan(labels["q"])).any(1)
    assert len(t["v"]) == int(valid.sum()) > 0
    assert (t["pi"][~t["mask"]] == 0).all() and ((t["v"] >= -1) & (t["v"] <= 1)).all()
    pi = torch.from_numpy(t["pi"])
    v = torch.from_numpy(t["v"])
    legal = torch.from_numpy(t["mask"])
    # the network's masked logits as a PolicyNet gives them (illegal: -1e9)
    at_target = torch.where(legal, pi.clamp_min(1e-12).log(), torch.full_like(pi, -1e9))
    loss, stats = distill_loss(at_target, v, pi, v, 0.5)
    assert np.isfinite(float(loss)) and abs(stats["distill_kl"]) < 1e-4
    assert stats["distill_value_loss"] == 0.0 and stats["distill_agree"] == 1.0
    uniform = torch.where(legal, torch.zeros_like(pi), torch.full_like(pi, -1e9))
    loss_u, stats_u = distill_loss(uniform, v * 0, pi, v, 0.5)
    ce = -(t["pi"] * np.log(np.where(t["mask"], 1.0 / t["mask"].sum(1, keepdims=True), 1.0))
           ).sum(1).mean()
    assert stats_u["distill_policy_loss"] == pytest.approx(ce, rel=1e-5)
    assert float(loss_u) == pytest.approx(ce + 0.5 * 0.5 * float((v ** 2).mean()), rel=1e-5)
    assert stats_u["distill_kl"] > 0.01
