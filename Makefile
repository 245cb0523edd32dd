# mlgov developer entry points. `make plan` and `make test` are the README's two commands:
# each one installs everything it needs first, so they work on a fresh clone.
SHELL := /bin/bash
PY_BOOT ?= python3
UV_VERSION := 0.13.8
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
PY := $(VENV)/bin/python
STACK ?= dev
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)


.PHONY: install plan plans policy-configs test lint fmt typecheck check bench preview clean bqemulator

$(UV):
	$(PY_BOOT) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

# The marker file makes `install` a no-op until pyproject.toml or uv.lock changes.
$(VENV)/.installed: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --compile-bytecode --python $(PY_BOOT)
	touch $@

install: $(VENV)/.installed

plan: install
	$(PY) -m governance plan --stack $(STACK)

plans: install
	for s in dev staging prod; do $(PY) -m governance plan --stack $$s || exit $$?; done

# The CrossGuard pack's per-policy config, generated from each stack's settings.
policy-configs: install
	for s in dev staging prod; do $(PY) -m governance policy-config --stack $$s > policies/config.$$s.json || exit $$?; done

lint: install
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

fmt: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

typecheck: install
	$(VENV)/bin/pyright

test: install bqemulator lint typecheck
	$(VENV)/bin/pytest -q

check: test

# Benchmarks are not tests: run them on a quiet machine and record results in bench/RESULTS.md.
bench: install bqemulator
	$(PY) bench/plan_bench.py
	$(PY) bench/check_bench.py
	$(PY) bench/cost_bench.py
	$(PY) bench/functions_cold_start.py
	$(PY) bench/functions_reap_idle.py
	$(PY) bench/jobs_cli.py
	$(PY) bench/spend_bench.py

preview: install
	pulumi preview -s $(STACK) --policy-pack policies --policy-pack-config policies/config.$(STACK).json

# ---- BigQuery emulator for `spend` (tests/spend, bench/spend_bench.py) ----------------------------
# Its own venv: bqemulator needs protobuf 6, pulumi-policy pins protobuf 5. Built once (marker file).
BQEMU_VENV := .bqemu-venv
$(BQEMU_VENV)/.installed: $(UV) tests/spend/bqemulator.txt
	rm -rf $(BQEMU_VENV)
	$(UV) venv --quiet --python $(PY_BOOT) $(BQEMU_VENV)
	VIRTUAL_ENV=$(BQEMU_VENV) $(UV) pip install --quiet -r tests/spend/bqemulator.txt
	touch $@

bqemulator: $(BQEMU_VENV)/.installed
# ---------------------------------------------------------------------------------------------------

clean:
	rm -rf $(VENV) $(TOOLS) $(BQEMU_VENV)
