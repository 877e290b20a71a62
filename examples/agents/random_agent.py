#!/usr/bin/env python3
"""A complete UNO agent for the uno-env stdio protocol (version 1), standard library only.

Run it in a tournament with the spec ``cmd:python3 examples/agents/random_agent.py``, or
check it with ``uno-env check-agent "cmd:python3 examples/agents/random_agent.py"``.

It reads one JSON message per line on stdin and answers every ``act`` with one line
``{"action": i}`` on stdout (flushed). Anything meant for a person goes to stderr.
It plays a legal action at random, preferring to play a card over drawing one; its random
generator is seeded from ``hello`` so that a tournament replays exactly.
"""

import json
import random
import sys

PROTOCOL = 1


def main() -> int:
    rng = random.Random(0)
    meanings: list[str] = []
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            if msg["protocol"] != PROTOCOL:
                print(f"this agent speaks protocol {PROTOCOL}, not {msg['protocol']}",
                      file=sys.stderr)
                return 2
            rng.seed(msg["seed"])
            meanings = msg["action_meanings"]
        elif msg["type"] == "act":
            legal = msg["legal"]
            # The named pieces of the observation, e.g. msg["pieces"]["hand"] (counts of each
            # face, in the order of hello's observation.face_names).
            plays = [a for a in legal if meanings[a].startswith("play")]
            action = rng.choice(plays or legal)
            sys.stdout.write(json.dumps({"action": action}) + "\n")
            sys.stdout.flush()
        elif msg["type"] == "result":
            won = msg["seat"] in msg["winners"]
            print(f"game over: {'won' if won else 'lost'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
