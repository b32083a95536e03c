# The two set-up commands of the README: `make serve` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Where `make serve` listens: `make serve PORT=8080 HOST=0.0.0.0` (the environment's PORT/HOST are not used).
PORT := 8000
HOST := 127.0.0.1

.PHONY: serve test lint lock
serve: $(VENV)/.installed
	$(BIN)/botyard serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed
	$(BIN)/pytest

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-logo

# Every distribution installed, pip included, is pinned by constraints.txt.
$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -c constraints.txt --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]'
	touch $@

# Rewrites constraints.txt after a change of pyproject.toml's dependencies (how: scripts/lock).
lock:
	PYTHON=$(PYTHON) scripts/lock
