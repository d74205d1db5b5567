# Quick start: `make demo` runs a tournament of bots on this machine; `make test` lints and
# runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup protos bytecode demo test lint system clean

setup: $(STAMP) protos bytecode

# The project's own bytecode, written once here. The install is editable and this machine sets
# PYTHONDONTWRITEBYTECODE=1, so without it every table actor's process compiled the engine,
# the bots and the deck client from source at its start: about 1.5 MB of unique memory per
# table left in its heap, and CPU at every start (docs/BENCHMARKS.md, "Table memory, session
# 9"). A module edited since is compiled from source again until this runs again (before a
# measurement: `make bytecode`). A wheel install (the Dockerfile's) writes bytecode itself.
bytecode: protos
	$(PY) -m compileall -q orchestrator table_worker rng_service loadtest

# gRPC/protobuf stubs are generated from proto/ (never committed); the script skips up-to-date ones.
protos: $(STAMP)
	$(PY) scripts/gen_protos.py

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

demo: setup
	$(VENV)/bin/mtt run examples/freezeout-1000.toml --out out/demo --force

# Servers the tests start themselves (redis-server), the headless browser the UI tests drive
# (chromium, chromium-driver), Prometheus (with promtool), which checks the alert rules and
# scrapes a real run (tests/test_deploy.py, tests/test_metrics_run.py), openssl (the front
# door's TLS test makes a certificate) and tmux (the terminal tests/test_client_tmux.py types
# into) come from the OS packages.
system:
	@command -v redis-server >/dev/null || (apt-get update -qq && apt-get install -y -qq redis-server)
	@(command -v chromium && command -v chromedriver) >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq chromium chromium-driver)
	@(command -v prometheus && command -v promtool) >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus)
	@command -v openssl >/dev/null || (apt-get update -qq && apt-get install -y -qq openssl)
	@command -v tmux >/dev/null || (apt-get update -qq && apt-get install -y -qq tmux)

test: lint system
	$(PY) -m pytest -n 2 --dist loadgroup

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
