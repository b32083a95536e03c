"""One build of a chatbot's index at a time on a machine.

Processes that share a data directory (`botyard serve --workers 2`, a worker beside the server) each build a chatbot's
index the first time they need it, unless a snapshot is on disk (`snapshot`). Two of them meeting the same chatbot
at once built it twice, each as slowly as the machine's cores were shared, and the second build's snapshot was
thrown away. Now a build holds an advisory lock on `indexes/.locks/<chatbot>` (`fcntl.flock`: the system lets it go
when the process ends, however it ends) from before it reads the rows until its snapshot is saved. A process that
finds the lock held waits for it, then loads the snapshot the other one saved; the warmer (`warmer`) does not wait:
it leaves the chatbot to the build under way.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from pathlib import Path

LOCKS = ".locks"
BUILD_WAIT_SECONDS = 180.0
"""How long a process waits for another's build before it builds too (that one may be stuck)."""
POLL_SECONDS = 0.05


class BuildLock:
    """The lock of one chatbot's build, held by this process until `release` (which may be called more than once)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def try_lock(root: Path, chatbot_uuid: str) -> BuildLock | None:
    """The chatbot's build lock if no other process (or other retriever) holds it, else None. `chatbot_uuid` is
    checked by the caller (`Snapshots.folder`)."""
    folder = root / LOCKS
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / chatbot_uuid, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return BuildLock(fd)


async def wait_for_lock(
    root: Path, chatbot_uuid: str, seconds: float = BUILD_WAIT_SECONDS
) -> tuple[BuildLock | None, bool]:
    """The chatbot's build lock, waited for up to `seconds` while another process builds; and whether it waited
    (then a snapshot may have come meanwhile). None after `seconds` in vain."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    waited = False
    while (lock := try_lock(root, chatbot_uuid)) is None:
        if loop.time() > deadline:
            return None, True
        waited = True
        await asyncio.sleep(POLL_SECONDS)
    return lock, waited
