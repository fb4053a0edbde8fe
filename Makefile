# cerebri: `make run` plans the shipped example, then puts a meeting on a calendar (found,
# proposed, approved by a second principal, written once, read back); `make test` runs lint
# (with the import contracts), types, the strict docs build and tests; `make docs` builds the
# user guide into site/.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test lint typecheck docs unit bench clean browser-deps postgres-deps node-deps \
	mcp-inspector-deps caldav-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.run-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.test-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@ $(VENV)/.run-deps $(VENV)/.docs-deps

$(VENV)/.docs-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[docs]'
	touch $@ $(VENV)/.run-deps

run: $(VENV)/.run-deps
	$(BIN)/cerebri plan --table examples/design-review.json
	CEREBRI=$(abspath $(BIN))/cerebri PYTHON=$(abspath $(BIN))/python bash examples/put-on-calendar.sh

# lint-imports checks the import contracts in pyproject.toml (docs/architecture.md).
lint: $(VENV)/.test-deps
	$(BIN)/ruff check src tests bench docs/hooks
	$(BIN)/ruff format --check src tests bench docs/hooks
	$(BIN)/lint-imports

typecheck: $(VENV)/.test-deps
	$(BIN)/mypy

# The user guide (mkdocs.yml, docs/) into site/; strict, so a broken link or anchor fails.
# Offline: no plugin reads the network (docs/hooks/cerebri_docs.py generates the references).
docs: $(VENV)/.docs-deps
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The Lab browser test drives Debian's chromium through Playwright (no Playwright browser download).
browser-deps:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

# The execution-store tests start a throwaway PostgreSQL from Debian's binaries (as root, as the
# postgres system user), unless CEREBRI_TEST_POSTGRES_URL names a server to use instead.
postgres-deps:
	ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || \
		(apt-get update -qq && apt-get install -y -qq postgresql)

# The cross-server CalDAV tests (tests/_dav_servers.py) start Cyrus IMAP's CalDAV server from
# Debian's packages (as root; it runs as the cyrus system user) beside Radicale and Xandikos
# (PyPI, the test extra). Services the packages would start are not needed: the tests start
# their own, on free loopback ports (docs/decisions/0054).
caldav-deps:
	test -x /usr/lib/cyrus/bin/httpd && test -x /usr/lib/cyrus/bin/imapd && \
		command -v saslpasswd2 >/dev/null || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			cyrus-imapd cyrus-caldav sasl2-bin)

# tests/bindings/test_node.py runs bindings/node's node:test suites (Node 18 or later on PATH;
# Debian's nodejs package when there is none).
node-deps:
	command -v node >/dev/null || (apt-get update -qq && apt-get install -y -qq nodejs)

# tests/mcp_server/test_mcp_inspector.py drives the official MCP Inspector's CLI (npm, pinned
# in tests/mcp_server/mcp_inspector.py), installed once into $(VENV)/mcp-inspector-<version>.
mcp-inspector-deps: $(VENV)/.test-deps node-deps
	command -v npm >/dev/null || (apt-get update -qq && apt-get install -y -qq npm)
	$(BIN)/python -m tests.mcp_server.mcp_inspector

unit: $(VENV)/.test-deps browser-deps postgres-deps node-deps mcp-inspector-deps caldav-deps
	$(BIN)/python -m pytest -n auto

test: lint typecheck docs unit

bench: $(VENV)/.test-deps
	$(BIN)/python bench/plan_scaling.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis site .import_linter_cache \
		.grimp_cache
