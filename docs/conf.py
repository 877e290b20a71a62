"""Sphinx configuration of the uno-env documentation site (``make docs``).

Built offline (no intersphinx: the build must not reach a network) with warnings as errors
and nitpicky references (``sphinx-build -W -n --keep-going``; ``tests/test_docs_site.py``
runs the same build). Pages are MyST Markdown; the API reference is autodoc over the
public modules.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout's uno_env (and its links agents/, training/, ...)

import uno_env  # noqa: E402

project = "uno-env"
author = "the uno-env developers"
copyright = "2026, the uno-env developers"
release = version = uno_env.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "results/*.md", "**/.ipynb_checkpoints"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# Pages written on other branches may jump heading levels; that is style, not a broken link.
suppress_warnings = ["myst.header"]

html_theme = "furo"
html_title = f"uno-env {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

# --- API reference --------------------------------------------------------------------
autosummary_generate = True
# Each name is documented where it is defined (not again where a package re-exports it).
autodoc_default_options = {"members": True, "undoc-members": True, "ignore-module-all": True}
# The signatures' types would be cross-references to numpy, torch, ... which cannot resolve
# offline; the code carries them (mypy-checked).
autodoc_typehints = "none"
autodoc_typehints_format = "short"
autodoc_member_order = "bysource"
autoclass_content = "class"
# Gymnasium's and PettingZoo's docstrings (inherited by the env classes) are theirs to render.
autodoc_inherit_docstrings = False
napoleon_google_docstring = False
napoleon_numpy_docstring = False

# Offline build: references to third-party types cannot resolve (no intersphinx); the
# project's own names must.
nitpick_ignore_regex = [
    ("py:.*", r"(numpy|np|npt|torch|gymnasium|pettingzoo|numba|collections|typing|abc"
              r"|ray|tianshou|stable_baselines3|sb3_contrib|fastapi|starlette|pathlib"
              r"|types|json|io|subprocess|concurrent|multiprocessing|argparse|random"
              r"|dataclasses|enum|os|threading|queue|matplotlib|openskill|pyspiel|open_spiel|shimmy)"
              r"(\..*)?"),
    # a quoted annotation autodoc shows as written (dataclass fields under
    # `from __future__ import annotations`)
    ("py:class", r"'.*"),
    # module constants without a docstring of their own (autodoc leaves them out)
    ("py:data", r"ASSETS"),
    # the batch state's arrays (a NamedTuple generated from the state table, docs page
    # "Architecture"): the kernels' private type, named in the Determinizer's signatures
    ("py:class", r"uno_env\.batch\.layout\.Batch"),
]


def _resolve_short_name(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Resolve a docstring's short Python reference (``:class:`State```, ``uno_env.Game``,
    ``ObservationLayout.decode``) to the one documented object whose dotted name ends with
    it, trying ever shorter tails; None (the nitpicky warning stands) when none or several
    match."""
    if node.get("refdomain") != "py":
        return None
    from sphinx.util.nodes import make_refnode

    domain = env.get_domain("py")
    objects = domain.modules if node.get("reftype") == "mod" else domain.objects
    parts = node["reftarget"].lstrip("~.").split(".")
    for k in range(len(parts)):
        tail = ".".join(parts[k:])
        found = [name for name in objects if name == tail or name.endswith("." + tail)]
        if len(found) == 1:
            entry = objects[found[0]]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, found[0])
        if found:
            return None
    return None


def setup(app: Any) -> None:
    app.connect("missing-reference", _resolve_short_name)
