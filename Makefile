# The two set-up commands of the README: `make serve` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Where `make serve` listens: `make serve PORT=8080 HOST=0.0.0.0` (the environment's PORT/HOST are not used).
PORT := 8000
HOST := 127.0.0.1

.PHONY: serve test lint
serve: $(VENV)/.installed
	$(BIN)/botyard serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed
	$(BIN)/pytest

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-logo

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@
