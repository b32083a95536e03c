"""Handing memory freed after a large transient peak back to the system.

glibc's malloc keeps what a process frees in its heaps for later allocations, so the resident set stays at its peak:
loading MiniLM (onnxruntime's graph optimizer holds about 70 MB while it folds the weights) or building a 100k-chunk
index (every chunk's row and vector read at once) would keep a worker at its peak for good. `malloc_trim` returns the
free pages. Large blocks get pages of their own (`keep_large_blocks_apart`), returned as soon as they are freed.
Other C libraries (musl, macOS) have no such calls and their processes simply keep what they keep.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter (malloc.h)."""
LARGE_BLOCK = 128 * 1024
"""Blocks of at least this size are mapped on their own (glibc's initial threshold, kept). By default glibc raises
the threshold to the largest mapped block freed so far (up to 32 MB): after one large array is freed, the numpy arrays
of a build or a search come from the heap, between small objects that outlive them, and their pages stay. A worker
that had built a 100k-chunk index held 700 MB with the moving threshold, 639 MB with this fixed one."""


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


def _malloc_trim() -> Callable[[int], int] | None:
    trim: Callable[[int], int] | None = getattr(_libc(), "malloc_trim", None)
    return trim


def keep_large_blocks_apart() -> None:
    """Map blocks from `LARGE_BLOCK` bytes on by themselves, for good (glibc only; elsewhere nothing). A process
    calls it once, before its large allocations."""
    mallopt: Callable[[int, int], int] | None = getattr(_libc(), "mallopt", None)
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK)


def release_free_memory() -> None:
    """Give the pages malloc holds free back to the system (glibc only; elsewhere nothing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
