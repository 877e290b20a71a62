"""One game between a person and agents, as the browser table plays it (no web code here).

The person's page is sent only :meth:`Session.public`: their seat's view decoded from their
observation, their legal actions, and a log of what the table saw (opponents' passes and
accepts are left out: being asked at all would tell what they hold). Every refusal is a
:class:`Refused` with the HTTP status it deserves and a message that says what is allowed;
a refused request changes nothing.
"""

from __future__ import annotations

import secrets
import threading
from typing import Any

from uno_env.actions import (
    ACCEPT,
    CATCH,
    CHALLENGE,
    COLOR,
    DRAW,
    PASS,
    PLAY,
    PLAY_FLEX,
    PLAY_TWO,
    TARGET,
    UNO,
)
from uno_env.rules.codes import PHASES
from uno_env.tournament.web.view import (
    PHASE_LABELS,
    effects,
    hidden_decision,
    public_facts,
    seat_view,
)

KINDS = {PLAY: "play", PLAY_TWO: "play-two", PLAY_FLEX: "play-flex", DRAW: "draw",
         PASS: "pass", COLOR: "color", CHALLENGE: "challenge", ACCEPT: "accept", UNO: "uno",
         CATCH: "catch", TARGET: "target"}


class Refused(Exception):
    """A request the game cannot take; ``status`` is its HTTP status code."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Session:
    """A game with a person in ``seat`` and agents (``opponents``, in seat order) elsewhere."""

    def __init__(self, variant: str, opponents: list[str], seat: int = 0,
                 seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        from uno_env import Game, raw_env
        from uno_env.tournament.runner import check_agent, load_agent
        from uno_env.tournament.schedule import agent_seed, make_deal

        options = dict(options or {})
        n = 1 + len(opponents)
        game = Game(variant, n, **options)  # says what is wrong with variant/players/options
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0-{n - 1} with {len(opponents)} opponents, "
                             f"got {seat!r}")
        self.id = secrets.token_urlsafe(12)
        self.seed = secrets.randbelow(2**31) if seed is None else int(seed)
        deal = make_deal(self.seed, 0, game.card_names, n)
        self.specs = list(opponents)
        self.specs.insert(seat, "human")
        for spec in dict.fromkeys(opponents):
            check_agent(spec, variant, n, options)
        self.agents = {s: load_agent(self.specs[s], variant, n, agent_seed(self.seed, 0, s),
                                     options) for s in range(n) if s != seat}
        self.env = raw_env(variant, n, **options)
        self.env.reset(seed=deal.seed, options={"deck": list(deal.deck),
                                                "dealer": deal.dealer})
        self.variant, self.n, self.seat = game.variant.name, n, seat
        self.deal = deal
        self.names = ["you" if s == seat else f"player_{s}" for s in range(n)]
        self.actions: list[int] = []
        self.log: list[dict[str, Any]] = []
        self.forfeit: dict[str, Any] | None = None
        self.quit = False
        self.lock = threading.RLock()  # uvicorn serves requests from a thread pool
        self._advance()

    # --- playing ----------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.quit or self.forfeit is not None or self.env.engine.is_over

    def act(self, seat: Any, action: Any) -> None:
        """The person's decision; refused (and nothing changed) unless it is legal for them."""
        with self.lock:
            if seat != self.seat:
                who = f"player_{seat} ({self.specs[seat]})" if (
                    isinstance(seat, int) and 0 <= seat < self.n) else f"seat {seat!r}"
                raise Refused(403, f"{who} is not yours to play: you sit at seat {self.seat}")
            if self.over:
                raise Refused(409, "the game is over: download its replay or start a new one")
            engine = self.env.engine
            if isinstance(action, bool) or not isinstance(action, int):
                raise Refused(400, f"action must be an action index (an integer), got "
                                   f"{action!r}")
            if action not in engine.legal:
                raise Refused(409, engine.illegal_message(action))
            self._apply(action)
            self._advance()

    def leave(self) -> None:
        """The person stops: the game ends unfinished (its record says so)."""
        with self.lock:
            if not self.over:
                self.quit = True

    def _apply(self, action: int) -> None:
        env = self.env
        state = env.engine
        seat, kind, phase = state.current, env.game.actions.types[action], state.phase
        before = public_facts(state)
        env.step(action)
        self.actions.append(action)
        names = [self.label(s) for s in range(self.n)]
        caused = effects(before, public_facts(env.engine), names, seat, kind)
        if seat != self.seat and hidden_decision(kind):
            # not shown, nor counted: what it caused reads as the previous event's doing
            if self.log:
                self.log[-1]["effects"].extend(caused)
            elif caused:
                self.log.append({"seat": None, "text": None, "phase": None, "effects": caused})
            return
        text = env.game.actions.meanings[action]
        if kind == TARGET:  # "target +k" counts from the actor: say whom
            text = f"{text}: {self.label(env.engine.target)}"
        self.log.append({"seat": seat, "text": text, "phase": PHASE_LABELS.get(phase),
                         "effects": caused})

    def _advance(self) -> None:
        """Let the agents decide until it is the person's turn or the game ends; an agent
        that fails or answers an illegal action forfeits (as in a tournament)."""
        env = self.env
        # own loop, not play_episode: a failing or illegal agent forfeits instead of raising
        while not self.over and env.engine.current != self.seat:
            cur = env.engine.current
            obs = env.observe(env.possible_agents[cur])
            try:
                action = self.agents[cur].act(obs["observation"], obs["action_mask"])
            except Exception as err:  # an agent's failure ends the game, never the server
                self.forfeit = {"seat": cur, "agent": self.specs[cur],
                                "reason": f"raised {type(err).__name__}: {err}"[:300]}
                return
            if not isinstance(action, int) and hasattr(action, "item"):
                action = action.item()
            if isinstance(action, bool) or action not in env.engine.legal:
                self.forfeit = {"seat": cur, "agent": self.specs[cur],
                                "reason": f"illegal action {action!r}"[:300]}
                return
            self._apply(int(action))

    # --- what the page gets -----------------------------------------------------------------
    def label(self, s: int) -> str:
        return "you" if s == self.seat else f"player_{s} ({self.specs[s]})"

    def public(self) -> dict[str, Any]:
        """The person's page: their view, their legal actions, what the table saw."""
        with self.lock:
            return self._public()

    def _public(self) -> dict[str, Any]:
        env = self.env
        state = env.engine
        view = seat_view(env.layout, env.observe(env.possible_agents[self.seat]), self.seat)
        legal = [] if self.over or state.current != self.seat else [
            self._describe(a, state) for a in state.legal]
        return {
            "id": self.id, "variant": self.variant, "seat": self.seat, "names": self.names,
            "agents": self.specs, "labels": [self.label(s) for s in range(self.n)],
            "over": self.over, "view": view,
            "phase": view["phase"], "legal": legal, "log": self.log,
            "result": self.result() if self.over else None,
        }

    def _describe(self, a: int, state: Any) -> dict[str, Any]:
        A = self.env.game.actions
        kind = A.types[a]
        out: dict[str, Any] = {"action": a, "meaning": A.meanings[a], "kind": KINDS[kind]}
        if kind in (PLAY, PLAY_TWO, PLAY_FLEX):
            out["face"] = self.env.game.face_names[A.args[a]]
        elif kind == COLOR:
            out["color"] = self.env.game.colors[state.side][A.args[a]]
        elif kind == TARGET:
            target = (self.seat + A.args[a] * state.direction) % self.n
            out["target"] = target
            out["meaning"] = f"{A.meanings[a]}: {self.label(target)} draws"
        return out

    def result(self) -> dict[str, Any]:
        engine = self.env.engine
        if self.forfeit is not None:
            winners = [s for s in range(self.n) if s != self.forfeit["seat"]]
        elif self.quit:
            winners = []
        else:
            winners = engine.winners()
        return {"winners": winners, "points": list(engine.scores), "steps": len(self.actions),
                "rounds": len(engine.round_results), "truncated": False,
                "forfeit": self.forfeit, "quit": self.quit,
                "phase": PHASES[engine.phase]}

    def record(self) -> dict[str, Any]:
        """The game as a replayable record (see :mod:`uno_env.tournament.replay`); it names every
        card of the deck, so it is given out only once the game is over."""
        if not self.over:
            raise Refused(409, "the game is still being played: its record would show every "
                               "hand; finish or leave the game first")
        result = self.result()
        del result["phase"]
        return {
            "variant": self.variant, "num_players": self.n, "options": dict(self.env.options),
            "max_steps": None, "seed": self.deal.seed, "deck": list(self.deal.deck),
            "dealer": self.deal.dealer, "agents": self.specs, "human_seat": self.seat,
            "play_seed": self.seed, "actions": list(self.actions), "result": result,
        }
