"""What retrieval reads of a chatbot's knowledge. The chunks, their sources and the knowledge version belong to
`sources` (their one owner, which writes them); retrieval is a library below the features, so it names what it reads
as a protocol (`Knowledge`) and the runtime hands the retriever the owner's reader
(`botyard.sources.repository.IndexReads`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.retrieval.embedded.dense import Stored


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
        self, chatbot_uuid: str, embedder: str | None, sources: Collection[str] | None = None
    ) -> tuple[list[ChunkRow], list[Stored]]:
        """Every chunk of the chatbot (or of these `sources`) and, in the same order, the vectors `embedder` made."""
        ...

    async def passage_vectors(self, chunk_uuids: Sequence[str], embedder: str) -> dict[str, bytes]:
        """The stored passage vectors of these chunks that `embedder` made, by chunk uuid."""
        ...


KnowledgeReader = Callable[[AsyncSession], Knowledge]
"""How a retriever reads the knowledge in a unit of work (`IndexReads`, given by the runtime)."""
