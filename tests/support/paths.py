"""Where the repository's parts are, for tests that read its files (the docs, the Makefile, the front end's
scripts): one place, so a test module's own depth in `tests/<package>/` never matters."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
SOURCE = REPO / "src" / "botyard"
