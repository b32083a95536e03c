"""The vectors of recent questions, kept per process: routing embeds a question before retrieval searches with it,
and the same questions come back (a widget's suggested questions)."""

from __future__ import annotations

import logging
from collections import OrderedDict

from botyard.embedding import Embedder, EmbeddingError, Vectors

log = logging.getLogger(__name__)

QUERY_VECTORS = 1024
"""Query vectors kept per process (1.5 KB each)."""


class QueryVectors:
    """The last `QUERY_VECTORS` questions' vectors, least recently used out."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._kept: OrderedDict[str, Vectors] = OrderedDict()

    async def of(self, query: str) -> Vectors | None:
        """The query's vector; None when embedding fails (an embeddings endpoint that is down degrades answers to
        BM25, it does not stop them)."""
        kept = self._kept.get(query)
        if kept is not None:
            self._kept.move_to_end(query)
            return kept
        try:
            vector = await self.embedder.embed_query(query)
        except EmbeddingError as error:
            log.warning("query embedding failed, falling back to BM25: %s", error)
            return None
        self._kept[query] = vector
        if len(self._kept) > QUERY_VECTORS:
            self._kept.popitem(last=False)
        return vector
