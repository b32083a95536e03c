"""An index's rows, held column by column, and their texts, held out of the process's heap.

As Python objects, 100k chunks held about 170 MB: 125 MB of texts and 44 MB of row objects. Here a row is a few
numbers in arrays (its source, heading, position, token count, where its text lies) and its uuid in a byte array:
about 7 MB. The texts go to a file in the index's private directory and are read back by position when a hit is shown
or a changed source's rows are removed (a few rows per question): the page cache holds them, shared by the workers
of the machine and given back under memory pressure, not the process. An index of a few thousand rows keeps its
texts in memory instead (it has no directory, `snapshot`).

Like the vector matrices (`dense`), a table only grows at its end: an updated index appends its new rows' texts to
the file its older version reads, which reads nothing past its own rows.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from botyard.retrieval.knowledge import ChunkRow

COPIED_BYTES = 1 << 20
"""Bytes copied at a time when a snapshot saves the texts."""


def _close(descriptors: list[int]) -> None:
    for descriptor in descriptors:
        os.close(descriptor)


class Texts:
    """Append-only UTF-8 text storage, read by byte range: in a file (`path`, made here) or in memory (None). `base`:
    a snapshot's texts file, read-only, which holds the first bytes; what is appended goes to `path`."""

    def __init__(self, path: Path | None, base: Path | None = None) -> None:
        self._memory = bytearray() if path is None else None
        self._descriptors: list[int] = []
        self._file = -1 if path is None else self._open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
        self._base = -1 if base is None else self._open(base, os.O_RDONLY)
        self._base_size = os.fstat(self._base).st_size if base is not None else 0
        self.size = self._base_size
        """Bytes held; only grows."""
        weakref.finalize(self, _close, self._descriptors)

    def _open(self, path: Path, flags: int) -> int:
        descriptor = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
        self._descriptors.append(descriptor)
        return descriptor

    def append(self, data: bytes) -> int:
        """Store `data` after what is held; where it starts."""
        start = self.size
        if self._memory is not None:
            self._memory += data
        else:
            view = memoryview(data)
            written = 0
            while written < len(view):  # at the end of what is held, so a write that failed is written over
                written += os.pwrite(self._file, view[written:], start - self._base_size + written)
        self.size = start + len(data)
        return start

    def read(self, start: int, end: int) -> bytes:
        if self._memory is not None:
            return bytes(self._memory[start:end])
        if end <= self._base_size:
            return os.pread(self._base, end - start, start)
        if start >= self._base_size:
            return os.pread(self._file, end - start, start - self._base_size)
        return self.read(start, self._base_size) + self.read(self._base_size, end)

    def save(self, path: Path, size: int) -> None:
        """Write the first `size` bytes to a new file at `path`."""
        with path.open("xb") as file:
            for start in range(0, size, COPIED_BYTES):
                file.write(self.read(start, min(start + COPIED_BYTES, size)))


@dataclass(frozen=True, slots=True)
class Source:
    """What a row shows of its source (`ChunkRow`), held once per source."""

    uuid: str
    title: str
    type: str
    meta: dict[str, Any]
    file_name: str


class RowTable:
    """The rows of an index, in its row order: `table[row]` is the `ChunkRow`. Immutable; `extended` makes the table
    with more rows, sharing this one's texts."""

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self.sources: list[Source] = []
        self.source_ids: dict[str, int] = {}
        self.headings: list[str] = []
        self._heading_ids: dict[str, int] = {}
        self.source = np.zeros(0, dtype=np.int32)
        """Each row's source, by its place in `sources`."""
        self._heading = np.zeros(0, dtype=np.int32)
        self._position = np.zeros(0, dtype=np.int32)
        self._tokens = np.zeros(0, dtype=np.int32)
        self._uuid: npt.NDArray[np.bytes_] = np.zeros(0, dtype="S1")
        self._starts = np.zeros(0, dtype=np.int64)
        """Where each row's text starts in `texts`, and its length in bytes."""
        self._lengths = np.zeros(0, dtype=np.int32)

    def __len__(self) -> int:
        return len(self._position)

    def __getitem__(self, row: int) -> ChunkRow:
        source = self.sources[self.source[row]]
        return ChunkRow(
            uuid=self._uuid[row].decode(),
            data_source_uuid=source.uuid,
            position=int(self._position[row]),
            heading=self.headings[self._heading[row]],
            text=self.text(row),
            source_title=source.title,
            source_type=source.type,
            source_meta=source.meta,
            tokens=int(self._tokens[row]),
            source_file_name=source.file_name,
        )

    def __iter__(self) -> Iterator[ChunkRow]:
        return (self[row] for row in range(len(self)))

    def text(self, row: int) -> str:
        start = int(self._starts[row])
        return self.texts.read(start, start + int(self._lengths[row])).decode()

    def extended(self, rows: Sequence[ChunkRow]) -> RowTable:
        """This table with `rows` after its own: a new table, this one unchanged."""
        new = RowTable.__new__(RowTable)
        new.texts = self.texts
        new.sources, new.source_ids = list(self.sources), dict(self.source_ids)
        new.headings, new._heading_ids = list(self.headings), dict(self._heading_ids)
        source = [new._id_of_source(row) for row in rows]
        heading = [new._heading_ids.setdefault(row.heading, len(new._heading_ids)) for row in rows]
        new.headings.extend(list(new._heading_ids)[len(self.headings) :])
        encoded = [row.text.encode() for row in rows]
        lengths = np.array([len(text) for text in encoded], dtype=np.int64)
        start = self.texts.append(b"".join(encoded))
        new.source = np.concatenate([self.source, np.array(source, dtype=np.int32)])
        new._heading = np.concatenate([self._heading, np.array(heading, dtype=np.int32)])
        new._position = np.concatenate([self._position, np.array([row.position for row in rows], dtype=np.int32)])
        new._tokens = np.concatenate([self._tokens, np.array([row.tokens for row in rows], dtype=np.int32)])
        new._uuid = np.concatenate([self._uuid, np.array([row.uuid.encode() for row in rows], dtype=np.bytes_)])
        new._starts = np.concatenate([self._starts, start + np.cumsum(lengths) - lengths])
        new._lengths = np.concatenate([self._lengths, lengths.astype(np.int32)])
        return new

    def _id_of_source(self, row: ChunkRow) -> int:
        """The row's source in this (new) table; a source's new rows bring its facts as of now (a renamed source's
        rows replace all its older ones, which an index then never shows)."""
        facts = Source(row.data_source_uuid, row.source_title, row.source_type, row.source_meta, row.source_file_name)
        found = self.source_ids.setdefault(row.data_source_uuid, len(self.sources))
        if found == len(self.sources):
            self.sources.append(facts)
        elif self.sources[found] != facts:
            self.sources[found] = facts
        return found

    @property
    def text_end(self) -> int:
        """Where in `texts` the rows' texts end."""
        return int((self._starts + self._lengths).max()) if len(self) else 0

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its texts, which a `snapshot` saves as a file of their own."""
        return {name: value for name, value in vars(self).items() if name != "texts"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)


def rows_of(rows: Sequence[ChunkRow], texts: Texts) -> RowTable:
    """A table of `rows` in this order, their texts appended to `texts`."""
    return RowTable(texts).extended(rows)
