"""The suite's own stop for the processes it starts (tests/support/processes.py): a child that ignores every polite
signal, as one started without a terminal ignores SIGINT, still ends within a bounded time, the processes it started
with it, and it is reaped."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path
from subprocess import DEVNULL

import pytest

from tests.support.processes import REAP, spawn, stop, written_lines
from tests.support.servers import children
from tests.support.waiting import START, wait_for

# Ignores SIGINT and SIGTERM, says so on stdout, then sleeps for ten minutes; with an argument, first starts itself
# again (a child of its own, in its process group) and prints that child's lines too.
STUBBORN = """
import signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if len(sys.argv) > 1:
    subprocess.Popen([sys.executable, "-c", sys.argv[1]])
print("ignoring", flush=True)
time.sleep(600)
"""

GRACE = 1.0
pytestmark = pytest.mark.timeout(300)  # a stop that waits forever fails here, sooner than the suite's limit


def test_a_child_that_ignores_sigint_and_sigterm_is_killed_and_reaped(tmp_path: Path) -> None:
    out = tmp_path / "out.log"
    with out.open("wb") as sink:
        child = spawn([sys.executable, "-c", STUBBORN], stdout=sink, stderr=DEVNULL)
    wait_for(lambda: written_lines(out) == ["ignoring"], START, what="the child ignoring signals")
    started = time.monotonic()
    assert stop(child, signal.SIGTERM, grace=GRACE) is False  # it had to be killed
    assert time.monotonic() - started < GRACE + REAP
    assert child.returncode == -signal.SIGKILL  # reaped: its status was collected
    assert not Path(f"/proc/{child.pid}").exists()


def test_the_processes_it_started_go_with_it(tmp_path: Path) -> None:
    out = tmp_path / "out.log"
    with out.open("wb") as sink:
        child = spawn([sys.executable, "-c", STUBBORN, STUBBORN], stdout=sink, stderr=DEVNULL)
    wait_for(lambda: len(written_lines(out)) == 2, START, what="the child and grandchild ignoring signals")
    [grandchild] = children(child.pid)

    try:
        assert (
            stop(child, signal.SIGINT, grace=GRACE) is False
        )  # SIGINT, as tests/logs/test_logs.py's worker was stopped
        # An orphan is reparented, and reaped by whoever adopts it: gone from /proc, or a zombie until then.
        wait_for(lambda: _gone(grandchild), REAP, what="the grandchild ending")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(grandchild, signal.SIGKILL)  # left running only by a stop that failed


def test_a_child_that_stops_when_asked_is_not_killed() -> None:
    child = spawn([sys.executable, "-c", "import time; time.sleep(600)"])
    started = time.monotonic()
    assert stop(child) is True  # SIGTERM's default action ends it
    assert time.monotonic() - started < REAP
    assert child.returncode == -signal.SIGTERM


def test_a_child_that_already_exited_is_reaped() -> None:
    child = spawn([sys.executable, "-c", "pass"])
    wait_for(lambda: _gone(child.pid), START, what="the child exiting")
    assert stop(child) is True and child.returncode == 0


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True
