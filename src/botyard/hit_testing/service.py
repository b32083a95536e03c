"""The owners' retrieve endpoint: ownership, an agent's source scope, and the wire shape of the hits."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.roster import source_scope
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.hit_testing.schemas import Decision, RetrievedChunk, RetrieveRequest, RetrieveResponse
from botyard.retrieval.base import Retrieval
from botyard.retrieval.relevance import Strictness, assess
from botyard.retrieval.retriever import Retriever


async def retrieve(
    db: AsyncSession, retriever: Retriever, account_uuid: str, chatbot_uuid: str, body: RetrieveRequest
) -> RetrieveResponse:
    """What the chatbot (or one of its agents) would retrieve for a query, with the scores of each method."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    scope = await source_scope(db, account_uuid, chatbot.uuid, body.agent_uuid) if body.agent_uuid else None
    strictness = body.strictness or Strictness(chatbot.answer_strictness)
    retrieval = await retriever.retrieve(
        db,
        chatbot.uuid,
        body.query,
        source_uuids=scope,
        top_k=body.top_k,
        method=body.method,
        strictness=strictness,
        explain=True,
    )
    return to_wire(retrieval, body, strictness)


def to_wire(retrieval: Retrieval, body: RetrieveRequest, strictness: Strictness) -> RetrieveResponse:
    chunks = [
        RetrievedChunk(
            uuid=hit.chunk_uuid,
            data_source_uuid=hit.data_source_uuid,
            title=hit.source_title,
            heading=hit.heading,
            text=hit.text,
            score=hit.score,
            scores=hit.scores,
            coverage=round(hit.coverage, 4),
        )
        for hit in retrieval.hits
    ]
    assessment = retrieval.assessment or assess([], strictness)
    decision = Decision(
        relevant=assessment.relevant,
        reason=assessment.reason,
        score=assessment.score,
        required=assessment.required,
        similarity=round(assessment.evidence.similarity, 4) if assessment.evidence else None,
        coverage=round(assessment.evidence.coverage, 4) if assessment.evidence else None,
        best_chunk=retrieval.hits[assessment.best].chunk_uuid if assessment.best is not None else None,
        explanation=assessment.explanation,
    )
    method = retrieval.method or body.method
    return RetrieveResponse(relevant=retrieval.relevant, decision=decision, method=method, chunks=chunks)
