"""Lists of keys go to the database in slices: both databases cap the number of bound parameters per statement."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
BATCH = 500


def batches(items: Sequence[T], size: int = BATCH) -> Iterator[list[T]]:
    """`items` in consecutive lists of at most `size`."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
