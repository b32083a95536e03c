"""What a source holds, and the edit of a Q&A pair.

The extracted text of a page or a file is not kept (only its hash, to notice when it changes): what a source holds
is its chunks, exactly what retrieval searches and cites, in order (they overlap a little, so joined they are not the
document). A Q&A pair's question and answer are kept on the source itself (`meta_json`).

Editing a pair replaces its one chunk in the request's transaction (the knowledge version names the source, so every
process's search index drops the old text at the commit) and queues the usual `process_source` job, which finds the
text already chunked and only embeds it.
"""

from __future__ import annotations

import asyncio

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.errors import AppError, ErrorCode
from botyard.ingestion.qa import atomic_chunk, content_hash, qa_text
from botyard.models import Chunk, DataSource
from botyard.sources.repository import ChunkRepository, DataSourceRepository
from botyard.sources.schemas import QaUpdate, SourceChunks
from botyard.sources.service import QA_TITLE_LENGTH, get_owned, schedule_processing
from botyard.sources.terms import keep_terms


async def chunks_of(db: AsyncSession, account_uuid: str, source_uuid: str, offset: int, limit: int) -> SourceChunks:
    """A page of the account's source's chunks, in order, with how many there are."""
    source = await get_owned(db, account_uuid, source_uuid)
    total = await ChunkRepository(db).count_of(source.uuid)
    rows = await ChunkRepository(db).page_of(source.uuid, offset, limit)
    return {
        "uuid": source.uuid,
        "total": total,
        "offset": offset,
        "limit": limit,
        "chunks": [
            {"position": position, "heading": heading, "text": text, "tokens": tokens, "embedded": embedded}
            for position, heading, text, tokens, embedded in rows
        ],
    }


async def update_qa(db: AsyncSession, account_uuid: str, source_uuid: str, body: QaUpdate) -> DataSource:
    """A new question and/or answer for the account's Q&A pair; its title follows the question unless it was
    renamed. Any other type of source answers 422 `not_a_qa_source`."""
    source = await get_owned(db, account_uuid, source_uuid)
    if source.type != "qa":
        raise AppError(ErrorCode.NOT_A_QA_SOURCE, "Only a Q&A pair's question and answer can be edited")
    old_question, old_answer = str(source.meta.get("question", "")), str(source.meta.get("answer", ""))
    question = old_question if body.question is None else body.question
    answer = old_answer if body.answer is None else body.answer
    if (question, answer) == (old_question, old_answer):
        return source
    text = qa_text(question, answer)
    chunk = await asyncio.to_thread(_chunk_of, source, text)  # counting tokens of up to 200k characters
    await ChunkRepository(db).replace(source, [chunk])
    values = {
        "meta": {**source.meta, "question": question, "answer": answer},
        "file_size": len((question + answer).encode()),
        "tokens": chunk.tokens,
        "content_hash": content_hash(text),
        "status": "queued",
    }
    if source.title == old_question.strip()[:QA_TITLE_LENGTH]:
        values["title"] = question.strip()[:QA_TITLE_LENGTH]
    source = await DataSourceRepository(db).update(source, values)
    await schedule_processing(db, source)
    return source


def _chunk_of(source: DataSource, text: str) -> Chunk:
    chunk = atomic_chunk(source, text)
    keep_terms([chunk])
    return chunk
