"""Hybrid retrieval over a chatbot's chunks: BM25, exact dense search, fusion, and the relevance decision."""

from botyard.retrieval.base import Hit, Retrieval

__all__ = ["Hit", "Retrieval"]
