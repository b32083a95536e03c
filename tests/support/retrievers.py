"""Retrievers on the embedded search backend, made apart from the app's (a process of their own), and the backend
of the app's retriever when the test is about the embedded one's indexes."""

from __future__ import annotations

from botyard.config import Settings
from botyard.embedding import Embedder
from botyard.retrieval.embedded.search import EmbeddedSearch
from botyard.retrieval.retriever import Retriever
from botyard.sources.repository import IndexReads


def embedded_retriever(embedder: Embedder | None, settings: Settings) -> Retriever:
    """A retriever with an embedded backend of its own, as another process would have."""
    retriever = Retriever(embedder, IndexReads)
    retriever.backend = EmbeddedSearch(embedder, settings, IndexReads, retriever.unrelated_vectors)
    return retriever


def embedded(retriever: Retriever) -> EmbeddedSearch:
    """The retriever's embedded backend (the test is about its indexes)."""
    assert isinstance(retriever.backend, EmbeddedSearch), "this test is about the embedded search backend"
    return retriever.backend
