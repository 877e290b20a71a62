"""The docs site: Sphinx builds it with warnings as errors and nitpicky references (as
``make docs`` does), then headless Chromium checks that pages render and that the site's
search works with no network.

CI (``.ci/run``) installs Debian's chromium and sets ``UNO_ENV_REQUIRE_CHROMIUM=1``, so there
a missing browser fails these tests instead of skipping them.
"""

from __future__ import annotations

import functools
import http.server
import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from web_helpers import CHROMIUM, CHROMIUM_ARGS, chromium_or_skip

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site (HTML), from a fresh build."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-q", "-b", "html",
         "docs", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"the docs build failed:\n{proc.stderr[-6000:]}"
    return out


def test_the_site_builds_every_page(site: Path) -> None:
    for page in ("index", "getting-started", "games/classic", "games/flip", "games/flex",
                 "games/express", "environments", "vector-env", "agents", "training",
                 "results", "tournaments", "protocol", "browser", "benchmarks",
                 "architecture", "api", "changelog"):
        assert (site / f"{page}.html").is_file(), page
    assert (site / "searchindex.js").is_file()


def test_the_toctree_glob_lists_pages_not_named_in_it(site: Path) -> None:
    """The changelog is reached only through the toctree's glob entry; its being in the
    navigation shows that a page added later (docs/openspiel.md, ...) is listed too."""
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="changelog.html"' in index
    assert "changelog" not in (ROOT / "docs" / "index.md").read_text().split("```{toctree}")[1]


def test_rule_ids_are_link_targets(site: Path) -> None:
    html = (site / "games" / "flip.html").read_text(encoding="utf-8")
    assert 'id="f-visibility"' in html and "F-visibility" in html


@pytest.fixture(scope="module")
def browser() -> Any:
    if os.environ.get("UNO_ENV_REQUIRE_CHROMIUM") == "1" and not Path(CHROMIUM).exists():
        pytest.fail(f"UNO_ENV_REQUIRE_CHROMIUM=1 but {CHROMIUM} is missing")
    sync_playwright = chromium_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site on a local http.server (127.0.0.1): the search fetches the pages it lists
    to show their summaries, which a browser does not allow from file:// addresses."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _page(browser: Any, errors: list[str], base: str) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    # Refuse every request that leaves the local server: the site must not need one.
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        base) else (errors.append(f"network request: {route.request.url}"), route.abort()))
    return page


def _spread(png: bytes) -> tuple[float, float]:
    """(standard deviation of the grey levels, share of pixels off the page background)."""
    from PIL import Image

    grey = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.float64)
    background = np.median(grey)
    return float(grey.std()), float(np.mean(np.abs(grey - background) > 40))


@pytest.mark.parametrize("page_name", ["index", "games/classic"])
def test_pages_render_in_chromium(served: str, browser: Any, tmp_path: Path,
                                  page_name: str) -> None:
    errors: list[str] = []
    page = _page(browser, errors, served)
    page.goto(f"{served}/{page_name}.html")
    page.wait_for_load_state("load")
    heading = page.locator("h1").first.inner_text()
    assert heading.strip() in ("uno-env", "Classic UNO")
    png = page.screenshot(path=str(tmp_path / "page.png"), full_page=False)
    std, ink = _spread(png)
    assert std > 20 and 0.01 < ink < 0.6, (std, ink)  # text and navigation, not a blank page
    assert not errors, errors
    page.close()


def test_search_works_offline(served: str, browser: Any) -> None:
    errors: list[str] = []
    page = _page(browser, errors, served)
    page.goto(f"{served}/search.html?q=stacking")
    results = page.locator("#search-results ul.search li a")
    results.first.wait_for(timeout=20_000)
    hrefs = [results.nth(i).get_attribute("href") or "" for i in range(results.count())]
    assert any("games/classic.html" in h for h in hrefs), hrefs
    summaries = page.locator("#search-results ul.search li p.context")
    summaries.first.wait_for(timeout=20_000)  # the listed pages were fetched for summaries
    assert not errors, errors
    page.close()
