"""The per-iteration report of an expert-iteration run: ``report.json`` (every row) and
``report.md`` (the same rows as a Markdown table), both rewritten whole after each
iteration, so each iteration appends a row (docs/expert-loop.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# (column title, row key, how to show it)
COLUMNS = (
    ("iteration", "iteration", "{}"),
    ("network vs rule", "network", "rate"),
    ("search vs rule", "search", "rate"),
    ("labels", "labels", "{:,}"),
    ("labels used", "labels_used", "{:,}"),
    ("generate s", "generate_s", "{:.0f}"),
    ("train s", "train_s", "{:.0f}"),
    ("evaluate s", "evaluate_s", "{:.0f}"),
)


def rate_cell(r: dict[str, Any] | None) -> str:
    """``57.12% [56.43, 57.80] (20,000)``: a win rate, its 95% interval and the games."""
    if not r:
        return "-"
    return (f"{100 * r['win_rate']:.2f}% [{100 * r['ci_low']:.2f}, {100 * r['ci_high']:.2f}]"
            f" ({r['games']:,})")


def cell(row: dict[str, Any], key: str, fmt: str) -> str:
    value = row.get(key)
    if fmt == "rate":
        return rate_cell(value)
    return "-" if value is None else fmt.format(value)


def markdown(rows: list[dict[str, Any]], title: str) -> str:
    """The rows as a Markdown table under ``title``."""
    head = [c[0] for c in COLUMNS]
    lines = [f"# {title}", "",
             "Win rates with 95% Wilson intervals and games played; the network's by the "
             "compiled evaluator on duplicate deals, the search's from its own label-free "
             "games against `rule`. Iteration `prior` is the starting network.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        lines.append("| " + " | ".join(cell(row, key, fmt) for _, key, fmt in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_reports(out: Path, rows: list[dict[str, Any]], title: str) -> None:
    """``out/report.json`` and ``out/report.md`` from ``rows``."""
    write_atomic(out / "report.json", json.dumps(rows, indent=1) + "\n")
    write_atomic(out / "report.md", markdown(rows, title))
