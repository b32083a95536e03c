"""`make serve` passes PORT and HOST to `botyard serve`, and keeps the defaults without them; the venv is installed from
constraints.txt (dry runs, `make -n`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import REPO

ROOT = REPO


def _serve_line(*variables: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "serve", *variables],  # noqa: S607 (make from PATH, as the README runs it)
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    return next(line for line in result.stdout.splitlines() if "botyard serve" in line)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_serve_passes_port_and_host() -> None:
    assert _serve_line("PORT=9001", "HOST=0.0.0.0").endswith("botyard serve --host 0.0.0.0 --port 9001")
    assert _serve_line().endswith("botyard serve --host 127.0.0.1 --port 8000")
    # A PORT or HOST the environment happens to carry (a shell's, a platform's) does not move the service.
    assert _serve_line(env={**os.environ, "PORT": "1", "HOST": "example.invalid"}).endswith(
        "botyard serve --host 127.0.0.1 --port 8000"
    )


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_installs_the_venv_from_the_constraints(tmp_path: Path) -> None:
    result = subprocess.run(
        ["make", "-n", "-C", str(ROOT), f"VENV={tmp_path / 'venv'}", "serve"],  # noqa: S607 (as above)
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    installs = [line for line in result.stdout.splitlines() if " install " in line]
    assert len(installs) == 2, result.stdout  # pip itself, then the project with its dev tools
    assert all("-c constraints.txt" in line for line in installs), installs
