"""A Q&A pair as ingestion sees it: one text, question and answer together, made into one chunk whatever its size.

Shared by the `process_source` job and by the edit of a pair, which replaces the pair's chunk at once (so the old
answer is never found again from the edit's commit on) and leaves the job only the embedding of the new one.
"""

from __future__ import annotations

import hashlib

from botyard.ingestion.tokens import count_tokens
from botyard.models import Chunk, DataSource


def qa_text(question: str, answer: str) -> str:
    return f"{question.strip()}\n\n{answer.strip()}"


def qa_text_of(source: DataSource) -> str:
    """The text of a `qa` source as its row holds it now."""
    return qa_text(str(source.meta.get("question", "")), str(source.meta.get("answer", "")))


def content_hash(text: str) -> str:
    """The hash of extracted text that `DataSource.content_hash` keeps (unchanged text is not chunked again)."""
    return hashlib.sha256(text.encode()).hexdigest()


def atomic_chunk(source: DataSource, text: str) -> Chunk:
    """The one chunk of a text that must not be split (a Q&A pair: the answer never apart from its question)."""
    text = text.strip()
    return Chunk(
        data_source_uuid=source.uuid,
        chatbot_uuid=source.chatbot_uuid,
        position=0,
        heading="",
        text=text,
        tokens=count_tokens(text),
    )
