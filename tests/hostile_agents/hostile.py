"""A protocol agent that attacks the runner on purpose, for tests/test_tournament_hostile.py.

``python hostile.py MARK MODE [ARG...]`` plays the first legal action and, at its 2nd
decision of a game, does what MODE says. MARK is any word: the test finds the processes
of this agent (and of every child, which keeps the command line) by it.

bigint   answers {"action": <5000 digits>}    nested   answers 20,000 nested '['
killhost SIGTERM to its parent (the runner's worker, when not sandboxed), plays on
escape   double fork + setsid: the grandchild keeps stdout and stderr open and, 1 s later,
         tries to rewrite ARG/results.json (ARG: the output folder, hex-encoded); plays on
memhog   3 children touching ARG MiB each; answers 8 s later
cpuhog   4 children spinning; answers 8 s later
forks    200 sleeping children; answers 8 s later
spy      tries to reach what it must not (ARGs hex-encoded: the output folder, another
         agent's file, the host's pid, a TCP port on 127.0.0.1, a secret in the host's
         environment); exits with code 42, naming each on stderr, if it reached any
I/O is plain stdlib; ARGs are hex so that the sandbox does not take them for the agent's
own files (it shows an agent the paths named on its command line).
"""

import contextlib
import json
import os
import signal
import socket
import sys
import time


def unhex(text: str) -> str:
    return bytes.fromhex(text).decode()


def spy(args: list[str]) -> list[str]:
    out, other, host_pid, port, secret = (unhex(a) for a in args)
    found = []
    for path in (os.path.join(out, "games.jsonl"), os.path.join(out, "tournament.json"),
                 other, f"/proc/{host_pid}/cmdline", f"/proc/{host_pid}/environ"):
        try:
            with open(path, "rb") as fh:
                fh.read(1)
            found.append(f"read {path}")
        except OSError:
            pass
    with contextlib.suppress(OSError):
        found += [f"listed {out}: {sorted(os.listdir(out))}"]
    for pid in (os.getppid(), 1):
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if secret.encode() in fh.read():
                    found.append(f"secret in /proc/{pid}/environ")
        except OSError:
            pass
    if secret in os.environ.values():
        found.append("secret in its environment")
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=1) as s:
            s.sendall(b"GET / HTTP/1.0\r\n\r\n")
            if s.recv(100):
                found.append(f"network 127.0.0.1:{port}")
    except OSError:
        pass
    return found


def attack(mode: str, args: list[str]) -> str | None:
    """Do the attack; a line to answer instead of the move, if any."""
    if mode == "bigint":
        return '{"action": ' + "7" * 5000 + "}"
    if mode == "nested":
        return "[" * 20000
    if mode == "killhost":
        with contextlib.suppress(OSError):
            os.kill(os.getppid(), signal.SIGTERM)
    elif mode == "escape":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(1.0)
                try:
                    with open(os.path.join(unhex(args[0]), "results.json"), "w") as fh:
                        fh.write('{"pwned": true}\n')
                except OSError:
                    pass
                time.sleep(30)
            os._exit(0)
        os.wait()
    elif mode in ("memhog", "cpuhog", "forks"):
        count = {"memhog": 3, "cpuhog": 4, "forks": 200}[mode]
        for _ in range(count):
            if os.fork() == 0:
                if mode == "memhog":
                    hoard = bytearray(b"\1") * (int(args[0]) << 20)  # touched: resident
                    time.sleep(30)
                    del hoard
                elif mode == "cpuhog":
                    while True:
                        pass
                time.sleep(30)
                os._exit(0)
        time.sleep(8.0)  # the children are at work; the runner kills the sandbox first
    elif mode == "spy":
        found = spy(args)
        if found:
            print("reached: " + "; ".join(found), file=sys.stderr, flush=True)
            sys.exit(42)
    return None


def main() -> int:
    mode, args = sys.argv[2], sys.argv[3:]
    moves = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            moves = 0
            continue
        if msg["type"] != "act":
            continue
        moves += 1
        answer = attack(mode, args) if moves == 2 else None
        sys.stdout.write((answer or json.dumps({"action": msg["legal"][0]})) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
