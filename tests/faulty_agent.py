"""A protocol agent that misbehaves on purpose, for the fault tests of the tournament.

``python faulty_agent.py MODE [AT]`` plays legal actions (the first one) and, from its
``AT``-th decision of a game on (default 3), does what MODE says:

hang     never answers            exit     exits with code 3
garbage  answers a line of text   illegal  answers an action the mask forbids
alloc    allocates without bound  slow     takes 0.25 s on each of 3 decisions, then is quick
chatty   answers twice            ok       behaves
"""

import json
import sys
import time


def main() -> int:
    mode = sys.argv[1]
    at = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    moves = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            moves = 0
            print(f"faulty agent ({mode}) seat {msg['seat']}", file=sys.stderr, flush=True)
            continue
        if msg["type"] != "act":
            continue
        moves += 1
        action = msg["legal"][0]
        if moves >= at:
            if mode == "hang":
                time.sleep(3600)
            elif mode == "exit":
                print("giving up", file=sys.stderr, flush=True)
                return 3
            elif mode == "garbage":
                sys.stdout.write("I play the red seven\n")
                sys.stdout.flush()
                continue
            elif mode == "illegal":
                action = next(a for a in range(len(msg["legal"]) + 200) if a not in msg["legal"])
            elif mode == "alloc":
                hoard = []
                while True:
                    hoard.append(bytes(1 << 24))  # calloc: fast to reach the limit
            elif mode == "slow" and moves < at + 3:
                time.sleep(0.25)
            elif mode == "chatty":  # both lines in one write: the runner sees the second
                sys.stdout.write((json.dumps({"action": action}) + "\n") * 2)
                sys.stdout.flush()
                continue
        sys.stdout.write(json.dumps({"action": action}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
