# Two commands on a fresh machine: `make html` (set up, build the site) and `make test`
# (set up, run every test). Both bootstrap a local virtual environment in .venv.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SPHINXOPTS ?= -nW --keep-going
BUILDDIR ?= _build
# The Nu HTML checker (npm `vnu-jar`, run with the system's Java), cached outside the repository.
VNU_VERSION ?= 26.9.27
VNU_DIR ?= $(HOME)/.cache/kb-vnu
VNU_JAR := $(VNU_DIR)/node_modules/vnu-jar/build/dist/vnu.jar
# axe-core for the browser tests' accessibility checks, from npm beside the checker: 4.14 checks
# a page in 60% of the time of the 4.12 that axe-playwright-python bundles.
AXE_VERSION ?= 4.14.1
AXE_JS := $(VNU_DIR)/node_modules/axe-core/axe.min.js

# The suite runs in parallel, one pytest-xdist worker per core; a test file's tests stay in one
# worker, so a root a module builds once is built once. Coverage of src/kb is measured (in the
# pytest processes) and the run fails under COVERAGE_MIN percent.
PYTEST_PARALLEL ?= -n auto --dist loadfile
# A run of part of the suite (PYTEST_ARGS) cannot reach the bound: it is checked on whole runs.
COVERAGE_MIN ?= $(if $(PYTEST_ARGS),0,90)

.PHONY: html test test-fast test-oldest test-latest serve lint clean browser vnu bench bench-search

html: $(VENV)/.site-installed
	$(BIN)/sphinx-build $(SPHINXOPTS) -b html -d $(BUILDDIR)/doctrees . $(BUILDDIR)/html

# Two runs: the browser tier on its own, because Playwright's sync API keeps an event loop
# running in its process, where tests that serve with asyncio (kb serve) could not run after it.
# Coverage is measured in the first run, by slipcover: it instruments src/kb's code and removes
# each probe once its line ran, so a build under it takes 1.2 times as long, where coverage.py's
# tracer (Python 3.11 has no cheaper one) took 1.9 to 2.4 times. Every tier of that run is
# measured, in the pytest processes (not the builds and commands tests start as subprocesses);
# the second step prints the modules not wholly covered and fails under COVERAGE_MIN percent.
# Both runs share one folder (KB_TEST_RUN_DIR), where the real site is built once.
TEST_RUN_DIR := $(BUILDDIR)/test-run
COVERAGE_JSON := $(BUILDDIR)/coverage.json
test: $(VENV)/.test-installed browser vnu lint
	rm -rf $(TEST_RUN_DIR) $(COVERAGE_JSON)
	KB_TEST_RUN_DIR=$(abspath $(TEST_RUN_DIR)) KB_VNU_JAR=$(VNU_JAR) KB_AXE_JS=$(AXE_JS) $(BIN)/python -m slipcover \
	  --source src/kb --json --out $(COVERAGE_JSON) -m pytest $(PYTEST_PARALLEL) \
	  -m "not browser" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(BIN)/python -m slipcover --merge $(COVERAGE_JSON) --out $(COVERAGE_JSON) --skip-covered \
	  --fail-under $(COVERAGE_MIN)
	KB_TEST_RUN_DIR=$(abspath $(TEST_RUN_DIR)) KB_VNU_JAR=$(VNU_JAR) KB_AXE_JS=$(AXE_JS) \
	  $(BIN)/python -m pytest $(PYTEST_PARALLEL) -m browser $(PYTEST_ARGS) || [ $$? -eq 5 ]

# The builds' and the tests' Python processes keep compiled bytecode, under _build/pycache: where
# the environment says PYTHONDONTWRITEBYTECODE=1, each pytest worker would otherwise rewrite every
# test module's asserts again, and each build or `kb` command would compile Sphinx, its extensions
# and kb from source again (1.4 s of a 3 s edit of 1000 posts).
html docs serve test test-fast: export PYTHONDONTWRITEBYTECODE :=
html docs serve test test-fast: export PYTHONPYCACHEPREFIX := $(abspath $(BUILDDIR))/pycache

# While you work: the tiers that need neither the real site nor a browser, and no test that
# builds many times (`-m "unit or build"`); no coverage bound, as most of the code is not run.
test-fast: $(VENV)/.test-installed
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "unit or build" $(PYTEST_ARGS)

# The dependency matrix: the whole suite against the oldest versions pyproject.toml allows
# (each lower bound pinned) and against the newest, each in a virtual environment of its own.
# CI runs `make test`; run these before raising or widening a bound.
test-oldest test-latest: test-%: browser vnu
	rm -rf .venv-$*
	$(PYTHON) -m venv .venv-$*
	.venv-$*/bin/python -m pip install -q --upgrade pip
	$(PYTHON) .ci/constraints.py $* > .venv-$*/constraints.txt
	.venv-$*/bin/python -m pip install -q -c .venv-$*/constraints.txt -e '.[test]'
	KB_VNU_JAR=$(VNU_JAR) KB_AXE_JS=$(AXE_JS) .venv-$*/bin/python -m pytest -p no:cacheprovider $(PYTEST_ARGS)

# The guides (docs/: the author's and maintainer's guides and the generated reference), a
# Sphinx project of their own, warnings as errors. `make test` builds them too, in the suite
# (tests/test_docs.py, with these options), beside the other tests instead of before them.
.PHONY: docs
docs: $(VENV)/.site-installed
	$(BIN)/sphinx-build $(SPHINXOPTS) -q -b html -d $(BUILDDIR)/docs-doctrees docs $(BUILDDIR)/docs

serve: $(VENV)/.site-installed
	$(BIN)/kb serve

lint: $(VENV)/.test-installed
	$(BIN)/ruff check src tests benchmarks conf.py
	$(BIN)/ruff format --check src tests benchmarks conf.py
	$(BIN)/mypy

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

# The HTML validity test runs the Nu checker: Java from Debian, the jar from npm (its own
# Java download is skipped with --ignore-scripts); axe-core for the browser tier comes from npm
# into the same folder. Installed when missing.
vnu:
	@command -v java >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq default-jre-headless; \
	  else echo "The HTML check needs Java: sudo apt-get install -y default-jre-headless"; fi; }
	@test -f $(VNU_JAR) && grep -qs '"version": "$(AXE_VERSION)"' \
	  $(VNU_DIR)/node_modules/axe-core/package.json || npm install --silent --prefix $(VNU_DIR) \
	  --ignore-scripts --no-audit --no-fund vnu-jar@$(VNU_VERSION) axe-core@$(AXE_VERSION)

# The packages are installed by uv (from PyPI, into the venv, as pip would): the site's and the
# tests' dependencies install in 10 s instead of pip's 42 s, both from a warm cache. (A .venv
# made before uv was used gets it the first time.)
UV := { $(BIN)/python -m uv --version >/dev/null 2>&1 || $(BIN)/python -m pip install -q uv; } \
  && $(BIN)/python -m uv pip install -q --python $(BIN)/python
$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.site-installed: pyproject.toml | $(VENV)/bin/python
	$(UV) -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(VENV)/bin/python
	$(UV) -e '.[test]'
	touch $@ $(VENV)/.site-installed

clean:
	rm -rf $(BUILDDIR)
