"""The command line as a real process, against a test's settings (its database and data directory)."""

from __future__ import annotations

import os
import subprocess
import sys

from botyard.config import Settings
from tests.support.waiting import START


def cli_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOTYARD_")}
    env["BOTYARD_DATA_DIR"] = str(settings.data_dir)
    if settings.database_url:
        env["BOTYARD_DATABASE_URL"] = settings.database_url
    return env


def botyard(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "botyard", *args], env=cli_env(settings), capture_output=True, text=True, timeout=START
    )
