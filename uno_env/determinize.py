"""Determinization: a full game state from one seat's observation plus sampled hidden cards
(it decodes observations, so it sits beside ``observation.py``, outside the rules core).

Search agents for imperfect-information games (ISMCTS, PIMC) play out *determinizations*:
complete states that agree with everything the searching player knows, the unknown part
(opponents' hands, the draw pile's order) drawn at random. :func:`determinize` builds one from
what an agent is given by the environment (its observation vector and action mask), so a
search agent never needs, and never reads, the real hidden state.

What the observation fixes and the sample always respects (``layout.build(sample, seat)`` and
the legal actions equal the real ones, see ``tests/test_determinize.py``):

- own hand (faces), the discard pile (faces; the top card on top), every hand size, the draw
  pile size, direction, active colour, phase, pending draw, UNO calls, scores, Power Cards,
  the hand last shown to this seat by a challenge (kept as shown; which of those cards that
  player still holds the observation alone cannot say: ``must``, from the plays since as
  :class:`uno_env.inference.DrawTracker` follows them, constrains its sampled hand);
- Flip (F-visibility): each opponent's inactive faces, the inactive face on top of the draw
  pile, and the inactive faces of own cards this seat has seen.

What is sampled: which physical cards make up the hidden parts (a perfect matching of cards
to the observation's demands, found by augmenting paths over a random preference order: every
consistent deal can come out, though not exactly uniformly in Flip; unknown inactive faces in
Flip), the draw pile's order, the engine's future shuffles, and whether a pending wild draw
was a bluff (from the sampled hand of its player and a random earlier colour). Public details
the observation does not carry are inferred from the phase: the player of the card being
resolved (the previous seat, or the catch target), the dealer (the previous seat, except at a
first-discard wild), the count of consecutive blocked turns (0). ``recall`` (the observer's
own previous decision) fixes what the observer itself did: the colour active before its wild
draw, a flex play, a Flip that turned up a wild.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from uno_env.cards import NUM_COLORS, WILD
from uno_env.inference import Avoid, respect
from uno_env.observation import ObservationLayout
from uno_env.rules.codes import (
    CHALLENGE,
    E_DRAW,
    E_FLIP,
    E_REVERSE,
    E_SKIP,
    E_WDC,
    PHASES,
    PLAY,
    PLAY_FLEX,
)
from uno_env.rules.state import State

if TYPE_CHECKING:
    from uno_env.rules.game import Game

_TRIES = 50  # random pairings of own seen faces before giving up (Flip)


@dataclass(frozen=True)
class Recall:
    """The observer's previous decision in this game: its action and the active colour it saw
    (``WILD`` when none). Only used when the current decision follows it directly (a colour or
    target after one's own play)."""

    action: int
    color: int


class InconsistentObservation(ValueError):
    """No deal of the deck agrees with the observation (it is not from this configuration)."""


def observation_layout(game: Game) -> ObservationLayout:
    """The observation layout of ``game`` (built once per Game, then cached on it)."""
    cached: ObservationLayout | None = getattr(game, "_determinize_layout", None)
    if cached is None:
        cached = ObservationLayout(game)
        game._determinize_layout = cached  # type: ignore[attr-defined]
    return cached


def _counts(vec: np.ndarray) -> Counter[int]:
    return Counter({f: int(k) for f, k in enumerate(np.rint(vec).astype(int)) if k > 0})


def determinize(game: Game, observation: np.ndarray, action_mask: np.ndarray,
                rng: random.Random, seat: int = 0, recall: Recall | None = None,
                avoid: Sequence[Avoid] = (), must: np.ndarray | None = None) -> State:
    """A full :class:`State` that ``seat`` (the player to act) cannot tell from the real one.

    ``observation`` and ``action_mask`` are what the environment gave that seat (all pieces
    are relative to the observer, so any ``seat`` may stand for it); ``rng`` draws the hidden
    cards. ``avoid`` and ``must`` (2 players, :mod:`uno_env.inference`) are what the
    opponent's forced draws and a challenge showed about its hand. Raises
    :class:`InconsistentObservation` when no deal fits, ``ValueError`` when the observer is
    not to act.
    """
    lay = observation_layout(game)
    o = lay.decode(np.asarray(observation, dtype=np.float32))
    mask = np.asarray(action_mask)
    phase_hot = np.flatnonzero(o["phase"] > 0.5)
    if len(phase_hot) != 1 or not mask.any():
        raise ValueError("the observer is not to act: the observation has no phase and the "
                         "mask no legal action; determinize only decision points")
    n = game.num_players
    phase = int(phase_hot[0])
    side = int(lay.sides and o["dark_side"][0] > 0.5)
    rel = [(seat + k) % n for k in range(n)]  # relative seat k -> absolute seat
    A = game.actions
    legal = np.flatnonzero(mask).tolist()
    drawn_face = -1
    if PHASES[phase] == "drawn":  # the drawn card is the one the mask offers to play
        plays = [A.args[a] if A.types[a] == PLAY_FLEX else a for a in legal
                 if A.types[a] in (PLAY, PLAY_FLEX)]
        drawn_face = plays[0] if plays else -1
    cards = _sample_cards(game, o, side, rel, rng, drawn_face)
    hands, known, pile, discard = cards
    if avoid or (must is not None and must.any()):
        respect(game, hands[(seat + 1) % n], pile, list(avoid), rng, must)
    names = game.card_names
    d = -1 if o["counter_clockwise"][0] > 0.5 else 1
    colors = np.flatnonzero(o["active_color"] > 0.5)
    scores = [0] * n
    for k, q in enumerate(rel):
        scores[q] = int(round(float(o["own_score"][0] if k == 0 else o["opp_score"][k - 1])))
    uno = [False] * n
    uno[seat] = bool(o["own_uno"][0] > 0.5)
    for k in range(1, n):
        uno[rel[k]] = bool(o["opp_uno"][k - 1] > 0.5)
    revealed: list[Any] = [None] * n
    if o["revealed_from"].any():
        k = int(np.argmax(o["revealed_from"])) + 1
        revealed[seat] = [rel[k], [int(x) for x in np.rint(o["revealed"])]]
    # public history: the observer's own (shown to the others only) starts empty
    declined, drawn = [0] * n, [0] * n
    for k in range(1, n):
        bits = o["opp_declined"][(k - 1) * NUM_COLORS:k * NUM_COLORS] > 0.5
        declined[rel[k]] = sum(1 << c for c in range(NUM_COLORS) if bits[c])
        drawn[rel[k]] = int(round(float(o["opp_drawn"][k - 1])))
    power = [True] * n
    if lay.power:
        power[seat] = bool(o["own_power"][0] > 0.5)
        for k in range(1, n):
            power[rel[k]] = bool(o["opp_power"][k - 1] > 0.5)
    data: dict[str, Any] = {
        "variant": game.variant.name, "num_players": n, "options": dict(game.options),
        "hands": [[names[c] for c in h] for h in hands],
        "draw_pile": [names[c] for c in reversed(pile)],
        "discard": [names[c] for c in discard],
        "active_color": int(colors[0]) if len(colors) else WILD,
        "direction": d, "current": seat, "phase": PHASES[phase], "scores": scores,
        "side": side, "pending_draw": int(round(float(o["pending_draw"][0]))),
        "drawn_card": names[hands[seat][-1]] if drawn_face >= 0 else None,
        "uno_called": uno, "declined": declined, "drawn_since": drawn, "passes": 0,
        "revealed": revealed, "power_green": power,
        "known_hidden": [[bool(known[c]) for c in h] for h in hands],
        "round_results": [], "rng": rng.getrandbits(64),
        "target": -1, "bounce": False, "flex_play": False, "until_color": False,
        "skip_victim": True, "chal_ok": False, "challenge_seat": -1, "honest": True,
        "going_out": False, "play_seat": (seat - d) % n, "next_seat": (seat + d) % n,
        "stage": "next", "dealer": (seat - 1) % n,
    }
    _infer_continuation(game, data, o, legal, seat, recall)
    state = State.from_dict(game, data)
    if data["challenge_seat"] >= 0 and PHASES[phase] in ("challenge", "color", "target"):
        # G-wd-challenge: honest when its player held no card of the colour active before;
        # the observer's own play is known from recall, an opponent's from a random colour
        prior = recall.color if (recall is not None and data["challenge_seat"] == seat
                                 and recall.color < WILD) else rng.randrange(4)
        state.honest = game.variant.is_honest(state.counts[data["challenge_seat"]],
                                              game.color_faces, prior)
    return state


def _infer_continuation(game: Game, data: dict[str, Any], o: dict[str, np.ndarray],
                        legal: list[int], seat: int, recall: Recall | None) -> None:
    """Fill the engine's bookkeeping of the card being resolved from the phase (see module)."""
    n, d = game.num_players, data["direction"]
    phase = data["phase"]
    top = game.side_faces[data["side"]][game.cards_by_name[data["discard"][-1]][0]]
    A = game.actions
    own_flex = recall is not None and A.types[recall.action] == PLAY_FLEX
    if phase == "color":
        first = len(data["discard"]) == 1 and all(
            len(h) == game.hand_size for h in data["hands"])
        flipped = (recall is not None and A.types[recall.action] in (PLAY, PLAY_FLEX)
                   and game.face_effect[A.args[recall.action] if own_flex
                                        else recall.action] == E_FLIP)
        if first:  # C-/F-first-discard: the chooser names it, then the first player plays
            chooser_is_dealer = game.first_wild_chooser == "dealer"
            data["dealer"] = seat if chooser_is_dealer else (seat - 1) % n
            data["next_seat"] = (data["dealer"] + 1) % n
            data["direction"] = 1
        elif flipped:  # F-flip: a Flip turned up a wild; play goes on after its player
            data.update(stage="window", play_seat=seat, next_seat=(seat + d) % n)
        else:  # G-wild-color: own wild just played
            _own_play(game, data, top, seat, own_flex)
    elif phase == "target":  # X-effects: own targeted flex draw, colour already chosen
        _own_play(game, data, top, seat, True)
        data["stage"] = "catch"
    elif phase in ("challenge", "stack"):  # the victim of a draw card
        player = (seat - d) % n
        flex = (game.has_flex and game.flex_targeted[top]
                and not data["power_green"][player])
        data.update(stage="window", play_seat=player, flex_play=flex,
                    skip_victim=not flex, until_color=game.face_effect[top] == E_WDC,
                    chal_ok=any(A.types[a] == CHALLENGE for a in legal))
        if data["chal_ok"]:
            data["challenge_seat"] = player
    elif phase == "catch":
        k = int(np.argmax(o["catch_target"])) + 1
        data.update(stage="effect", play_seat=(seat + k) % n)
    elif phase == "reverse-back":
        data.update(stage="window")
    elif phase == "jump-in":  # E-jump-in: the top card's effect has been resolved already
        data.update(stage="next", next_seat=_next_after(game, top, (seat - d) % n, d, n))


def _own_play(game: Game, data: dict[str, Any], top: int, seat: int, flex: bool) -> None:
    """The observer's own card is being resolved (its colour or target is asked)."""
    flex = flex and game.has_flex and game.flex_effect[top] >= 0
    data.update(stage="target" if flex and game.flex_targeted[top] else "catch",
                play_seat=seat, flex_play=flex,
                going_out=len(data["hands"][seat]) == 0)
    if game.flex_challengeable[top] if flex else game.face_challengeable[top]:
        data["challenge_seat"] = seat


def _next_after(game: Game, top: int, p: int, d: int, n: int) -> int:
    """Whose turn follows ``p``'s card ``top`` (its effect already applied, direction ``d``)."""
    e = game.face_effect[top]
    if e == E_SKIP:
        return (p + 2 * d) % n
    if e == E_REVERSE:
        return p if n == 2 else (p + d) % n
    if e == E_DRAW:
        return (p + 2 * d) % n
    return (p + d) % n


def _sample_cards(game: Game, o: dict[str, np.ndarray], side: int, rel: list[int],
                  rng: random.Random, drawn_face: int
                  ) -> tuple[list[list[int]], bytearray, list[int], list[int]]:
    """Hands (oldest first), seen flags, draw pile (top last) and discard (top last)."""
    n, nf = game.num_players, game.num_faces
    act = game.side_faces[side]
    hid = game.side_faces[side ^ 1] if game.num_sides > 1 else None
    own = _counts(o["hand"])
    own_known = _counts(o["own_hidden"]) if hid is not None else Counter()
    disc = _counts(o["discard"])
    top = int(np.argmax(o["top"]))
    pile_n = int(round(float(o["draw_pile"][0])))
    sizes = [int(round(float(x))) for x in o["opp_hand_size"]]
    opp_hidden = ([_counts(o["opp_hidden"][k * nf:(k + 1) * nf]) for k in range(n - 1)]
                  if hid is not None else [Counter() for _ in range(n - 1)])
    pile_top = int(np.argmax(o["pile_hidden"])) if hid is not None and pile_n else -1
    if disc[top] < 1:
        raise InconsistentObservation("the top card is not among the discard pile's faces")
    for _ in range(_TRIES):
        got = _fill(game, act, hid, rng, own, own_known, disc, top, sizes, opp_hidden,
                    pile_n, pile_top, drawn_face)
        if got is not None:
            break
    else:
        raise InconsistentObservation(
            f"no deal of the {game.variant.name} deck fits this observation after {_TRIES} "
            "tries (is it from this variant, player count and options?)")
    own_cards, seen, disc_cards, opp_cards, pile = got
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[rel[0]] = own_cards
    for k in range(1, n):
        hands[rel[k]] = opp_cards[k - 1]
    known = bytearray(game.num_cards)
    for c in seen:
        known[c] = 1
    return hands, known, pile, disc_cards


def _kuhn(cands: list[list[int]]) -> list[int] | None:
    """A perfect matching of left items to distinct right items (``cands[i]``: the right
    items item ``i`` may take, in preference order), by augmenting paths; None when none."""
    owner: dict[int, int] = {}
    got = [-1] * len(cands)

    def place(i: int, seen: set[int]) -> bool:
        for r in cands[i]:
            if r in seen:
                continue
            seen.add(r)
            if r not in owner or place(owner[r], seen):
                owner[r] = i
                got[i] = r
                return True
        return False

    for i in range(len(cands)):
        if not place(i, set()):
            return None
    return got


def _fill(game: Game, act: list[int], hid: list[int] | None, rng: random.Random,
          own: Counter[int], own_known: Counter[int], disc: Counter[int], top: int,
          sizes: list[int], opp_hidden: list[Counter[int]], pile_n: int, pile_top: int,
          drawn_face: int) -> tuple[list[int], list[int], list[int], list[list[int]],
                                    list[int]] | None:
    """One random assignment of physical cards to every slot; None when it dead-ends.

    Slots are (active face, inactive face) demands, -1 for "any": own seen cards (Flip: their
    inactive faces paired at random with faces of the hand), the rest of the hand, the
    discard pile, opponents' cards (Flip: their inactive faces), the draw pile's top (Flip);
    a perfect matching of slots to cards (random preference order) fills them, and the cards
    left over, shuffled, make the opponents' unconstrained cards and the draw pile."""
    faces = list(own.elements())
    rng.shuffle(faces)
    own_slots: list[tuple[int, int]] = []
    drawn_seen = hid is not None and bool(own_known) and drawn_face >= 0
    if hid is not None and own_known:
        types = {(act[c], hid[c]) for c in range(game.num_cards)}
        hs = list(own_known.elements())
        rng.shuffle(hs)
        if drawn_face >= 0:  # F-visibility: the drawn card was seen; it is one of those
            options = [h for h in dict.fromkeys(hs) if (drawn_face, h) in types]
            if not options:
                return None
            h = rng.choice(options)
            hs.remove(h)
            faces.remove(drawn_face)
            drawn_slot = (drawn_face, h)
        pairing = _kuhn([[j for j, f in enumerate(faces) if (f, h) in types] for h in hs])
        if pairing is None:
            return None
        own_slots = [(faces[j], h) for h, j in zip(hs, pairing, strict=True)]
        seen_n = len(own_slots)
        own_slots += [(f, -1) for j, f in enumerate(faces) if j not in set(pairing)]
        if drawn_face >= 0:
            own_slots.append(drawn_slot)
    else:
        seen_n = 0
        if drawn_face >= 0:
            faces.remove(drawn_face)
            faces.append(drawn_face)  # the drawn card is the newest of its face
        own_slots = [(f, -1) for f in faces]
    rest = Counter(disc)
    rest[top] -= 1
    disc_slots = [(f, -1) for f in rest.elements()]
    rng.shuffle(disc_slots)
    disc_slots.append((top, -1))
    opp_slots: list[list[tuple[int, int]]] = [
        [(-1, h) for h in opp_hidden[k].elements()] for k in range(len(sizes))]
    top_slot = [(-1, pile_top)] if pile_top >= 0 else []
    slots = own_slots + disc_slots + [s for ss in opp_slots for s in ss] + top_slot
    order = list(range(game.num_cards))
    rng.shuffle(order)
    by_key: dict[tuple[int, int], list[int]] = {}
    for c in order:
        h = hid[c] if hid is not None else -1
        for key in ((act[c], -1), (-1, h), (act[c], h)):
            by_key.setdefault(key, []).append(c)
    got = _kuhn([by_key.get(s, []) for s in slots])
    if got is None:
        return None
    used = set(got)
    left = [c for c in order if c not in used]
    own_cards = got[:len(own_slots)]
    seen = own_cards[:seen_n] + ([own_cards[-1]] if drawn_seen else [])
    at = len(own_slots)
    disc_cards = got[at:at + len(disc_slots)]
    at += len(disc_slots)
    opp_cards: list[list[int]] = []
    for k, size in enumerate(sizes):
        hand = got[at:at + len(opp_slots[k])]
        at += len(opp_slots[k])
        while len(hand) < size:
            if not left:
                return None
            hand.append(left.pop())
        rng.shuffle(hand)
        opp_cards.append(hand)
    pile = left + got[at:]  # the top (Flip: its inactive face fixed) is the end of the list
    if len(pile) != pile_n:
        return None
    newest = own_cards[-1:] if drawn_face >= 0 else []
    own_cards = own_cards[:len(own_cards) - len(newest)]
    rng.shuffle(own_cards)
    return own_cards + newest, seen, disc_cards, opp_cards, pile
