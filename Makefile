# Every target does its own set-up: a venv in .venv/ and, for the qmd tests, Node.js 22 plus qmd in tools/.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.installed
DEMO_AT := 2026-11-28T09:30:00Z

.PHONY: venv tools demo test lint typecheck pytest bench clean

venv: $(VENV_STAMP)

$(VENV_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

# Node.js 22 and a pinned qmd, installed into tools/ (see toolchain/).
tools:
	@echo "tools: not yet wired"

demo: venv
	$(VENV)/bin/memwarm --config sample_workspace/openclaw.json5 prelude --at $(DEMO_AT)

lint: venv
	$(VENV)/bin/ruff check memwarm_cli tests bench
	$(VENV)/bin/ruff format --check memwarm_cli tests bench

typecheck: venv
	$(VENV)/bin/mypy

pytest: venv tools
	$(PY) -m pytest

test: lint typecheck pytest

bench: venv tools
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) tools build *.egg-info
