"""Serve a Python agent spec over the stdio protocol: ``python -m uno_env.tournament.host SPEC``.

This is how ``random``, ``rule``, ``ppo:...`` and ``py:MODULE:NAME`` agents play under time
and memory limits: the runner starts this host as the agent's process. The observation
arrives as JSON numbers and is rebuilt as the same float32 vector the env gives, and the
mask from the legal indices, so a hosted agent plays exactly the moves it plays in process.
An exception in the agent ends the host with its traceback on stderr (a ``crash``).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import numpy as np

from uno_env.tournament.protocol import PROTOCOL_VERSION


def serve(spec: str, stdin: Any = None, stdout: Any = None) -> int:
    """Answer ``act`` messages with ``spec``'s actions until stdin closes."""
    from uno_env.tournament.players import load_agent

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    agent: Any = None
    config: Any = None
    actions = 0
    for line in stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            if msg.get("protocol") != PROTOCOL_VERSION:
                print(f"uno_env.tournament.host speaks protocol {PROTOCOL_VERSION}, the runner "
                      f"{msg.get('protocol')!r}", file=sys.stderr)
                return 2
            now = (msg["variant"], msg["num_players"], json.dumps(msg["options"],
                                                                  sort_keys=True))
            actions = len(msg["action_meanings"])
            if agent is not None and now == config and callable(getattr(agent, "seed", None)):
                agent.seed(msg["seed"])
            else:
                agent = load_agent(spec, msg["variant"], msg["num_players"], msg["seed"],
                                   msg["options"])
                config = now
            agent.reset()
        elif kind == "act":
            obs = np.asarray(msg["observation"], dtype=np.float32)
            mask = np.zeros(actions, dtype=np.int8)
            mask[msg["legal"]] = 1
            action = agent.act(obs, mask)
            answer = int(action) if isinstance(action, int | np.integer) else action
            stdout.write(json.dumps({"action": answer}) + "\n")
            stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m uno_env.tournament.host SPEC", file=sys.stderr)
        return 2
    return serve(args[0])


if __name__ == "__main__":
    # this program owns its process: one agent, one decision at a time, on one torch thread
    # (set before torch is imported; the agents themselves never set it)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # at once: the runner waits for the exit, and torch's teardown is slow
