"""The agent protocol (docs/protocol.md): messages match the JSON schema, answers are
checked strictly, limits are validated, and a Python agent hosted over the protocol plays
exactly the moves it plays in process."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from uno_env import raw_env
from uno_env.tournament import protocol
from uno_env.tournament.host import serve
from uno_env.tournament.process import Limits
from uno_env.tournament.protocol import PROTOCOL_VERSION, AgentFault, parse_answer

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "protocol.schema.json").read_text())


ROOT_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
VALIDATORS = {kind: jsonschema.Draft202012Validator(
    {"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{kind}"})
    for kind in ("hello", "act", "result", "answer")}


def _validator(kind: str) -> Any:
    return VALIDATORS[kind]


def _messages(variant: str, players: int) -> list[dict[str, Any]]:
    """Every message a runner sends an agent of seat 0 in one whole game (random play)."""
    env = raw_env(variant, players)
    env.reset(seed=11)
    limits = Limits().message()
    out = [protocol.hello(env, 0, 5, 123, limits)]
    rng = np.random.default_rng(0)
    step = 0
    while not env.engine.is_over and step < 3000:
        obs = env.observe(env.agent_selection)
        if env.agent_name_mapping[env.agent_selection] == 0:
            out.append(protocol.act(env, obs["observation"], obs["action_mask"], step, 1000,
                                    9500))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        step += 1
    out.append(protocol.result(0, env.engine.winners(), list(env.engine.scores),
                               ["ok"] * players, None, not env.engine.is_over))
    return out


@pytest.mark.parametrize("variant,players", [("classic", 2), ("flip", 3), ("flex", 4),
                                             ("express", 2)])
def test_every_message_of_a_game_matches_the_schema(variant: str, players: int) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    msgs = _messages(variant, players)
    assert msgs[0]["protocol"] == PROTOCOL_VERSION == 1
    for msg in msgs[:40] + msgs[-20:]:  # the start and the end (validating is slow)
        _validator(msg["type"]).validate(msg)
        ROOT_VALIDATOR.validate(msg)  # and exactly one kind at the top level
        json.loads(protocol.encode(msg))  # one line of strict JSON (no NaN/inf)
        assert protocol.encode(msg).count(b"\n") == 1
    hello, act = msgs[0], msgs[1]
    env = raw_env(variant, players)
    assert hello["action_meanings"] == env.action_meanings
    assert hello["observation"]["size"] == env.layout.size == len(act["observation"])
    for piece in hello["observation"]["pieces"]:  # the named pieces are views of the vector
        assert act["pieces"][piece["name"]] == act["observation"][
            piece["start"]:piece["start"] + piece["size"]]
    assert act["time_left_ms"] == act["move_ms"] + act["bank_ms"] == 10500


def test_the_schema_rejects_malformed_messages() -> None:
    answer = _validator("answer")
    answer.validate({"action": 3})
    answer.validate({"action": 3, "note": "extra keys are ignored"})
    for bad in ({"action": "3"}, {"action": -1}, {"act": 3}, {"action": True}, [3]):
        with pytest.raises(jsonschema.ValidationError):
            answer.validate(bad)
    hello = _messages("classic", 2)[0]
    with pytest.raises(jsonschema.ValidationError):
        _validator("hello").validate({**hello, "protocol": 2})


@pytest.mark.parametrize("line,why", [
    (b"I play the red seven", "not JSON"),
    (b"[3]", "must be a JSON object"),
    (b'{"move": 3}', "integer \"action\""),
    (b'{"action": "3"}', "integer \"action\""),
    (b'{"action": true}', "integer \"action\""),
    (b'{"action": 3.5}', "integer \"action\""),
    (b'{"action": 7}', "illegal action 7"),
    (b"\xff\xfe", "not JSON"),
])
def test_bad_answers_are_invalid_and_say_why(line: bytes, why: str) -> None:
    with pytest.raises(AgentFault) as err:
        parse_answer(line, [1, 3, 5])
    assert err.value.status == "invalid" and why in err.value.reason


def test_good_answers() -> None:
    assert parse_answer(b'{"action": 3}', [1, 3]) == 3
    assert parse_answer(b' {"action":1, "debug": [1,2]} ', [1, 3]) == 1
    assert parse_answer(b'{"action": 3.0}', [3]) == 3  # JSON has one number type


def test_limits_are_validated() -> None:
    Limits().validate()
    Limits(cpu=None, memory_mb=None, process="match").validate()
    for bad, what in ((Limits(move=0), "move=0"), (Limits(bank=-1), "bank=-1"),
                      (Limits(first_move=float("inf")), "first_move=inf"),
                      (Limits(memory_mb=10), "memory_mb=10"), (Limits(process="x"), "'x'"),
                      (Limits(move=True), "move=True")):
        with pytest.raises(ValueError, match=what):
            bad.validate()
    assert Limits(move=0.2).message()["move_ms"] == 200


def test_agent_fault_statuses() -> None:
    assert AgentFault("timeout", "slow").status == "timeout"
    with pytest.raises(ValueError, match="not a fault"):
        AgentFault("ok", "fine")


def test_host_answers_with_the_agent_of_the_spec() -> None:
    """The Python host rebuilds the observation and mask and answers what the agent does."""
    msgs = _messages("classic", 2)
    stdin = io.StringIO("".join(protocol.encode(m).decode() for m in msgs))
    stdout = io.StringIO()
    assert serve("rule", stdin, stdout) == 0
    answers = [json.loads(line)["action"] for line in stdout.getvalue().splitlines()]
    acts = [m for m in msgs if m["type"] == "act"]
    assert len(answers) == len(acts)
    from uno_env import agents

    rule = agents.load("rule", "classic", 2, seed=123)
    for msg, answer in zip(acts, answers, strict=True):
        mask = np.zeros(len(msgs[0]["action_meanings"]), dtype=np.int8)
        mask[msg["legal"]] = 1
        assert answer == rule.act(np.asarray(msg["observation"], np.float32), mask)
        assert answer in msg["legal"]


def test_host_refuses_another_protocol_version(capsys: pytest.CaptureFixture[str]) -> None:
    hello = {**_messages("classic", 2)[0], "protocol": 99}
    assert serve("random", io.StringIO(json.dumps(hello) + "\n"), io.StringIO()) == 2
    assert "speaks protocol 1" in capsys.readouterr().err
