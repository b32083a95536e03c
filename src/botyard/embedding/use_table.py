"""USE-m3's embedding table in a memory-mapped file instead of anonymous memory.

The table (17 * 7530 rows of 512 bytes, 65 MB) is read only a few rows at a time, one per piece of a text. Held as
an array, all 65 MB are resident in every process. Mapped from a file, only the pages of the rows a process has read
are resident, and those are the page cache's, shared by every worker on the machine, not counted twice.

The file is written once, by the first process to start, under a name that carries the weights' digest, and
checked against the table the port has just built before it is used: a file of another size, an unreadable or a
changed one is written anew (to a temporary file renamed over it, so no process ever maps half a file). Where the
directory cannot be written, the table stays in memory: the service works, only with more memory. The process that
writes the file removes the tables of other weights (left by an earlier version: a process still mapping one keeps
its map) and the temporary files a process killed while writing left behind.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

Table = npt.NDArray[np.uint8]
ABANDONED_SECONDS = 3600
"""A temporary file this old was left by a process killed while writing it: a write takes about a second."""
CHECK_BYTES = 1 << 20
"""The file is compared with the table a megabyte at a time, by plain reads: no page of it enters the process."""


def mapped_table(table: Table, directory: Path, digest: str) -> Table:
    """`table` as a read-only map of `directory/use-m3-table-<digest[:16]>.npy`, written first if missing or not
    equal to `table`; `table` itself if the file can be neither read nor written."""
    path = directory / f"use-m3-table-{digest[:16]}.npy"
    mapped = _open_equal(path, table)
    if mapped is not None:
        return mapped
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _write(path, table)
    except OSError as error:
        log.warning("USE-m3's table stays in memory (65 MB a process): cannot write %s: %s", path, error)
        return table
    _remove_others(path)
    mapped = _open_equal(path, table)
    return table if mapped is None else mapped


def _open_equal(path: Path, table: Table) -> Table | None:
    """The map of the file at `path`, if it holds exactly `table`; otherwise None."""
    try:
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
        if not isinstance(mapped, np.memmap) or mapped.shape != table.shape or mapped.dtype != table.dtype:
            return None
        if not _same_bytes(path, int(mapped.offset), table):
            return None
        _read_at_random(path, mapped)
    except (OSError, ValueError, EOFError):
        return None
    return mapped


def _read_at_random(path: Path, mapped: np.memmap[tuple[int, ...], np.dtype[np.uint8]]) -> None:
    """Keep what a read of a few rows makes resident to the pages of those rows (Linux; elsewhere nothing).

    Linux (6.x) caches a file read or written in a run in folios of up to 2 MB, and a fault maps the whole folio:
    10 paragraphs embedded made 44 MB of the table resident, not 2. So the pages no process maps (those the check
    has just read, or the write left) leave the cache, and faults read no more than their page (no read-around).
    """
    if hasattr(os, "posix_fadvise"):
        with path.open("rb") as file:
            os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    advice = getattr(mmap, "MADV_RANDOM", None)
    mapping = getattr(mapped, "_mmap", None)  # numpy's mmap.mmap behind the array (no public name)
    if advice is not None and isinstance(mapping, mmap.mmap):
        mapping.madvise(advice)


def _same_bytes(path: Path, offset: int, table: Table) -> bool:
    expected = np.ascontiguousarray(table).reshape(-1)
    buffer = bytearray(CHECK_BYTES)
    with path.open("rb") as file:
        file.seek(offset)
        for start in range(0, expected.size, CHECK_BYTES):
            size = file.readinto(buffer)
            if not np.array_equal(np.frombuffer(buffer, np.uint8, size), expected[start : start + CHECK_BYTES]):
                return False
        return file.read(1) == b""


def _write(path: Path, table: Table) -> None:
    """Write `table` to a temporary file beside `path`, then rename it over `path` (atomic: a process starting at
    the same time maps the old file or the new one, never half of one)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            np.save(file, table, allow_pickle=False)
            file.flush()
            os.fdatasync(file.fileno())  # on disk before the rename; and clean pages can leave the cache
        os.chmod(temporary, 0o644)  # mkstemp's 0o600 would keep it from workers running as another user
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove_others(path: Path) -> None:
    """Remove the tables of other weights beside `path`, and abandoned temporary files (not one being written). A
    file that cannot be removed stays: tidying up never costs the table just written."""
    now = time.time()
    for other in path.parent.glob("use-m3-table-*.npy"):
        if other != path:
            with contextlib.suppress(OSError):
                other.unlink()
    for temporary in path.parent.glob(".use-m3-table-*.tmp"):
        with contextlib.suppress(OSError):
            if now - temporary.stat().st_mtime > ABANDONED_SECONDS:
                temporary.unlink()
