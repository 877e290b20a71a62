"""Scoring: G-score, F-alt-score, E-end, G-blocked, and who won the episode."""

from __future__ import annotations

from uno_env.rules.codes import P_OVER
from uno_env.rules.deal import Piles


class Scoring(Piles):
    """End a round, score it, deal the next one of a match."""
    __slots__ = ()

    def hand_value(self, seat: int) -> int:
        pts = self.game.face_points
        return sum(pts[f] * k for f, k in enumerate(self.counts[seat]) if k)

    def _end_round(self, winner: int) -> None:
        """G-score (or F-alt-score/E-end with penalty scoring); G-blocked when winner < 0."""
        g, n = self.game, self.n
        values = [self.hand_value(s) for s in range(n)]
        blocked = winner < 0
        if blocked:
            low = min(values)
            lowest = [s for s in range(n) if values[s] == low]
            winner = lowest[0] if len(lowest) == 1 else -1
        points = [0] * n
        if winner >= 0:
            if g.penalty_scoring:
                points = [0 if s == winner else values[s] for s in range(n)]
            else:
                points[winner] = sum(values) - values[winner]
        for s in range(n):
            self.scores[s] += points[s]
        self.round_results.append({"winner": winner, "blocked": blocked, "points": points,
                                   "hand_values": values})
        if g.match and max(self.scores) < g.target_score:
            self._deal((self.dealer + 1) % n, None)  # G-dealer: the deal passes left
            return
        self.phase = P_OVER

    @property
    def is_over(self) -> bool:
        return self.phase == P_OVER

    def winners(self) -> list[int]:
        """Who won the episode: the round's winner, or the match's (G-score, F-alt-score)."""
        if self.phase != P_OVER:
            return []
        if not self.game.match:
            w = self.round_results[-1]["winner"]
            return [] if w < 0 else [w]
        best = (min if self.game.penalty_scoring else max)(self.scores)
        return [s for s in range(self.n) if self.scores[s] == best]
