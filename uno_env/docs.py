"""Markdown tables for the documentation pages, generated from the code so that they cannot
drift.

A page holds a generated table between ``<!-- table:NAME -->`` and ``<!-- /table -->``.
``python -m uno_env.docs`` prints every table, ``python -m uno_env.docs --sync`` rewrites the
blocks of README.md and every page under docs/, and ``tests/test_readme.py`` checks that the
pages hold exactly what this module generates.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from uno_env.observation import ObservationLayout
from uno_env.rules.game import Game
from uno_env.variants import find_variant, list_variants


def options_table(variant: str | None = None) -> str:
    """The rule options of every variant (or of ``variant``) with defaults and allowed
    values."""
    rows = ["| variant | env name | players | option | default | allowed | rule |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in list_variants() if variant is None else [variant]:
        v = find_variant(name)
        lo, hi = v.min_players, v.max_players
        for key, opt in v.options.items():
            allowed = ("integer >= 1" if opt.allowed is None
                       else ", ".join(f"`{a!r}`" for a in opt.allowed))
            rows.append(f"| {name} | `{v.env_name}` | {lo}-{hi} | `{key}` | `{opt.default!r}` "
                        f"| {allowed} | {opt.help} |")
    return "\n".join(rows)


def observation_table(variant: str = "classic", num_players: int = 2) -> str:
    """The observation pieces of one configuration, with their offsets."""
    layout = ObservationLayout(Game(variant, num_players))
    rows = [f"| piece | start | size | what ({variant}, {num_players} players: "
            f"{layout.size} floats) |", "| --- | --- | --- | --- |"]
    for p in layout.pieces:
        rows.append(f"| `{p.name}` | {p.start} | {p.size} | {p.doc} |")
    return "\n".join(rows)


def action_table(variant: str = "classic", num_players: int = 2, **options: object) -> str:
    """Runs of the action space of one configuration, grouped by meaning."""
    game = Game(variant, num_players, **options)
    meanings = game.actions.meanings
    rows = [f"| indices | meanings ({variant}, {num_players} players, "
            f"{', '.join(f'{k}={v!r}' for k, v in options.items()) or 'default options'}: "
            f"Discrete({len(meanings)})) |", "| --- | --- |"]
    start = 0
    while start < len(meanings):
        head = meanings[start].split(" ")[0]
        if meanings[start].endswith(" flex"):
            head = "play ... flex"
        end = start
        while end + 1 < len(meanings):
            nxt = meanings[end + 1]
            nhead = "play ... flex" if nxt.endswith(" flex") else nxt.split(" ")[0]
            if nhead != head or head not in ("play", "play-two", "color", "target",
                                             "play ... flex"):
                break
            end += 1
        span = f"{start}" if start == end else f"{start}-{end}"
        text = (f"`{meanings[start]}`" if start == end
                else f"`{meanings[start]}` ... `{meanings[end]}`")
        rows.append(f"| {span} | {text} |")
        start = end + 1
    return "\n".join(rows)


def deck_table(variant: str) -> str:
    """Every card name of a variant with its number of copies."""
    v = find_variant(variant)
    counts = Counter(v.card_names)
    names = ", ".join(f"`{n}`" + (f" ×{k}" if k > 1 else "") for n, k in counts.items())
    return f"{variant} ({len(v.card_names)} cards): {names}"


def all_tables() -> dict[str, str]:
    """Every generated table by the name a page's block gives it."""
    tables = {"options": options_table(), "observation": observation_table(),
              "observation-flip": observation_table("flip", 2),
              "observation-flex": observation_table("flex", 2),
              "actions": action_table(),
              "actions-all-options": action_table("classic", 3, stacking=True, double_play=True,
                                                  jump_in=True, uno_catch="decision"),
              "actions-flex": action_table("flex", 4),
              "actions-flip": action_table("flip", 2)}
    for name in list_variants():
        tables[f"deck-{name}"] = deck_table(name)
        tables[f"options-{name}"] = options_table(name)
    return tables


BLOCK = re.compile(r"(<!-- table:([\w-]+) -->\n)(.*?)(\n?<!-- /table -->)", re.S)


def sync_page(path: str | Path, check: bool = False) -> list[str]:
    """Rewrite a page's generated blocks (``<!-- table:NAME -->`` ... ``<!-- /table -->``)
    from the code; with ``check``, only list the blocks that are out of date."""
    tables = all_tables()
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    stale: list[str] = []

    def fill(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in tables:
            raise KeyError(f"{path} names an unknown table {name!r}; known: {sorted(tables)}")
        if m.group(3) != tables[name]:
            stale.append(name)
        return m.group(1) + tables[name] + "\n<!-- /table -->"

    new = BLOCK.sub(fill, text)
    if not check and new != text:
        path.write_text(new, encoding="utf-8")
    return stale


def sync_readme(path: str = "README.md", check: bool = False) -> list[str]:
    """:func:`sync_page` of one file (kept under its old name)."""
    return sync_page(path, check)


def doc_pages(root: str | Path = ".") -> list[Path]:
    """README.md and every Markdown page of the docs site, under the checkout ``root``."""
    root = Path(root)
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    return [p for p in pages if p.is_file() and "_build" not in p.parts]


def sync_docs(root: str | Path = ".", check: bool = False) -> dict[str, list[str]]:
    """:func:`sync_page` over :func:`doc_pages`: the stale blocks by page (only pages with
    some)."""
    found = {str(p): sync_page(p, check) for p in doc_pages(root)}
    return {page: stale for page, stale in found.items() if stale}


def main() -> None:
    import sys

    if sys.argv[1:] == ["--sync"]:
        stale = sync_docs()
        print("updated:", "; ".join(f"{p}: {', '.join(t)}" for p, t in stale.items())
              or "nothing")
        return
    for name, text in all_tables().items():
        print(f"<!-- table:{name} -->\n{text}\n<!-- /table -->\n")


if __name__ == "__main__":
    main()
