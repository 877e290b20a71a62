"""The compiled determinization (uno_env.batch.determinize) equals the Python one
(uno_env.determinize.determinize): from the same random.Random state, the batch row turned
back into a State equals determinize's State field by field, and both generators end in the
same state. Positions come from random play in every variant (2-4 players, house rules on,
every decision phase reached), with the observer's recall and with avoid/must constraints.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_determinize import CONFIGS  # the Python determinization's tables (tests/)

from uno_env import raw_env
from uno_env.batch.determinize import (
    Determinizer,
    generators,
    load_generator,
    seed_generators,
)
from uno_env.batch.mt19937 import getrandbits64, randbelow, random_float, seed_int, shuffle
from uno_env.batch.step import observe_kernel
from uno_env.determinize import InconsistentObservation, Recall, determinize
from uno_env.inference import Avoid
from uno_env.rules import table
from uno_env.rules.codes import E_FLIP, P_COLOR, PLAY

# every field of the Python engine's State (rules/table.py) but the Game and the two
# objects compared through their contents (the generator's state, the hands' bookkeeping)
FIELDS = [f.name for f in table.PY_FIELDS if f.name not in ("game", "rng", "book")]


def assert_same(a, b, where: str) -> None:
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if name == "legal":  # the batch keeps the legal actions as a 0/1 row
            x, y = sorted(x), sorted(y)
        assert x == y, f"{where}: {name}: python {x!r} != batch {y!r}"
    assert a.rng.state == b.rng.state, f"{where}: rng"
    assert a.to_dict() == b.to_dict(), where


def positions(variant: str, n: int, options: dict, episodes: int, seed: int):
    """(obs, mask, seat, recall, avoid, must) at random decision points of random games."""
    env = raw_env(variant, num_players=n, **options)
    game = env.game
    rng = random.Random(seed)
    out = []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        recall: dict[int, Recall] = {}
        steps = 0
        while not env.engine.is_over and steps < 300:
            s = env.engine
            seat = s.current
            if rng.random() < 0.3 or env.phase != "play":
                mask = np.zeros(game.num_actions, np.uint8)
                mask[s.legal] = 1
                avoid: list[Avoid] = []
                must = None
                if rng.random() < 0.3:  # constraints on the next seat's hand (inference)
                    nxt = s.hands[(seat + 1) % n]
                    faces = np.zeros(game.num_faces, bool)
                    faces[rng.sample(range(game.num_faces), 12)] = True
                    avoid = [Avoid(faces, rng.randrange(3))]
                    if rng.random() < 0.5:
                        faces2 = np.zeros(game.num_faces, bool)
                        faces2[rng.sample(range(game.num_faces), 6)] = True
                        avoid.append(Avoid(faces2, 0))
                    must = np.zeros(game.num_faces, np.int64)
                    for c in rng.sample(nxt, min(2, len(nxt))):
                        must[game.side_faces[0][c]] += 1
                out.append((env.layout.build(s, seat), mask, seat, recall.get(seat), avoid,
                            must))
            a = rng.choice(s.legal)
            recall[seat] = Recall(a, s.active_color)
            s.step(a)
            steps += 1
    return game, out


def check(det: Determinizer, pos: list, samples: int, where: str) -> set[int]:
    """Each position sampled ``samples`` times in one fill (spread over a larger batch);
    every row equals determinize() from the same seed, and every seat's observation of the
    row (the batch writer, hidden counts included) is the Python engine's of that state.
    Returns the phases seen."""
    batch = det.allocate(samples * 2)
    phases: set[int] = set()
    for k, (obs, mask, seat, rec, avoid, must) in enumerate(pos):
        seeds = [1000 * k + j for j in range(samples)]
        mt, mti = generators([random.Random(sd) for sd in seeds])
        rows = np.arange(samples) * 2 + 1  # not the first rows, not adjacent ones
        det.fill(batch, rows, obs, mask, mt, mti, of=np.zeros(samples, np.int64),
                 seats=[seat], recall=[rec], avoid=[avoid], must=[must])
        for j, sd in enumerate(seeds):
            ref = random.Random(sd)
            want = determinize(det.game, obs, mask, ref, seat=seat, recall=rec, avoid=avoid,
                               must=must)
            got = det.to_state(batch, int(rows[j]))
            assert_same(want, got, f"{where} position {k} sample {j}")
            for q in range(det.game.num_players):
                row_obs = np.zeros(det.layout.size, np.float32)
                observe_kernel(batch, det.tables, int(rows[j]), q, row_obs)
                assert np.array_equal(row_obs, det.layout.build(want, q)), f"{where} {k}/{j}"
            back = random.Random()
            load_generator(back, mt, mti, j)
            assert back.getstate() == ref.getstate(), f"{where} {k}/{j}: generator"
            phases.add(int(want.phase))
    return phases


@pytest.mark.parametrize(("variant", "n", "options"), CONFIGS)
def test_compiled_determinization_equals_python(variant: str, n: int, options: dict) -> None:
    det = Determinizer(variant, n, **options)
    _, pos = positions(variant, n, options, episodes=2, seed=11)
    pos = pos[::max(1, len(pos) // 80)]  # at most ~80, spread over both games (seconds)
    phases = check(det, pos, 3, f"{variant} {n}p")
    assert len(pos) > 20 and sum(bool(p[4]) for p in pos) > 0
    assert len(phases) >= 2, phases


@pytest.mark.parametrize(("variant", "n"), [("classic", 3), ("flip", 3), ("flip", 2)])
def test_rare_continuations(variant: str, n: int) -> None:
    """The colour of a first-discard wild (C-/F-first-discard: the first player or the
    dealer chooses) and, in Flip, the colour after one's own Flip turned up a wild
    (F-flip): phases random play reaches only at some deals."""
    det = Determinizer(variant, n)
    env = raw_env(variant, num_players=n)
    game, A = env.game, env.game.actions
    pos: list = []
    firsts = flips = 0
    want_flips = 0 if variant == "classic" else 3
    rng = random.Random(2)
    for seed in range(300):
        if firsts >= 3 and flips >= want_flips:
            break
        env.reset(seed=seed)
        last: dict[int, Recall] = {}
        while not env.engine.is_over:
            s = env.engine
            first = s.phase == P_COLOR and len(s.discard) == 1
            rec = last.get(s.current)
            flip = (s.phase == P_COLOR and rec is not None and A.types[rec.action] == PLAY
                    and game.face_effect[rec.action] == E_FLIP)
            if (first and firsts < 3) or (flip and flips < 3):
                firsts, flips = firsts + first, flips + flip
                mask = np.zeros(game.num_actions, np.uint8)
                mask[s.legal] = 1
                pos.append((env.layout.build(s, s.current), mask, s.current, rec, [], None))
            if not first and flips >= want_flips:
                break  # only a deal's first decision is still wanted
            a = rng.choice(s.legal)
            last[s.current] = Recall(a, s.active_color)
            s.step(a)
    assert firsts == 3 and flips == want_flips
    assert check(det, pos, 2, f"{variant} {n}p") == {P_COLOR}


def test_many_positions_in_one_call() -> None:
    """Rows of several positions (interleaved, so each is decoded again) in one fill."""
    det = Determinizer("flip", 3, uno_catch="decision")
    game, pos = positions("flip", 3, {"uno_catch": "decision"}, episodes=1, seed=5)
    pos = pos[:12]
    of = np.array([k % len(pos) for k in range(2 * len(pos))])
    seeds = list(range(len(of)))
    mt, mti = generators([random.Random(sd) for sd in seeds])
    batch = det.allocate(len(of))
    rows = np.arange(len(of))[::-1].copy()
    det.fill(batch, rows, np.stack([p[0] for p in pos]), np.stack([p[1] for p in pos]), mt,
             mti, of=of, seats=[p[2] for p in pos], recall=[p[3] for p in pos],
             avoid=[p[4] for p in pos], must=[p[5] for p in pos])
    for j, p in enumerate(of):
        obs, mask, seat, rec, avoid, must = pos[p]
        want = determinize(game, obs, mask, random.Random(seeds[j]), seat=seat, recall=rec,
                           avoid=avoid, must=must)
        assert_same(want, det.to_state(batch, int(rows[j])), f"row {rows[j]}")


def test_rows_sharing_a_generator_draw_in_sequence() -> None:
    """gen: rows on one generator are successive determinize() calls with one rng (as a
    search draws its samples), two generators interleaved; seed_generators seeds them."""
    det = Determinizer("flex", 3)
    _, pos = positions("flex", 3, {}, episodes=1, seed=8)
    pos = pos[:6]
    of = np.array([0, 1, 1, 2, 3, 4, 5, 5])
    gen = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    mt, mti = seed_generators([41, 42])
    ref_mt, ref_mti = generators([random.Random(41), random.Random(42)])
    assert np.array_equal(mt, ref_mt) and np.array_equal(mti, ref_mti)
    batch = det.allocate(len(of))
    det.fill(batch, np.arange(len(of)), np.stack([p[0] for p in pos]),
             np.stack([p[1] for p in pos]), mt, mti, of=of, gen=gen,
             seats=[p[2] for p in pos], recall=[p[3] for p in pos], avoid=[p[4] for p in pos],
             must=[p[5] for p in pos])
    refs = [random.Random(41), random.Random(42)]
    for j, (p, g) in enumerate(zip(of, gen, strict=True)):
        obs, mask, seat, rec, avoid, must = pos[p]
        want = determinize(det.game, obs, mask, refs[g], seat=seat, recall=rec, avoid=avoid,
                           must=must)
        assert_same(want, det.to_state(batch, j), f"row {j}")
    for g in range(2):
        back = random.Random()
        load_generator(back, mt, mti, g)
        assert back.getstate() == refs[g].getstate()


def test_generator_functions_match_cpython() -> None:
    mt = np.zeros((1, 1, 624), np.uint32)
    mti = np.zeros((1, 1), np.int64)
    for sd in (0, 1, 12345, 2**40 + 3):
        ref = random.Random(sd)
        mti[0, 0] = seed_int(mt[0, 0], sd)
        xs = list(range(40))
        arr = np.arange(40)
        for _ in range(30):
            assert getrandbits64(mt, mti, 0, 0) == ref.getrandbits(64)
            assert random_float(mt, mti, 0, 0) == ref.random()
            assert randbelow(mt, mti, 0, 0, 1) == ref.randrange(1)
            ref.shuffle(xs)
            shuffle(mt, mti, 0, 0, arr, 0, 40)
            assert arr.tolist() == xs


def test_bad_input_is_refused() -> None:
    det = Determinizer("classic", 2)
    env = raw_env("classic", num_players=2)
    env.reset(seed=3)
    obs = env.layout.build(env.engine, env.engine.current)
    mask = np.zeros(det.game.num_actions, np.uint8)
    mask[env.engine.legal] = 1
    batch = det.allocate(2)
    mt, mti = generators([random.Random(0)])
    with pytest.raises(ValueError, match="not to act"):
        det.fill(batch, [0], obs, np.zeros_like(mask), mt, mti)
    with pytest.raises(ValueError, match="obs must be"):
        det.fill(batch, [0], obs[:-1], mask, mt, mti)
    with pytest.raises(ValueError, match="distinct rows"):
        det.fill(batch, [2], obs, mask, mt, mti)
    with pytest.raises(ValueError, match="recall of position 0"):
        det.fill(batch, [0], obs, mask, mt, mti, recall=[Recall(10_000, 0)])
    with pytest.raises(ValueError, match="generator 0-0"):
        det.fill(batch, [0], obs, mask, mt, mti, gen=[1])
    wrong = obs.copy()
    top = det.layout.by_name["top"]
    disc = det.layout.by_name["discard"]
    wrong[disc.start:disc.stop] = 0  # the top card is not in the discard pile
    with pytest.raises(InconsistentObservation, match="top card"):
        det.fill(batch, [0], wrong, mask, mt, mti)
    wrong = obs.copy()
    wrong[disc.start:disc.stop] = 0
    wrong[disc.start + int(np.argmax(obs[top.start:top.stop]))] = 1
    hand = det.layout.by_name["hand"]
    wrong[hand.start:hand.stop] = 8  # more cards than the deck holds
    with pytest.raises(InconsistentObservation):
        det.fill(batch, [0], wrong, mask, mt, mti)
