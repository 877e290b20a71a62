"""The shared tree of :mod:`uno_env.agents.ismcts`: its nodes (action histories, with the
availability counts single-observer ISMCTS needs), which actions a node searches, and how an
iteration's result is credited along its path."""

from __future__ import annotations

from uno_env.rules.codes import CATCH, UNO
from uno_env.rules.state import State

UCB_C = 0.7  # exploration constant for win rates in [0, 1]
PUCT_C = 1.5


class Node:
    __slots__ = ("avail", "children", "player", "prior", "visits", "wins")

    def __init__(self, player: int, prior: float = 1.0) -> None:
        self.player = player  # who chose the action leading here
        self.prior = prior
        self.visits = 0
        self.wins = 0.0
        self.avail = 0
        self.children: dict[int, Node] = {}


def choices(state: State) -> list[int]:
    """The actions worth searching: calling UNO and catching dominate (they cost nothing),
    so where one is offered it is the only choice; else every legal action."""
    types = state.game.actions.types
    for a in state.legal:
        t = types[a]
        if t in (UNO, CATCH):
            return [a]
    return state.legal


def credit(path: list[Node], value: list[float]) -> None:
    """Add an iteration's result to the nodes of its path (their visits are counted when
    the path is walked): each node scores the share of the seat that chose its action."""
    for nd in path:
        if nd.player >= 0:
            nd.wins += value[nd.player]
