"""Which Q&A pair a review fix may replace: the question's own, never a pair that only lent the reply a sentence.

A reply quotes Q&A pairs for two reasons: the pair is the question's own (its question is the one asked: the answer
is the pair's), or a sentence of its answer shared some of the question's words (the insurance pair's "Please bring
your policy number" under an answer about a pensioners' discount). Replacing the second kind rewrites knowledge that
answered other questions well, so a fix may replace a pair only when its question is the same question as the
answer's: when it would be in the answer's review group (`grouping`: the same words, or by both readings on one
subject and sharing a word in one language). Any other fix adds a pair. Without an embedder only the same words are
the same question.

The review item names the pair (`qa_pair`, with its current question and answer) and says whether it is the
question's own; the fix replaces one only when asked by its uuid, and refuses a pair it does not offer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.embedding.base import Vectors
from botyard.errors import AppError, ErrorCode
from botyard.models import DataSource, Message, SourceType
from botyard.retrieval.retriever import Retriever
from botyard.sources import service as sources
from botyard.unanswered.grouping import group
from botyard.unanswered.schemas import ReviewPair


@dataclass(frozen=True)
class Readings:
    """A question as the visitor wrote it and as it was searched (a follow-up completed from its conversation),
    with their vectors (None without an embedder; `own` None when the two texts are one)."""

    question: str
    searched: str
    vector: Vectors | None
    own: Vectors | None


async def readings(retriever: Retriever, question: str, searched: str, vector: Vectors | None) -> Readings:
    """The question's readings; `vector` is the searched text's. The written text is embedded only when it differs."""
    differs = searched.strip() != question.strip()
    own = await retriever.embed_query(question) if differs and vector is not None else None
    return Readings(question, searched, vector, own)


def quoted(message: Message | None) -> list[str]:
    """The Q&A sources the reply quoted, in order: its citations in marker order, then the sources it quoted without
    showing citations (`meta_json.quoted_sources`, offline)."""
    if message is None:
        return []
    cited: dict[str, Any] = message.cite_data or {}
    ordered = [cited[marker] for marker in sorted(cited, key=_marker_order)]
    meta = message.meta.get("quoted_sources") if isinstance(message.meta, dict) else None
    found: list[str] = []
    for entry in [*ordered, *(meta if isinstance(meta, list) else [])]:
        if isinstance(entry, dict) and entry.get("type") == SourceType.QA and entry.get("data_source_uuid"):
            found.append(str(entry["data_source_uuid"]))
    return list(dict.fromkeys(found))


def _marker_order(marker: str) -> list[int]:
    return [int(part) for part in marker.split(".") if part.isdigit()]


class Pairs:
    """The chatbot's Q&A pairs that replies quoted, and whether each is a question's own (see the module)."""

    def __init__(self, retriever: Retriever, found: Sequence[DataSource]) -> None:
        self.retriever = retriever
        self.by_uuid = {source.uuid: source for source in found if source.type == SourceType.QA}
        self._vectors: dict[str, Vectors | None] = {}

    @classmethod
    async def quoted_by(cls, db: AsyncSession, retriever: Retriever, chatbot_uuid: str, uuids: Sequence[str]) -> Pairs:
        return cls(retriever, await sources.in_chatbot(db, chatbot_uuid, list(dict.fromkeys(uuids))))

    async def is_own(self, asked: Readings, pair_uuid: str) -> bool:
        """Whether the pair's question is the same question as `asked` (it would be in its review group)."""
        source = self.by_uuid.get(pair_uuid)
        if source is None:
            return False
        question = _question(source)
        if pair_uuid not in self._vectors:
            self._vectors[pair_uuid] = await self.retriever.embed_query(question)
        pair = self._vectors[pair_uuid]
        parts = self.retriever.embedder.parts if self.retriever.embedder is not None else ()
        vectors = [pair, asked.vector] if pair is not None and asked.vector is not None else [None, None]
        own = [None, asked.own] if vectors[0] is not None else None
        return len(group([question, asked.question], vectors, parts, [question, asked.searched], own)) == 1

    async def shown(self, asked: Readings, uuids: Sequence[str]) -> ReviewPair | None:
        """The pair an item names: the first quoted that is the question's own, else the first quoted."""
        present = [uuid for uuid in uuids if uuid in self.by_uuid]
        for uuid in present:
            if await self.is_own(asked, uuid):
                return self._wire(uuid, same_question=True)
        return self._wire(present[0], same_question=False) if present else None

    def _wire(self, uuid: str, *, same_question: bool) -> ReviewPair:
        source = self.by_uuid[uuid]
        answer = source.meta.get("answer") if isinstance(source.meta, dict) else None
        return {
            "uuid": uuid,
            "question": _question(source),
            "answer": answer if isinstance(answer, str) else "",
            "same_question": same_question,
        }


def _question(source: DataSource) -> str:
    question = source.meta.get("question") if isinstance(source.meta, dict) else None
    return question if isinstance(question, str) and question.strip() else source.title


def not_offered() -> AppError:
    return AppError(
        ErrorCode.QA_PAIR_NOT_OFFERED,
        "This Q&A pair is not the question's own (its question is another one, or the answers did not quote it): "
        "leave out data_source_uuid to add a pair for this question, or pass the uuid of an item's qa_pair whose "
        "same_question is true",
    )
