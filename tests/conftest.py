"""Shared helpers for the variant-generic tests (API, seed, property, snapshot, error tests).

Everything here is derived from the variant registry, so a newly registered variant, with its
own player range and rule options, is covered by those tests without edits. Test modules
import the helpers with ``from conftest import ...`` (pytest puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import uno_env

# Every Ray cluster a test starts stays on 127.0.0.1: with this off (read when Ray is imported,
# inherited by the cluster's processes) Ray takes the loopback address as the node's address,
# as on macOS and Windows; otherwise it binds the machine's own network address.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

PLAYER_COUNTS = (2, 3, 4, 10)
"""The player counts every variant is tested with, clipped to the variant's range."""

VARIANTS = tuple(uno_env.list_variants())


def choice_options(variant: str) -> dict[str, tuple[Any, ...]]:
    """The variant's options with a finite set of allowed values (bool and enum options)."""
    return {name: opt.allowed for name, opt in uno_env.find_variant(variant).options.items()
            if opt.allowed is not None}


ROTATED = ("catch_window", "voluntary_draw")
"""Options laid over the product instead of multiplying it (that would quadruple the API
tests): each combination of the product gets the ROTATED combination numbered by the sum of
its value indices, so every value of every other option meets every ROTATED combination."""


def option_combos(variant: str) -> list[dict[str, Any]]:
    """Every combination of the variant's bool/enum options (the cartesian product), with
    the ROTATED options' combinations rotated over it."""
    choices = choice_options(variant)
    names = sorted(n for n in choices if n not in ROTATED)
    rot = sorted(n for n in choices if n in ROTATED)
    rot_values = list(itertools.product(*(choices[n] for n in rot)))
    out = []
    for idx in itertools.product(*(range(len(choices[n])) for n in names)):
        combo = {n: choices[n][i] for n, i in zip(names, idx, strict=True)}
        combo.update(zip(rot, rot_values[sum(idx) % len(rot_values)], strict=True))
        out.append(combo)
    return out


def player_counts(variant: str, opts: dict[str, Any] | None = None) -> list[int]:
    """PLAYER_COUNTS clipped to the range the variant allows with these options."""
    v = uno_env.find_variant(variant)
    full = {k: spec.default for k, spec in v.options.items()} | (opts or {})
    lo, hi = v.player_range(full)
    return sorted({min(max(n, lo), hi) for n in PLAYER_COUNTS})


def configs(sample: int, seed: int = 0) -> list[tuple[str, int, dict[str, Any]]]:
    """(variant, num_players, options) to test: every option combination at the smallest
    player count, and ``sample`` combinations (the defaults among them) at each other count."""
    out: list[tuple[str, int, dict[str, Any]]] = []
    rng = random.Random(seed)
    for v in VARIANTS:
        combos = option_combos(v)
        defaults = {k: uno_env.find_variant(v).options[k].default for k in choice_options(v)}
        counts = sorted({n for c in combos for n in player_counts(v, c)})
        for n in counts:
            usable = [c for c in combos if n in player_counts(v, c)]
            if n != counts[0]:
                picked = rng.sample(usable, min(sample, len(usable)))
                if defaults in usable and defaults not in picked:
                    picked[0] = defaults
                usable = picked
            out.extend((v, n, c) for c in usable)
    return out


def config_id(variant: str, n: int, opts: dict[str, Any]) -> str:
    """A short test id: the options that differ from the defaults."""
    spec = uno_env.find_variant(variant).options
    diff = [f"{k}={v}" for k, v in sorted(opts.items()) if v != spec[k].default]
    return "-".join([variant, f"{n}p", *diff])


def maximal_options(variant: str) -> dict[str, Any]:
    """Options that open the most decisions: every bool rule on, catching as a decision."""
    out: dict[str, Any] = {}
    for name, allowed in choice_options(variant).items():
        if set(allowed) == {False, True}:
            out[name] = True
        elif "decision" in allowed:
            out[name] = "decision"
    return out


def legal_from_mask(mask: np.ndarray) -> list[int]:
    return [int(a) for a in np.flatnonzero(mask)]


def play_policy(rng: random.Random, env: Any, p_random: float = 0.3) -> int:
    """A random legal action of the acting agent, preferring anything but draw/pass so that
    games end in a few hundred steps (uniform random play runs to thousands)."""
    raw = env.unwrapped
    legal = legal_from_mask(raw.observe(raw.agent_selection)["action_mask"])
    if rng.random() >= p_random:
        slow = {raw.action_index("draw"), raw.action_index("pass")}
        eager = [a for a in legal if a not in slow]
        if eager:
            return rng.choice(eager)
    return rng.choice(legal)


def episode_over(env: Any) -> bool:
    raw = env.unwrapped
    return any(raw.terminations.values()) or any(raw.truncations.values())


def iter_steps(env: Any, rng: random.Random, steps: int,
               p_random: float = 0.3) -> Iterator[int]:
    """Play up to ``steps`` policy actions on a reset env, yielding each action after it was
    applied; stops early when the episode ends."""
    for _ in range(steps):
        if episode_over(env):
            return
        a = play_policy(rng, env, p_random)
        env.step(a)
        yield a


# --- the scenario tests on both engines (tests/batch_mirror.py, docs/architecture.md) ------------

@pytest.fixture(params=["python", "batch"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a scenario module's test on the Python engine, then again with every decision
    also taken by the batch engine from the same position (``raw_env`` is swapped for
    :class:`batch_mirror.MirroredEnv` in the test's module and in scenario_helpers)."""
    import batch_mirror
    import scenario_helpers

    batch_mirror.STATS = batch_mirror.Stats()
    if request.param == "batch":
        for module in (request.module, scenario_helpers):
            if hasattr(module, "raw_env"):
                monkeypatch.setattr(module, "raw_env", batch_mirror.MirroredEnv)
    return str(request.param)


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    """A batch run of a test that gave the batch engine nothing to do is reported as a skip
    with the reason, not as a pass."""
    result = yield
    callspec = getattr(pyfuncitem, "callspec", None)
    if callspec is not None and callspec.params.get("engine") == "batch":
        import batch_mirror

        stats = batch_mirror.STATS
        if stats.steps == 0:
            if stats.refused is not None:
                pytest.skip(f"Python engine only: the batch engine refuses this "
                            f"configuration ({stats.refused})")
            if stats.envs:
                pytest.skip("Python engine only: the test takes no decision (it checks a "
                            "fixed-deck deal, which only the Python engine deals; the batch "
                            "engine computes decisions only in the kernel that steps)")
            if stats.shuffled:
                pytest.skip(batch_mirror.SHUFFLED)
            pytest.skip("Python engine only: the test builds no scenario env (it checks "
                        "Game/State or the env's arguments directly)")
    return result
