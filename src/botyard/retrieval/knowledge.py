"""What retrieval reads of a chatbot's knowledge. The chunks, their sources and the knowledge version belong to
`sources` (their one owner, which writes them); retrieval is a library below the features, so it names what it reads
as a protocol (`Knowledge`) and the runtime hands the retriever the owner's reader
(`botyard.sources.repository.IndexReads`). The vectors it returns are `Stored`, as `held_all` decodes them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.embedding import decode_vector

Stored = bytes | npt.NDArray[np.floating[Any]] | None
"""A row's vector as the index takes it: as stored in the database (`encode_vector`), as a vector (`held_all`), or None
(not embedded by the current embedder)."""


def held_all(stored: Sequence[bytes | None]) -> list[Stored]:
    """Stored vectors (`encode_vector`, None: none) as rows read for a build hold them until the index takes them:
    float16, half the bytes of float32, decoded a batch at a time (one by one, 100k vectors took 1.6 s). Each is a
    row of its batch's matrix; vectors of another length than the batch's first (another model's) one by one."""
    found: list[Stored] = [None] * len(stored)
    present = [index for index, data in enumerate(stored) if data is not None]
    if not present:
        return found
    size = len(stored[present[0]] or b"")
    alike = [index for index in present if len(stored[index] or b"") == size]
    matrix = np.frombuffer(b"".join(stored[index] or b"" for index in alike), dtype="<f4")
    matrix = matrix.reshape(len(alike), size // 4).astype(np.float16)
    for row, index in enumerate(alike):
        found[index] = matrix[row]
    for index in present:
        data = stored[index]
        if data is not None and len(data) != size:
            found[index] = decode_vector(data).astype(np.float16)
    return found


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk with what retrieval shows of its source. An index holds one per chunk, so it has no `__dict__`, and
    the rows of one source share their source's strings and meta (`_rows`): read-only, like the row."""

    uuid: str
    data_source_uuid: str
    position: int
    heading: str
    text: str
    source_title: str
    source_type: str
    source_meta: dict[str, Any]
    tokens: int = 0
    """The o200k count of `text`, made at ingestion (answerers report usage without counting again)."""
    source_file_name: str = ""
    """The source's file name (citations show it); like its title and meta, as of the knowledge version."""
    terms: str | None = None
    """The terms kept at ingestion (`stored_terms`), held only by the rows read for a build or an update."""
    terms_tag: str | None = None


class Knowledge(Protocol):
    """A chatbot's knowledge as an index is built and kept from it, read in the caller's unit of work."""

    async def knowledge_version(self, chatbot_uuid: str) -> int | None:
        """The chatbot's knowledge version (one primary-key read); None: no such chatbot."""
        ...

    async def knowledge_versions(self) -> dict[str, int]:
        """Every chatbot's knowledge version (the warmer's look)."""
        ...

    async def chunk_count(self, chatbot_uuid: str) -> int: ...

    async def changed_sources(self, chatbot_uuid: str, after: int, upto: int) -> set[str] | None:
        """The sources the versions after `after` up to `upto` changed; None when the log lacks one of them."""
        ...

    async def chunks(
        self,
        chatbot_uuid: str,
        embedder: str | None,
        sources: Collection[str] | None = None,
        chunk_uuids: Collection[str] | None = None,
    ) -> tuple[list[ChunkRow], list[Stored]]:
        """Every chunk of the chatbot (or of these `sources`, or these chunks) and, in the same order, the vectors
        `embedder` made."""
        ...

    async def passage_vectors(self, chunk_uuids: Sequence[str], embedder: str) -> dict[str, bytes]:
        """The stored passage vectors of these chunks that `embedder` made, by chunk uuid."""
        ...


KnowledgeReader = Callable[[AsyncSession], Knowledge]
"""How a retriever reads the knowledge in a unit of work (`IndexReads`, given by the runtime)."""
