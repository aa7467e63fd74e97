# Two commands on a fresh machine: `make html` (set up, build the site) and `make test`
# (set up, run every test). Both bootstrap a local virtual environment in .venv.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SPHINXOPTS ?= -nW --keep-going
BUILDDIR ?= _build

.PHONY: html test serve lint clean browser bench bench-search

html: $(VENV)/.site-installed
	$(BIN)/sphinx-build $(SPHINXOPTS) -b html . $(BUILDDIR)/html

test: $(VENV)/.test-installed browser
	$(BIN)/python -m pytest $(PYTEST_ARGS)

serve: $(VENV)/.site-installed
	$(BIN)/kb serve

lint: $(VENV)/.test-installed
	$(BIN)/ruff check src tests benchmarks conf.py
	$(BIN)/ruff format --check src tests benchmarks conf.py

bench: $(VENV)/.site-installed
	$(BIN)/python benchmarks/build_speed.py $(BENCH_ARGS)

# Bytes and time to first results of one query, Pagefind vs Sphinx's search, in Chromium.
bench-search: $(VENV)/.test-installed browser
	$(BIN)/python benchmarks/search_speed.py $(BENCH_ARGS)

# Debian's Chromium drives the browser tests (Playwright's own browser download does not
# work offline). Installed when missing and we are root; otherwise say what to run.
browser:
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium; \
	  else echo "Browser tests need Debian's Chromium: sudo apt-get install -y chromium"; fi; }

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.site-installed: pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.site-installed

clean:
	rm -rf $(BUILDDIR)
