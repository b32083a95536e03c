"""The owners' retrieve endpoint: ownership, an agent's source scope, and the wire shape of the hits."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.repository import AgentRepository
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.errors import not_found
from botyard.retrieval.base import Retrieval
from botyard.retrieval.retriever import Retriever
from botyard.retrieval.schemas import RetrievedChunk, RetrieveRequest, RetrieveResponse


async def agent_scope(db: AsyncSession, account_uuid: str, chatbot_uuid: str, agent_uuid: str) -> list[str] | None:
    """The sources an agent of the chatbot answers from: None for all (`use_all_sources`), else its selection.
    An agent of another chatbot (or account) is a 404, like a missing one."""
    repository = AgentRepository(db)
    agent = await repository.owned(account_uuid, agent_uuid)
    if agent is None or agent.chatbot_uuid != chatbot_uuid:
        raise not_found("Agent")
    if agent.use_all_sources:
        return None
    return (await repository.data_sources([agent.uuid])).get(agent.uuid, [])


async def retrieve(
    db: AsyncSession, retriever: Retriever, account_uuid: str, chatbot_uuid: str, body: RetrieveRequest
) -> RetrieveResponse:
    """What the chatbot (or one of its agents) would retrieve for a query, with the scores of each method."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    scope = await agent_scope(db, account_uuid, chatbot.uuid, body.agent_uuid) if body.agent_uuid else None
    retrieval = await retriever.retrieve(
        db, chatbot.uuid, body.query, source_uuids=scope, top_k=body.top_k, method=body.method
    )
    return to_wire(retrieval, body)


def to_wire(retrieval: Retrieval, body: RetrieveRequest) -> RetrieveResponse:
    chunks = [
        RetrievedChunk(
            uuid=hit.chunk_uuid,
            data_source_uuid=hit.data_source_uuid,
            title=hit.source_title,
            heading=hit.heading,
            text=hit.text,
            score=hit.score,
            scores=hit.scores,
        )
        for hit in retrieval.hits
    ]
    return RetrieveResponse(relevant=retrieval.relevant, method=retrieval.method or body.method, chunks=chunks)
