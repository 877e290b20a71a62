"""The differential check: ``vector_env`` against ``raw_env``, decision by decision.

Both engines play the same games (game ``i`` seeded ``seed + i`` in both) with the same
uniformly random legal actions; after every decision the observation, mask, current player,
rewards, termination and truncation must be equal, and every ``state_every`` decisions the
whole engine state (``State.to_dict``: hands, piles, generator, ...) too. Auto-resets are
followed into the next games (raw_env's ``reset()`` without a seed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env.aec import raw_env


class Mismatch(AssertionError):
    """The two engines disagree; the message says where and how to reproduce it."""


@dataclass
class DiffResult:
    decisions: int = 0
    games: int = 0
    states_compared: int = 0
    configs: list[str] = field(default_factory=list)


def _fail(where: str, what: str, a: Any, b: Any) -> None:
    raise Mismatch(f"{where}: {what} differs\n  raw_env:    {a}\n  vector_env: {b}")


def _compare_view(where: str, raw: raw_env, obs: np.ndarray, mask: np.ndarray,
                  cur: int) -> None:
    seat = raw.engine.current
    if seat != cur:
        _fail(where, "current player", seat, cur)
    o = raw.observe(raw.possible_agents[seat])
    if not np.array_equal(o["action_mask"], mask):
        _fail(where, "action mask", np.nonzero(o["action_mask"])[0], np.nonzero(mask)[0])
    if not np.array_equal(o["observation"], obs):
        k = np.nonzero(o["observation"] != obs)[0]
        names = [p.name for p in raw.layout.pieces for j in k if p.start <= j < p.stop]
        _fail(where, f"observation at {k.tolist()} ({sorted(set(names))})",
              o["observation"][k], obs[k])


def run_config(variant: str, num_players: int, options: dict[str, Any], decisions: int,
               num_envs: int = 16, seed: int = 0, state_every: int = 5,
               result: DiffResult | None = None) -> DiffResult:
    """Play ``decisions`` decisions (over all games) in both engines, comparing; raise
    :class:`Mismatch` at the first difference."""
    from uno_env.batch.vector import vector_env

    res = result if result is not None else DiffResult()
    res.configs.append(f"{variant} {num_players}p {options}")
    v = vector_env(variant, num_players, num_envs, **options)
    raws = [raw_env(variant, num_players, **options) for _ in range(num_envs)]
    obs, info = v.reset(seed=seed)
    for i, r in enumerate(raws):
        r.reset(seed=seed + i)
    games = [0] * num_envs
    pick = np.random.default_rng(seed)
    label = f"{variant} {num_players}p {options} seed {seed}"
    for step in range(max(1, decisions // num_envs)):
        mask = info["action_mask"]
        for i, r in enumerate(raws):
            where = f"{label}: game {i} (seed {seed + i}, episode {games[i]}), decision {step}"
            _compare_view(where, r, obs[i], mask[i], int(info["current_player"][i]))
            if step % state_every == 0:
                a, b = r.engine.to_dict(), v.game_state(i).to_dict()
                if a != b:
                    diff = {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
                    _fail(where, "engine state", diff, "")
                res.states_compared += 1
        actions = np.array([np.flatnonzero(m)[pick.integers(int(m.sum()))] for m in mask])
        actors = [r.agent_selection for r in raws]
        obs, rew, term, trunc, info = v.step(actions)
        for i, r in enumerate(raws):
            where = f"{label}: game {i} (seed {seed + i}, episode {games[i]}), decision {step}"
            r.step(int(actions[i]))
            want = np.array([r.rewards[a] for a in r.possible_agents], np.float32)
            if not np.array_equal(want, rew[i]):
                _fail(where, "rewards", want, rew[i])
            t_raw = any(r.terminations.values())
            u_raw = any(r.truncations.values())
            if (t_raw, u_raw) != (bool(term[i]), bool(trunc[i])):
                _fail(where, "terminated/truncated", (t_raw, u_raw), (term[i], trunc[i]))
            if t_raw or u_raw:
                fin = r.observe(actors[i])["observation"]
                if not np.array_equal(fin, info["final_obs"][i]):
                    _fail(where, "final observation", fin, info["final_obs"][i])
                r.reset()
                games[i] += 1
                res.games += 1
        res.decisions += num_envs
    return res


def config_matrix(variant: str) -> list[tuple[int, dict[str, Any]]]:
    """(player count, options) covering every option value and the player counts 2, 3, 4 and
    the variant's maximum, plus ``reward``/``episode`` modes and ``max_steps``."""
    from uno_env.variants import find_variant

    v = find_variant(variant)
    top = v.max_players
    counts = [2, 3, 4, top]
    out: list[tuple[int, dict[str, Any]]] = [(n, {}) for n in counts]
    k = 0
    for name, spec in v.options.items():
        values = list(spec.allowed) if spec.allowed is not None else [100]
        for value in values:
            if value == spec.default:
                continue
            opts: dict[str, Any] = {name: value}
            if name == "target_score":
                opts["episode"] = "match"
            n = counts[k % len(counts)]
            if name == "allow_more_players":
                n = 10
            out.append((n, opts))
            k += 1
    bools = {name: not spec.default for name, spec in v.options.items()
             if spec.allowed == (False, True) and name != "allow_more_players"}
    out.append((3, {**bools, "uno_catch": "decision"}))
    if "catch_window" in v.options:  # G-uno: each catch window where catching is a decision
        out += [(4, {"uno_catch": "decision", "catch_window": "until-out"}),
                (3, {"uno_catch": "decision", "catch_window": "turn"})]
    out.append((2, {"episode": "match", "reward": "points", "target_score": 150}))
    out.append((4, {"episode": "match", "scoring": "penalty", "target_score": 120,
                    "reward": "points"}))
    out.append((3, {"max_steps": 40}))
    return out


def run_variant(variant: str, decisions: int, seed: int = 0, num_envs: int = 2,
                result: DiffResult | None = None) -> DiffResult:
    """Spread ``decisions`` over :func:`config_matrix` (each configuration its own seeds)."""
    res = result if result is not None else DiffResult()
    matrix = config_matrix(variant)
    per = max(num_envs, decisions // len(matrix))
    for k, (n, opts) in enumerate(matrix):
        run_config(variant, n, opts, per, num_envs=num_envs, seed=seed + 1000 * k,
                   result=res)
    return res


def _cmd(a: Any) -> int:
    import time

    from uno_env.variants import list_variants

    t0 = time.perf_counter()
    res = DiffResult()
    for v in a.variant or list_variants():
        before = res.decisions
        try:
            run_variant(v, a.decisions, seed=a.seed, result=res)
        except Mismatch as e:
            print(f"DIFFERENCE: {e}")
            return 1
        print(f"{v}: {res.decisions - before:,} decisions, 0 differences", flush=True)
    print(f"{res.decisions:,} decisions compared in {len(res.configs)} configurations "
          f"({res.games:,} games finished, {res.states_compared:,} full engine states "
          f"compared): 0 differences [{time.perf_counter() - t0:.0f} s]")
    return 0


def add_parser(sub: Any) -> None:
    from uno_env.cli import COMMANDS
    from uno_env.variants import list_variants

    p = sub.add_parser("verify", help=COMMANDS["verify"].help)
    p.add_argument("--decisions", type=int, default=100_000, help="per variant")
    p.add_argument("--variant", action="append", choices=list_variants())
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd)
