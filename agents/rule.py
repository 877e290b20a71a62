"""A rule-based UNO player: a documented heuristic over the observation's named pieces.

The agent reads its observation only through :meth:`uno_env.ObservationLayout.decode` and
chooses among the legal actions by their meanings (``play <face>``, ``play-two <face>``,
``play <face> flex``, ``color <colour>``, ``target +k``, ``challenge``, ...), so it plays
every variant whose actions use those meanings. Static facts about the deck (a face's
colour, effect and points, a card's flex face, how many cards of each colour the deck
holds) come from the :class:`uno_env.Game` of the configuration; nothing about the game in
progress does.

The heuristic, decision by decision:

1. **UNO and catching**: always call ``uno`` when it is offered, always ``catch`` a player
   who forgot to.
2. **Playing** (``play``): play rather than draw. Each legal play is scored and the best
   one is played:

   - a coloured card scores 10 per card of its colour left in hand after the play (so the
     active colour becomes the one the agent holds most of, keeping its next turn open);
   - draw effects (Draw Two/One/Five, everyone-draws, targeted draws) score a bonus, and
     Skip / Reverse score one with two players (they give an extra turn), as does Skip
     Everyone with any number; the bonuses grow when the next player holds one or two
     cards;
   - a double play (``play-two``) scores a bonus (two cards leave the hand at once);
   - high-point cards score a little more (they cost points at the end of the round);
   - wild cards score far below any coloured card (kept for when nothing else matches); a
     wild draw goes before a plain wild, except that a challengeable wild draw waits while
     another wild is in hand (so it is never played as a bluff where a wild counts against
     honesty, as in Flex);
   - Flex: a flex play is scored by its flex face's effect and the colour the card then
     shows, less a small cost for spending the Power Card;
   - Flip timing: a Flip card scores a bonus when the next player's hidden faces (which
     the agent sees, F-visibility) hold no wild and no draw card, and a malus for each
     one they hold; the agent's own known hidden wilds add to it.
3. **After drawing** (``drawn``): play the drawn card when it is playable, else keep it.
4. **Colour** (``color``): the colour the agent holds most cards of (ties: more points in
   that colour, then the colour most often seen on the discard pile).
5. **Target** (``target +k``): the player with the fewest cards (the nearest to going out).
6. **Wild draw against the agent** (``challenge``): estimate the chance that the player
   who played it held a card of the previous colour. The previous colour is the colour in
   play after the agent's own last decision, or the colour of the cards others played on
   top of it since (the discard pile counts say which). The cards of that colour the agent
   cannot see are the deck's cards of that colour less its own and those on the discard
   pile; with ``U`` unseen cards, ``k`` of them of that colour and a hand of ``H``, the
   chance of holding none is the hypergeometric ``C(U-k, H) / C(U, H)``. Challenge when
   the chance of a bluff is at least ``challenge_threshold`` (default 0.5); else stack a
   draw card when the rules allow; else accept. The estimate assumes the wild draw was
   played whatever the hand held (as a random player does); against players who never
   bluff it overstates the chance, which the threshold tempers.
7. **Stacking, jumping in, answering with a Reverse**: whenever a play is offered outside
   the agent's own turn it is taken (stack the draw card, jump in, send the Skip back).
8. Anything else: ``accept`` or ``pass``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.observation import ObservationLayout
from uno_env.rule_facts import (
    DRAWING,
    K_ACCEPT,
    K_CATCH,
    K_CHALLENGE,
    K_COLOR,
    K_DRAW,
    K_PASS,
    K_TARGET,
    K_UNO,
    PLAYS,
    TEMPO_2P,
    TEMPO_ALL,
    Play,
    RuleFacts,
)
from uno_env.rules import PHASES, Game


class RuleAgent(RuleFacts):
    """The heuristic in this module's docstring, for one (variant, players, options)."""

    name = "rule"

    def __init__(self, variant: str = "classic", num_players: int = 2, seed: int | None = None,
                 challenge_threshold: float = 0.5, **options: Any) -> None:
        game = Game(variant, num_players, **options)
        self.layout = ObservationLayout(game)
        self.num_players = num_players
        self.challenge_threshold = float(challenge_threshold)
        RuleFacts.__init__(self, game)
        self._phase_names = list(PHASES)
        self.reset()

    # --- protocol ---------------------------------------------------------------------------
    def seed(self, seed: int | None) -> None:
        """The heuristic is deterministic; the method exists for a uniform agent interface."""

    def reset(self) -> None:
        self._prev_discard: np.ndarray | None = None
        self._prev_color: int | None = None

    def get_state(self) -> dict[str, Any]:
        """The memory of the game in progress (plain data: a trainer's checkpoint stores it)."""
        d = self._prev_discard
        return {"prev_color": self._prev_color, "prev_discard": None if d is None else d.tolist()}

    def set_state(self, state: dict[str, Any]) -> None:
        d = state["prev_discard"]
        self._prev_color = state["prev_color"]
        self._prev_discard = None if d is None else np.array(d, dtype=np.float32)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask).tolist()
        if not legal:
            raise ValueError("the action mask allows no action: this agent is not to act")
        d = self.layout.decode(observation)
        action = legal[0] if len(legal) == 1 else self._choose(d, legal)
        if self._track:
            self._remember(d, action)
        return int(action)

    # --- decisions --------------------------------------------------------------------------
    def _choose(self, d: dict[str, np.ndarray], legal: list[int]) -> int:
        kind = self._kind
        by_kind: dict[int, list[int]] = {}
        for a in legal:
            by_kind.setdefault(kind[a], []).append(a)
        if K_UNO in by_kind:  # G-uno: always call
            return by_kind[K_UNO][0]
        if K_CATCH in by_kind:
            return by_kind[K_CATCH][0]
        if K_COLOR in by_kind:
            return self._choose_color(d, by_kind[K_COLOR])
        if K_TARGET in by_kind:
            return self._choose_target(d, by_kind[K_TARGET])
        if K_CHALLENGE in by_kind and self._bluff_chance(d) >= self.challenge_threshold:
            return by_kind[K_CHALLENGE][0]
        plays = [a for k in PLAYS for a in by_kind.get(k, ())]
        if plays:
            if len(plays) == 1:
                return plays[0]
            return max(plays, key=lambda a: self._play_score(d, self._arg[a]))
        for k in (K_ACCEPT, K_PASS, K_DRAW):
            if k in by_kind:
                return by_kind[k][0]
        return legal[0]

    def _next_opponent(self, d: dict[str, np.ndarray]) -> int:
        """Index into the per-opponent pieces of the next player in the current direction."""
        return self.num_players - 2 if d["counter_clockwise"][0] else 0

    def _side(self, d: dict[str, np.ndarray]) -> int:
        """The active side (Flip's ``dark_side`` piece; else the top face's side)."""
        if "dark_side" in d:
            return int(d["dark_side"][0] > 0)
        return self._face_side[int(d["top"].argmax())]

    def _play_score(self, d: dict[str, np.ndarray], p: Play) -> float:
        next_size = float(d["opp_hand_size"][self._next_opponent(d)])
        danger = next_size <= 2
        effect = p.effect
        score = p.points / 20.0
        if effect in DRAWING:
            score += 30.0 if danger else 6.0
        elif effect in TEMPO_ALL or (effect in TEMPO_2P and self.num_players == 2):
            score += 25.0 if danger else 5.0
        elif effect in ("skip", "reverse-skip") and danger:
            score += 25.0
        elif effect == "flip":
            score += self._flip_bonus(d)
        if p.cards == 2:
            score += 15.0
        if p.flex:
            score -= 3.0  # the Power Card turns red
        hand = d["hand"]
        if p.wild:
            if p.challengeable and float(self._wild_row @ hand) > 1:
                return score - 65.0  # another wild first: this one could count as a bluff
            return score - (50.0 if effect in DRAWING else 60.0)
        same_color = float(self._color_rows[p.side, p.color] @ hand)
        return score + 10.0 * (same_color - p.cards)

    def _flip_bonus(self, d: dict[str, np.ndarray]) -> float:
        """F-visibility: the faces the next player will hold after a flip are visible."""
        if "opp_hidden" not in d:
            return 0.0
        nf = len(self._wild_row)
        k = self._next_opponent(d)
        theirs = d["opp_hidden"][k * nf:(k + 1) * nf]
        strong = float(self._wild_row @ theirs + self._draw_row @ theirs)
        bonus = 8.0 - 8.0 * strong
        if "own_hidden" in d:
            bonus += 4.0 * float(self._wild_row @ d["own_hidden"])
        return max(bonus, -16.0)

    def _choose_color(self, d: dict[str, np.ndarray], actions: list[int]) -> int:
        hand, discard = d["hand"], d["discard"]
        pts = self._face_points

        def key(a: int) -> tuple[float, float, float]:
            side, c = self._arg[a]
            row = self._color_rows[side, c]
            return float(row @ hand), float(row @ (hand * pts)), float(row @ discard)

        return max(actions, key=key)

    def _choose_target(self, d: dict[str, np.ndarray], actions: list[int]) -> int:
        sizes = d["opp_hand_size"]
        n = self.num_players
        ccw = bool(d["counter_clockwise"][0])

        def size(a: int) -> tuple[float, int]:
            k = self._arg[a]  # k seats on in the current direction; pieces go clockwise
            rel = (n - k) % n if ccw else k
            return float(sizes[rel - 1]), k

        return min(actions, key=size)

    def _bluff_chance(self, d: dict[str, np.ndarray]) -> float:
        """The chance that the wild draw on top was played holding the previous colour."""
        side = self._side(d)
        top = int(d["top"].argmax())
        discard = np.asarray(d["discard"], dtype=np.float32)
        candidates: set[int] = set()
        if self._prev_discard is not None and len(self._prev_discard) == len(discard):
            added = discard - self._prev_discard
            added[top] -= 1
            if (added >= 0).all():
                for f in np.flatnonzero(added).tolist():
                    rows = self._color_rows[side, :, f]
                    candidates.update(np.flatnonzero(rows).tolist())
                if not candidates and self._prev_color is not None:
                    candidates = {self._prev_color}
        if not candidates:
            candidates = {0, 1, 2, 3}
        hand = d["hand"]
        rows = self._color_rows[side]
        unseen = self._num_cards - float(hand.sum()) - float(discard.sum())
        # the player who played it sits before the agent in the current direction
        prev = 0 if d["counter_clockwise"][0] else self.num_players - 2
        held = int(d["opp_hand_size"][prev])
        chances = []
        for c in candidates:
            k = self._deck_color[side, c] - float(rows[c] @ hand) - float(rows[c] @ discard)
            none = 1.0
            for i in range(held):
                left = unseen - i
                if left <= 0:
                    break
                none *= max(left - k, 0.0) / left
            chances.append(1.0 - none)
        return float(np.mean(chances))

    def _remember(self, d: dict[str, np.ndarray], action: int) -> None:
        """What the discard pile and the colour are once the agent's own decision is made
        (the bluff estimate compares the next observation with this)."""
        discard = np.array(d["discard"], dtype=np.float32)
        kind, arg = self._kind[action], self._arg[action]
        color = d["active_color"]
        self._prev_color = int(color.argmax()) if color.any() else None
        if kind in PLAYS:
            discard[arg.face] += arg.cards
            self._prev_color = None if arg.wild else arg.color
        elif kind == K_COLOR:
            self._prev_color = arg[1]
        self._prev_discard = discard
