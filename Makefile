# Two commands for a newcomer: `make run` (install, migrate, demo, serve) and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install bench e2e clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

install: $(VENV)/.installed

run: install
	$(BIN)/python manage.py migrate --noinput
	HOST=$(HOST) PORT=$(PORT) $(BIN)/python manage.py bootstrap
	$(BIN)/python manage.py seed_demo
	$(BIN)/python manage.py reindex
	$(BIN)/daphne -b $(HOST) -p $(PORT) personalab.asgi:application

test: install
	$(BIN)/python -m pytest

e2e: install
	$(BIN)/python -m pytest tests/e2e

bench: install
	$(BIN)/python bench/recall_locomo.py --data ../shared/bench/locomo \
		--data ../shared/bench/memdaily-zh-dev --data ../shared/bench/realtalk-dev
