"""Child processes the tests start, stopped in a way that cannot be ignored and always reaped.

A polite signal alone is not a stop: a child started without a terminal (in the background of a shell, as CI runs
the suite) inherits SIGINT ignored, and any child may hang in its shutdown. `stop` asks first, waits a bounded time,
then kills the child's whole process group, and reaps it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

GRACE = 60.0
"""How long a polite stop may take: a shutdown ends its in-flight work, and a machine busy with the parallel suite
makes that slow."""

REAP = 10.0
"""How long a SIGKILLed process may take to be gone (the kernel, not the child, decides that)."""


def spawn(command: list[str], **options: Any) -> subprocess.Popen[Any]:
    """`Popen` in a process group of its own, so that `stop` reaches the processes it starts too (uvicorn's workers,
    the parser's sandbox); stdin is /dev/null unless given, as under CI."""
    options.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.Popen(command, start_new_session=True, **options)


def stop(process: subprocess.Popen[Any], first: signal.Signals | None = signal.SIGTERM, grace: float = GRACE) -> bool:
    """Send `first` (None: the process was told to end some other way), wait up to `grace` seconds for it to exit,
    then SIGKILL its process group; reap it and close its pipes. True when it exited within the grace (or had already
    exited), False when it had to be killed."""
    try:
        if _exited(process, 0):
            polite = True
        else:
            with contextlib.suppress(ProcessLookupError):
                if first is not None:
                    process.send_signal(first)
            polite = _exited(process, grace)
        _kill_group(process)  # unreaped, the leader keeps its group id from being reused
        process.wait(timeout=REAP)
    finally:
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
    return polite


def _exited(process: subprocess.Popen[Any], seconds: float) -> bool:
    """Whether the process exits within `seconds`, without reaping it (it stays a zombie until `wait`)."""
    if process.returncode is not None:
        return True
    deadline = time.monotonic() + seconds
    while True:
        try:
            if os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:  # reaped elsewhere (Popen.poll): nothing left to wait for
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _kill_group(process: subprocess.Popen[Any]) -> None:
    """SIGKILL the process and, when it leads a process group of its own (`spawn`), everything in that group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if process.returncode is None and os.getpgid(process.pid) == process.pid:
            os.killpg(process.pid, signal.SIGKILL)
        elif process.returncode is None:
            process.kill()


def written_lines(path: Path) -> list[str]:
    """The whole lines a child has written to the file `path` so far (a line still being written is left out). Read
    a child's output from a file, not a pipe: a read of a pipe waits for as long as the child says nothing."""
    text = path.read_text() if path.exists() else ""
    return text[: text.rfind("\n") + 1].splitlines()


def last_lines(path: Path, lines: int = 40, since: int = 0) -> str:
    """The last `lines` lines a child wrote to the file `path` after its first `since` bytes (its stderr, for a
    failure to show why the child stopped); "" when there are none or the file cannot be read."""
    try:
        with path.open("rb") as file:
            file.seek(max(since, path.stat().st_size - 16_000))
            text = file.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
