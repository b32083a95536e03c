"""The benchmark scripts still start: they import the service's modules, which move (nothing else runs them in CI,
and a renamed import would only show when someone measures)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.paths import REPO

BENCH = REPO / "bench"


SCRIPTS = [
    "chat.py",
    "abuse.py",
    "ingest.py",
    "retrieval.py",
    "fusion_lab.py",
    "embed.py",
    "crawl.py",
    "answers.py",
    "routing.py",
    "large_documents.py",
    "analytics.py",
    "_bare_stream.py",
    "channels.py",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_benchmark_starts(script: str) -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "usage:" in result.stdout


def test_the_chat_benchmark_refuses_the_postgres_search_without_postgres() -> None:
    """`bench/chat.py --search postgres` runs on PostgreSQL only: on SQLite it says so before measuring anything."""
    result = subprocess.run(
        [sys.executable, str(BENCH / "chat.py"), "--search", "postgres", "--chunks", "10"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert "--search postgres (or both) needs --backend postgres" in result.stderr
