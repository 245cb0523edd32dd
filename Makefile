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

# What `mlgov plan` imports, byte-compiled in parallel at install: compiling all of site-packages
# (`uv sync --compile-bytecode`, ~6,500 files) took most of a first `make plan`; everything else
# is compiled by Python on first import. tests/test_makefile.py keeps GCP_MODULES equal to the
# pulumi_gcp modules the shipped stacks use.
GCP_MODULES := artifactregistry bigquery billing cloudfunctionsv2 cloudrunv2 cloudscheduler compute \
	container folder logging organizations projects pubsub serviceaccount servicenetworking \
	serviceusage sql storage tpu vertex workbench
# rich: the progress spinner on a terminal (imported while the work runs; compiled, it costs ~0.1 s).
PLAN_PACKAGES := pulumi pulumi_random pydantic yaml google/protobuf grpc rich

.PHONY: install compiled python-check plan plans policy-configs test suite e2e package-check lint fmt typecheck \
	check bench preview clean bqemulator demo docs fresh-clone-check

# mlgov supports Python 3.11 to 3.13 (pyproject.toml's requires-python).
python-check:
	@$(PY_BOOT) -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))' 2>/dev/null \
	|| { echo "mlgov needs Python 3.11, 3.12 or 3.13, but '$(PY_BOOT)' is" \
	     "$$($(PY_BOOT) --version 2>/dev/null || echo 'not found')." \
	     "Run with PY_BOOT=/path/to/python3.X" >&2; exit 1; }

$(UV): | python-check
	$(PY_BOOT) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

# Which interpreter .venv is built from: PY_BOOT's version and real path, kept in PY_STAMP and
# rewritten (at parse time, so `make -n` sees it too) only when it changes. A different
# interpreter (`make plan PY_BOOT=python3.12`) makes the stamp newer than the marker below, so
# .venv is rebuilt with it; the same one under another name (python3 -> python3.11) changes
# nothing. A first stamp in an existing checkout takes the marker's time: no rebuild for it.
# An unsupported or missing PY_BOOT writes no stamp; python-check says why it is refused.
# (The BigQuery emulator's venv, for tests only, keeps the interpreter it was built with.)
PY_STAMP := $(TOOLS)/py-boot
PY_BOOT_ID := $(shell $(PY_BOOT) -c 'import os, sys; print(sys.version.split()[0], os.path.realpath(sys.executable))' 2>/dev/null)
ifneq ($(PY_BOOT_ID),)
$(shell mkdir -p $(TOOLS) && if [ ! -f $(PY_STAMP) ]; then echo '$(PY_BOOT_ID)' > $(PY_STAMP) \
	&& { [ ! -f $(VENV)/.installed ] || touch -r $(VENV)/.installed $(PY_STAMP); }; \
	elif [ "$$(cat $(PY_STAMP))" != '$(PY_BOOT_ID)' ]; then echo '$(PY_BOOT_ID)' > $(PY_STAMP); fi)
endif
$(PY_STAMP): ;

# The marker file makes `install` a no-op until pyproject.toml, uv.lock or the interpreter changes.
$(VENV)/.installed: $(UV) pyproject.toml uv.lock $(PY_STAMP)
	@if [ -f $@ ] && [ $(PY_STAMP) -nt $@ ]; then \
		echo "PY_BOOT is now $(PY_BOOT) (Python $$(cat $(PY_STAMP))): rebuilding .venv with it"; \
		rm -rf $(VENV); \
	else echo "installing .venv from uv.lock"; fi
	@$(UV) sync --frozen --quiet --python $(PY_BOOT)
	@cd "$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
		&& $(CURDIR)/$(PY) -m compileall -q -j 0 $(PLAN_PACKAGES) pulumi_gcp/*.py \
		$(addprefix pulumi_gcp/,$(GCP_MODULES)) >/dev/null
	@# mlgov's own source too: where PYTHONDONTWRITEBYTECODE is set (as on the CI machines),
	@# every plan would otherwise compile governance/ and the rules again (prod plan: 1.34x ->
	@# 1.22x its import floor). Python recompiles in memory whatever changes later.
	@$(PY) -m compileall -q -j 0 governance policies/mlgov_policies >/dev/null
	@touch $@

install: python-check $(VENV)/.installed

# What the tests import beyond `mlgov plan` (the client libraries, functions-framework, hypothesis,
# pytest itself...), byte-compiled once for the test targets: where PYTHONDONTWRITEBYTECODE is
# set (as on the CI machines) every pytest worker and every process a test starts otherwise
# compiles each of them from source on every run. About 15 s of CPU once, in parallel; pulumi_gcp
# stays limited to GCP_MODULES (its 2,400 other modules are never imported). functions/ is
# compiled here too: the tests load it through functions-framework in every worker.
$(VENV)/.compiled: $(VENV)/.installed
	@cd "$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
		&& $(CURDIR)/$(PY) -m compileall -q -j 0 -x 'pulumi_gcp/' . >/dev/null
	@$(PY) -m compileall -q -j 0 functions >/dev/null
	@touch $@

compiled: install $(VENV)/.compiled

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

# The package as a user installs it: build the wheel, install it into a fresh venv, run it.
# Kept out of pytest's default run (it takes ~20 s); `make e2e` runs it.
package-check: install
	$(VENV)/bin/pytest -q -m packaging

# The fast loop: lint, the docs site, then types and every test but the end-to-end runs
# (pytest's default selection, pyproject.toml) side by side: pyright keeps one core busy for
# about 100 s, and beside pytest's two workers it adds about half that to the wall time, not all
# of it (bench/RESULTS.md). Each one's output is printed whole when it ends (--output-sync).
test: install compiled bqemulator lint docs
	@$(MAKE) --no-print-directory -j 2 --output-sync=target typecheck suite

# The tests of `make test`. Two workers: the 2-core machines run the suite in about half the time.
suite: install compiled bqemulator
	$(VENV)/bin/pytest -q -n 2

# The end-to-end runs the fast loop leaves out (marked e2e: the PR check's real workflow steps,
# `make demo` as a process), the wheel in a fresh venv and the README on a fresh clone.
# CI runs `make test e2e` (.ci/run): every test runs there.
e2e: install compiled bqemulator
	$(VENV)/bin/pytest -q -n 2 --dist load -m 'e2e or packaging or freshclone'

# The documentation site (docs/, mkdocs.yml) into site/, in strict mode: a broken link or anchor
# fails the build. Not --quiet: it hides the warnings strict mode counts, and the build passes.
# NO_MKDOCS_2_WARNING quiets Material's banner about MkDocs 2.
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The README's first screen, run literally on a fresh clone of this commit (tests/docs/
# test_fresh_clone.py); kept out of pytest's default run like package-check.
fresh-clone-check: install
	$(VENV)/bin/pytest -q -m freshclone

check: test e2e

# The offline demo: spend, jobs and the budget cap against a local BigQuery and a fake Google
# Cloud (governance/demo/, docs/demo.md). The fake cloud and the export rows are
# governance/fakecloud/; the demo runs from the checkout (its stacks, functions and .bqemu-venv).
demo: install bqemulator
	$(PY) -m governance.demo

# Benchmarks are not tests: run them on a quiet machine and record results in bench/RESULTS.md.
bench: install bqemulator
	$(PY) bench/plan_bench.py
	$(PY) bench/check_bench.py
	$(PY) bench/cost_bench.py
	$(PY) bench/functions_cold_start.py
	$(PY) bench/functions_reap_idle.py
	$(PY) bench/jobs_cli.py
	$(PY) bench/spend_bench.py
	$(PY) bench/org_profile.py
	$(PY) bench/org_sim.py

preview: install
	pulumi preview -s $(STACK) --policy-pack policies --policy-pack-config policies/config.$(STACK).json

# ---- BigQuery emulator for `spend` (tests/spend, bench/spend_bench.py) ----------------------------
# Its own venv: bqemulator needs protobuf 6, pulumi-policy pins protobuf 5. Built once (marker file).
BQEMU_VENV := .bqemu-venv
$(BQEMU_VENV)/.installed: $(UV) governance/fakecloud/bqemulator.txt
	rm -rf $(BQEMU_VENV)
	$(UV) venv --quiet --python $(PY_BOOT) $(BQEMU_VENV)
	VIRTUAL_ENV=$(BQEMU_VENV) $(UV) pip install --quiet -r governance/fakecloud/bqemulator.txt
	touch $@

bqemulator: $(BQEMU_VENV)/.installed
# ---------------------------------------------------------------------------------------------------

clean:
	rm -rf $(VENV) $(TOOLS) $(BQEMU_VENV)
