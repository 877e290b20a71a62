"""Golden playthroughs: recorded games that pin the rules engine's behaviour decision by
decision (the model: OpenSpiel's ``playthroughs/``, python-chess's perft files).

Any engine that claims to play these rules can replay the files: deal the game from its seed,
apply the recorded actions, and compare two digests after every decision.

File format (``tests/golden/<variant>-<case>.json``, UTF-8 JSON)::

    {"format": "uno-env-golden", "version": 1,
     "variant": "classic", "case": "default", "options": {...every rule option...},
     "max_decisions": 400,
     "games": [{"num_players": 2, "seed": 3, "policy_seed": 3,
                "actions": [12, 54, ...],             # one per decision, in order
                "digests": ["<obs>:<snap>", ...]}]}   # len(actions) + 1: after the reset
                                                      # and after every action

* The game is ``uno_env.raw_env(variant, num_players, **options)`` reset with
  ``reset(seed=seed)`` (the env seeder is ``SplitMix64(seed)``, the game seed its first
  ``next_u64()``: the seeding of docs/environments.md). ``actions`` were chosen by a seeded random
  policy (:func:`policy_action`); a replay only needs them, not the policy.
* ``<obs>``: :func:`observation_digest` of the acting agent's (``agent_selection``)
  observation vector (float32), its action mask (int8) and the step rewards of every agent
  in seat order (float64): the first 16 hex digits of the sha256 of those bytes, in that
  order.
* ``<snap>``: :func:`snapshot_digest` of the engine's snapshot (``State.to_dict()``: hands,
  piles, colour, phase, stage, scores, RNG state, ...) as compact JSON with sorted keys.
* A game stops at its end or after ``max_decisions`` actions.

Re-record only on a rule change you mean (and say so in the commit):
``python tests/golden_io.py record`` rewrites every file; ``python tests/golden_io.py check``
replays them and lists the first difference of each game.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from golden_text import Playthrough

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FORMAT, VERSION = "uno-env-golden", 1
MAX_DECISIONS = 400


def _cases() -> list[tuple[str, str, dict[str, Any], tuple[int, ...], int]]:
    """(variant, case, options, player counts, games per count) of every golden file."""
    import uno_env

    out = []
    for v in uno_env.list_variants():
        spec = uno_env.find_variant(v).options
        hi = uno_env.find_variant(v).max_players
        counts = tuple(sorted({2, 3, 4, hi}))
        default_window = spec["catch_window"].default
        other_window = "turn" if default_window == "until-out" else "until-out"
        bools = {k: True for k, o in spec.items() if o.allowed == (False, True)
                 and k != "allow_more_players"}
        out += [
            (v, "default", {}, counts, 3),
            # voluntary_draw (G-draw) and catch_window (G-uno) flipped, catching as a decision
            (v, "draw-catch", {"voluntary_draw": not spec["voluntary_draw"].default,
                               "catch_window": other_window, "uno_catch": "decision"},
             (2, 3, hi), 3),
            # every rule switch on, catching as a decision with the default window
            (v, "maximal", {**bools, "uno_catch": "decision"}, (2, 4), 3),
            # whole matches to a low target (deals pass on), penalty scoring, no UNO rule
            (v, "match", {"episode": "match", "target_score": 60, "uno_catch": "off",
                          "scoring": "penalty"}, (2, 3), 2),
        ]
    return out


def observation_digest(observation: np.ndarray, mask: np.ndarray,
                       rewards: np.ndarray) -> str:
    """sha256 (first 16 hex digits) of the float32 observation, int8 mask, float64 rewards."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(observation, dtype=np.float32).tobytes())
    h.update(np.ascontiguousarray(mask, dtype=np.int8).tobytes())
    h.update(np.ascontiguousarray(rewards, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def snapshot_digest(snapshot: dict[str, Any]) -> str:
    """sha256 (first 16 hex digits) of the engine snapshot as compact sorted-key JSON."""
    text = json.dumps(snapshot, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def env_digest(env: Any, snap: dict[str, Any] | None = None) -> str:
    """``<obs>:<snap>`` of a ``uno_env.raw_env`` now (``snap``: its engine's ``to_dict()``,
    when the caller has it already)."""
    o = env.observe(env.agent_selection)
    rewards = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float64)
    return (f"{observation_digest(o['observation'], o['action_mask'], rewards)}:"
            f"{snapshot_digest(env.engine.to_dict() if snap is None else snap)}")


def _over(env: Any) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


def policy_action(rng: random.Random, env: Any) -> int:
    """The recording policy: a uniformly random legal action, except that with probability
    0.7 draw and pass are avoided when anything else is legal (so games reach their end)."""
    legal = [int(a) for a in np.flatnonzero(env.observe(env.agent_selection)["action_mask"])]
    if rng.random() < 0.7:
        slow = {env.action_index("draw"), env.action_index("pass")}
        eager = [a for a in legal if a not in slow]
        if eager:
            return rng.choice(eager)
    return rng.choice(legal)


def record_game(variant: str, num_players: int, options: dict[str, Any], seed: int,
                max_decisions: int = MAX_DECISIONS) -> dict[str, Any]:
    """Play one game with :func:`policy_action` (seeded by ``seed``) and record it."""
    import uno_env

    env = uno_env.raw_env(variant, num_players, **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    actions: list[int] = []
    digests = [env_digest(env)]
    while not _over(env) and len(actions) < max_decisions:
        a = policy_action(rng, env)
        env.step(a)
        actions.append(a)
        digests.append(env_digest(env))
    return {"num_players": num_players, "seed": seed, "policy_seed": seed,
            "actions": actions, "digests": digests}


def replay_game(variant: str, options: dict[str, Any], game: dict[str, Any],
                text: Playthrough | None = None) -> str | None:
    """Replay a recorded game through ``uno_env``; the first difference, or None. ``text``
    (tests/golden_text.py) is given every decision, for the readable playthrough."""
    import uno_env

    env = uno_env.raw_env(variant, game["num_players"], **options)
    env.reset(seed=game["seed"])
    want = game["digests"]
    snap = env.engine.to_dict()
    if env_digest(env, snap) != want[0]:
        return f"after the reset: {env_digest(env, snap)} != {want[0]}"
    if text is not None:
        text.start(snap, want[0])
    for i, a in enumerate(game["actions"]):
        if _over(env):
            return f"decision {i}: the game is already over"
        meaning = env.action_meanings[a]
        phase = env.phase
        actor = env.engine.current
        try:
            env.step(a)
        except ValueError as err:
            return f"decision {i} ({meaning!r} in {phase!r}): {err}"
        snap = env.engine.to_dict()
        got = env_digest(env, snap)
        if got != want[i + 1]:
            return f"decision {i} ({meaning!r} in {phase!r}): {got} != {want[i + 1]}"
        if text is not None:
            text.step(actor, meaning, snap, got,
                      [env.rewards[x] for x in env.possible_agents], _over(env),
                      i == len(game["actions"]) - 1)
    return None


def record_file(variant: str, case: str, options: dict[str, Any], counts: tuple[int, ...],
                per_count: int) -> dict[str, Any]:
    import uno_env

    full = dict(uno_env.Game(variant, counts[0], **options).options)
    games = [record_game(variant, n, full, seed)
             for n in counts for seed in range(per_count)]
    return {"format": FORMAT, "version": VERSION, "variant": variant, "case": case,
            "options": full, "max_decisions": MAX_DECISIONS, "games": games}


def path_of(variant: str, case: str) -> Path:
    return GOLDEN_DIR / f"{variant}-{case}.json"


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ValueError(f"{path} is not a {FORMAT} v{VERSION} file")
    return data


def golden_files() -> list[Path]:
    return sorted(GOLDEN_DIR.glob("*.json"))


def expected_files() -> list[Path]:
    return sorted(path_of(v, c) for v, c, *_ in _cases())


def check_all() -> Iterator[str]:
    """Every difference between the stored files and the engine (file, game, decision)."""
    for path in golden_files():
        data = load(path)
        for k, game in enumerate(data["games"]):
            diff = replay_game(data["variant"], data["options"], game)
            if diff is not None:
                yield f"{path.name} game {k} ({game['num_players']} players): {diff}"


def _write(data: dict[str, Any], path: Path) -> None:
    """One game per line, so that a re-recording shows as a readable diff."""
    head = {k: v for k, v in data.items() if k != "games"}
    lines = [json.dumps(g, separators=(",", ":")) for g in data["games"]]
    text = json.dumps(head, separators=(", ", ": "))[:-1] + ', "games": [\n'
    text += ",\n".join(lines) + "\n]}\n"
    path.write_text(text, encoding="utf-8")


def record_all() -> list[Path]:
    GOLDEN_DIR.mkdir(exist_ok=True)
    written = []
    for variant, case, options, counts, per_count in _cases():
        path = path_of(variant, case)
        _write(record_file(variant, case, options, counts, per_count), path)
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    if argv == ["record"]:
        from golden_text import record_all as record_text

        for p in record_all() + record_text():  # the JSON files, then their readable text
            print(f"wrote {p} ({p.stat().st_size:,} bytes)")
        return 0
    if argv == ["check"]:
        diffs = list(check_all())
        print("\n".join(diffs) or f"all {len(golden_files())} golden files replay exactly")
        return 1 if diffs else 0
    print("usage: python tests/golden_io.py record|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    raise SystemExit(main(sys.argv[1:]))
