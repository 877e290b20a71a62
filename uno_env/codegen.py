"""Write the generated blocks of the engines' sources from the state table.

``python -m uno_env.codegen`` rewrites, between ``# <generated NAME>`` and
``# </generated NAME>`` lines, the code that :mod:`uno_env.rules.table` (the state's fields)
and ``uno_env.batch.tables`` (the rows of ``Tables.ft``, the ``Tables`` members) declare;
``--check`` lists the stale blocks and exits 1 (``tests/test_state_table.py`` runs it).
Why checked-in code rather than objects built at import: numba freezes module-level
integers and calls compiled with ``cache=True`` must live in a source file (see
``uno_env/rules/table.py``).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from uno_env.batch import tables as T
from uno_env.rules.table import ARRAYS, S_FIELDS, TABLE, Field

ROOT = Path(__file__).resolve().parent
_SHAPES = {"game": "(b,)", "seat": "(b, n)", "card": "(b, nc)", "face": "(b, nf)",
           "seat_face": "(b, n, nf)", "seat_hidden": "(b, n, nf if t.sides else 0)",
           "round": "(b, r)", "round_seat": "(b, r, n)", "action": "(b, na8)"}
_DIMS = {"game": "[B]", "seat": "[B, N]", "card": "[B, C]", "face": "[B, F]",
         "seat_face": "[B, N, F]", "seat_hidden": "[B, N, F or 0]", "round": "[B, R]",
         "round_seat": "[B, R, N]", "action": "[B, A8]"}


def _comment(doc: str) -> str:
    return f"  # {doc}" if doc else ""


def _groups(keep: Callable[[Field], bool]) -> list[tuple[str, list[Field]]]:
    """The table's groups, each with its fields that ``keep`` selects (empty groups out)."""
    out: list[tuple[str, list[Field]]] = []
    for row in TABLE:
        if isinstance(row, str):
            out.append((row, []))
        elif keep(row):
            out[-1][1].append(row)
    return [(title, rows) for title, rows in out if rows]


def state_slots() -> list[str]:
    """``StateFields``'s typed attributes (rules/fields.py)."""
    lines = []
    for title, rows in _groups(lambda f: f.py is not None):
        lines.append(f"# --- {title} ---")
        lines += [f"{f.name}: {f.py}{_comment(f.doc)}" for f in rows]
    return lines


def layout_columns() -> list[str]:
    """The column constants of ``S`` (batch/layout.py)."""
    lines = [f"{f.col} = {k}{_comment(f.doc)}" for k, f in enumerate(S_FIELDS)]
    return [*lines, f"NFIELDS = {len(S_FIELDS)}"]


def layout_batch() -> list[str]:
    """The ``Batch`` named tuple and ``allocate`` (batch/layout.py)."""
    lines = ["class Batch(NamedTuple):",
             "    S: np.ndarray  # [B, NFIELDS] int64: the game scalars (the columns above)"]
    for f in ARRAYS:
        doc = f"{_DIMS[f.scope]} {f.dtype}" + (f": {f.doc}" if f.doc else "")
        lines.append(f"    {f.batch}: np.ndarray  # {doc}")
    lines += ["", "", "def allocate(t: Tables, b: int) -> Batch:",
              '    """Fresh arrays for ``b`` games, each field at its declared default."""',
              "    n, nc, nf, r = t.n, t.nc, t.nf, t.rounds_kept",
              "    na8 = (t.na + 7) // 8 * 8  # whole words: batch.sample",
              "    return Batch(",
              "        S=np.zeros((b, NFIELDS), np.int64),"]
    assert all(f.default == 0 for f in S_FIELDS), "S starts at zero"
    for f in ARRAYS:
        fill = {0: "np.zeros({}, np.{})", 1: "np.ones({}, np.{})"}.get(
            f.default, f"np.full({{}}, {f.default}, np.{{}})")
        lines.append(f"        {f.batch}={fill.format(_SHAPES[f.scope], f.dtype)},")
    return [*lines, "    )"]


def borrow_functions() -> list[str]:
    """``borrow_batch`` and ``borrow_tables`` (batch/borrow.py): every array borrowed."""
    lines = ['@njit(cache=True, error_model="numpy")', "def borrow_batch(s: Batch) -> Batch:",
             "    return Batch(", "        borrow(s.S),"]
    lines += [f"        borrow(s.{f.batch})," for f in ARRAYS]
    lines += ["    )", "", "", '@njit(cache=True, error_model="numpy")',
              "def borrow_tables(t: Tables) -> Tables:", "    return Tables("]
    hints = T.Tables.__annotations__
    for name in T.Tables._fields:
        lines.append(f"        borrow(t.{name})," if "ndarray" in str(hints[name])
                     else f"        t.{name},")
    return [*lines, "    )"]


def ft_rows() -> list[str]:
    """The row constants of ``Tables.ft`` (batch/tables.py), from ``FT_ROWS``."""
    return [f"FT_{name.upper()} = {k}" for k, name in enumerate(T.FT_ROWS)]


BLOCKS: dict[str, tuple[str, Callable[[], list[str]]]] = {
    "state-slots": ("rules/fields.py", state_slots),
    "layout-columns": ("batch/layout.py", layout_columns),
    "layout-batch": ("batch/layout.py", layout_batch),
    "borrow": ("batch/borrow.py", borrow_functions),
    "ft-rows": ("batch/tables.py", ft_rows),
}


def render(text: str, name: str, lines: list[str]) -> str:
    """``text`` with the block ``name`` replaced by ``lines`` (at the markers' indent)."""
    pat = re.compile(rf"^( *)# <generated {name}>.*?\n(.*?)^ *# </generated {name}>\n",
                     re.M | re.S)
    m = pat.search(text)
    if m is None:
        raise ValueError(f"no '# <generated {name}>' ... '# </generated {name}>' block")
    pad = m.group(1)
    body = "".join(f"{pad}{line}\n" if line else "\n" for line in lines)
    for line in body.splitlines():
        if len(line) > 100:
            raise ValueError(f"generated line over 100 characters: {line!r}")
    head = f"{pad}# <generated {name}>: python -m uno_env.codegen (uno_env/rules/table.py)\n"
    return text[:m.start()] + head + body + f"{pad}# </generated {name}>\n" + text[m.end():]


def stale() -> dict[Path, str]:
    """The files whose generated blocks differ from the table: path -> the current text."""
    out: dict[Path, str] = {}
    for name, (rel, make) in BLOCKS.items():
        path = ROOT / rel
        text = out.get(path, path.read_text(encoding="utf-8"))
        out[path] = render(text, name, make())
    return {p: t for p, t in out.items() if t != p.read_text(encoding="utf-8")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m uno_env.codegen", description=__doc__)
    ap.add_argument("--check", action="store_true", help="list stale files; exit 1 if any")
    args = ap.parse_args(argv)
    todo = stale()
    for path, text in todo.items():
        print(("stale: " if args.check else "wrote ") + str(path.relative_to(ROOT.parent)))
        if not args.check:
            path.write_text(text, encoding="utf-8")
    return 1 if args.check and todo else 0


if __name__ == "__main__":
    sys.exit(main())
