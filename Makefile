# uno-env build scaffolding.  `make test` is what CI runs (via .ci/run).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# torch is pinned exactly because a looser spec lets pip pull a multi-GB CUDA build; it is
# installed first so that the extras find it.  Keep in sync with the `train` extra in pyproject.toml.
TORCH  := torch==2.13.0
# web: FastAPI/uvicorn for `uno-env serve` and Playwright for the browser tests (which run
# against Debian's chromium when it is installed; .ci/run installs it).
EXTRAS := train,tournament,bench,dev,web,ray,openspiel,docs,torchrl
# ray: the tournament tests run a local Ray cluster (tests/test_tournament_ray.py)
# openspiel: OpenSpiel and Shimmy, for tests/test_openspiel.py (uno_env.integrations.openspiel)
# docs: Sphinx, furo and MyST for `make docs` (tests/test_docs_site.py builds the site too)

.PHONY: venv demo test lint fix typecheck bench docs clean

venv: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install '$(TORCH)'
	$(BIN)/python -m pip install -e '.[$(EXTRAS)]'
	@touch $@

demo: venv
	$(BIN)/uno-env demo

lint: venv
	$(BIN)/ruff check .

fix: venv
	$(BIN)/ruff check --fix .

typecheck: venv
	$(BIN)/mypy

# The suite includes tests/test_packaging.py's wheel test (a wheel installed into a fresh
# virtualenv, a few minutes); PYTEST_ADDOPTS='-m "not wheel"' leaves it out.
test: venv
	@command -v chromium >/dev/null 2>&1 || echo "NOTE: no chromium on PATH: the browser tests \
	(tests/test_web_browser.py) are SKIPPED; install it with: apt-get install chromium"
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -rs --durations=25

# The documentation site, offline, warnings as errors, nitpicky references: open
# docs/_build/html/index.html. tests/test_docs_site.py runs the same build in `make test`.
docs: venv
	$(BIN)/python -m sphinx -W -n --keep-going -b html docs docs/_build/html

bench: venv
	$(BIN)/uno-env bench

clean:
	rm -rf $(VENV) build dist docs/_build docs/_autosummary *.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
