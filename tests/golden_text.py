"""Readable golden playthroughs (``tests/golden/<variant>-<case>.txt``, beside the JSON files
of ``golden_io.py``), in the manner of OpenSpiel's ``playthroughs/``: every decision with its
seat and action meaning, and every :data:`EVERY` decisions (and at the end) a readable state
(seat to act, phase, top card and colour, direction, pile, hands, scores) with its digest.

The JSON files pin the engines (digests); these files make a re-recording reviewable: a rule
change shows in ``git diff`` as the decisions and positions that changed. Both engines must
write the same text (tests/test_golden.py, tests/test_batch_golden.py).

``python tests/golden_text.py record`` rewrites the text files from the JSON files (it never
changes a digest); ``python tests/golden_io.py record`` re-records both.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import Any

EVERY = 10
"""A state block after every EVERY-th decision."""


def _cards(names: list[str]) -> str:
    return " ".join(names) if names else "-"


class Playthrough:
    """The text of one recorded game, fed decision by decision by either engine."""

    def __init__(self, game: Any, index: int, record: dict[str, Any]) -> None:
        self.game = game  # uno_env.Game of the configuration (colour and seat names)
        self.lines = [f"== game {index}: {record['num_players']} players, seed "
                      f"{record['seed']}, {len(record['actions'])} decisions =="]
        self.decisions = 0

    def _state(self, label: str, snap: dict[str, Any], digest: str,
               rewards: list[float] | None = None) -> None:
        ac = snap["active_color"]
        colour = "-" if ac >= 4 else self.game.colors[snap["side"]][ac]
        top = snap["discard"][-1] if snap["discard"] else "-"
        parts = [f"p{snap['current']} to act", snap["phase"], f"top {top} ({colour})",
                 f"dir {snap['direction']:+d}", f"pile {len(snap['draw_pile'])}",
                 "hands " + " ".join(str(len(h)) for h in snap["hands"]),
                 "scores " + " ".join(str(x) for x in snap["scores"])]
        if snap["pending_draw"]:
            parts.insert(3, f"pending {snap['pending_draw']}")
        if len(self.game.colors) > 1:  # Flip
            parts.insert(2, ("light", "dark")[snap["side"]] + " side")
        if rewards is not None:
            parts.append("rewards " + " ".join(f"{r:+g}" for r in rewards))
        self.lines.append(f"{label:>9} | " + " | ".join(parts))
        for seat, held in enumerate(snap["hands"]):
            self.lines.append(f"{'':>9}   p{seat}: {_cards(held)}")
        self.lines.append(f"{'':>9}   digest {digest}")

    def start(self, snap: dict[str, Any], digest: str) -> None:
        self._state("deal", snap, digest)

    def step(self, actor: int, meaning: str, snap: dict[str, Any], digest: str,
             rewards: list[float], over: bool, last: bool) -> None:
        """Decision ``meaning`` of seat ``actor`` taken; ``over``: the game ended with it,
        ``last``: the recording stops after it (a game cut at ``max_decisions``)."""
        self.decisions += 1
        k = self.decisions
        self.lines.append(f"{k:>9}   p{actor} {meaning}")
        if over or last:
            self._state("end" if over else "stop", snap, digest, rewards)
        elif k % EVERY == 0:
            self._state(f"after {k}", snap, digest)


def header(data: dict[str, Any]) -> list[str]:
    return [f"# uno-env golden playthrough: {data['variant']}, case {data['case']} "
            f"(digests and actions: {data['variant']}-{data['case']}.json)",
            "# re-record (rule changes only): python tests/golden_text.py record",
            f"# options: {data['options']}", ""]


def text_path(json_path: Path) -> Path:
    return json_path.with_suffix(".txt")


def compare(path: Path, lines: list[str], engine: str) -> str | None:
    """None when ``path`` holds ``lines``; else where they first differ and a short diff."""
    if not path.exists():
        return f"{path.name} is missing; write it with: python tests/golden_text.py record"
    want = path.read_text(encoding="utf-8").splitlines()
    if want == lines:
        return None
    first = next((k for k, (a, b) in enumerate(zip(want, lines, strict=False)) if a != b),
                 min(len(want), len(lines)))
    diff = list(difflib.unified_diff(want, lines, f"{path.name} (stored)",
                                     f"{path.name} ({engine} engine)", n=2, lineterm=""))
    return (f"{path.name}: the {engine} engine's playthrough differs from line {first + 1} on "
            "(re-record with python tests/golden_text.py record only for a rule change you "
            "mean):\n" + "\n".join(diff[:40]))


def python_lines(data: dict[str, Any]) -> list[str]:
    """The text of a golden file's games, replayed through the Python engine."""
    from golden_io import replay_game

    import uno_env

    lines = header(data)
    for k, game in enumerate(data["games"]):
        text = Playthrough(uno_env.Game(data["variant"], game["num_players"], **data["options"]),
                           k, game)
        diff = replay_game(data["variant"], data["options"], game, text)
        if diff is not None:
            raise ValueError(f"game {k} no longer replays ({diff}): re-record the JSON first")
        lines += text.lines + [""]
    return lines


def record_all() -> list[Path]:
    from golden_io import golden_files, load

    written = []
    for path in golden_files():
        out = text_path(path)
        out.write_text("\n".join(python_lines(load(path))) + "\n", encoding="utf-8")
        written.append(out)
    return written


def main(argv: list[str]) -> int:
    if argv == ["record"]:
        for p in record_all():
            print(f"wrote {p} ({p.stat().st_size:,} bytes)")
        return 0
    print("usage: python tests/golden_text.py record", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main(sys.argv[1:]))
