"""Chunks get their index terms when they are made (`retrieval.stored_terms`): analysed once here, in the worker
thread that chunks the text, rather than by every process's every build of the chatbot's search index."""

from __future__ import annotations

from collections.abc import Sequence

from botyard.models import Chunk
from botyard.retrieval.stored_terms import analysed


def keep_terms(chunks: Sequence[Chunk]) -> None:
    """Give each chunk the terms of its heading and text, and their tag (None when no language shows)."""
    for chunk in chunks:
        chunk.terms_tag, chunk.terms = analysed(chunk.heading or "", chunk.text)
