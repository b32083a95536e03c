"""Hybrid retrieval over a chatbot's chunks: BM25, exact dense search, fusion, and the relevance decision.

The retriever (`retriever`) asks a search backend (`backend.SearchBackend`) for the ranked hits: the embedded one
(`embedded`) or PostgreSQL's (`postgres`). The modules here are what every backend shares.
"""

from botyard.retrieval.base import Hit, Retrieval

__all__ = ["Hit", "Retrieval"]
