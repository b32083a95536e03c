"""The private directories of an index: where this process writes an index's tantivy files and texts (`snapshot`
says why no process writes into files another reads)."""

from __future__ import annotations

import os
import shutil
import socket
import weakref
from pathlib import Path

TANTIVY = "tantivy"
TEXTS = "texts"


def owner() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


def sweep(directory: Path) -> None:
    """Remove the directories that dead processes of this machine left in `directory` (named `[.tmp-]host-pid-x`)."""
    host = socket.gethostname()
    for entry in directory.iterdir():
        found = entry.name.removeprefix(".tmp-").rsplit("-", 2)
        if len(found) != 3 or found[0] != host or not found[1].isdigit() or int(found[1]) == os.getpid():
            continue
        try:
            os.kill(int(found[1]), 0)
        except ProcessLookupError:
            shutil.rmtree(entry, ignore_errors=True)
        except PermissionError:  # alive, another user's
            continue


class Private:
    """A directory of this process holding one index's tantivy files and texts (`rows`), removed when the last index
    using it goes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tantivy = path / TANTIVY
        self.tantivy.mkdir()
        self.texts = path / TEXTS
        weakref.finalize(self, shutil.rmtree, str(path), True)
