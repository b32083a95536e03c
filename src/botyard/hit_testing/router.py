"""The owners' hit-testing endpoint: what answering would retrieve for a query."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.deps import AppRetriever, ReadDbSession
from botyard.hit_testing import service
from botyard.hit_testing.schemas import RetrieveRequest, RetrieveResponse
from botyard.identity.access import NotAudited, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import Permission

router = APIRouter(tags=["retrieval"])


@router.post(
    "/chatbot/{uuid}/retrieve",
    response_model=RetrieveResponse,
    dependencies=[requires(Permission.READ, NotAudited("a search"))],
)
async def retrieve(
    uuid: str, body: RetrieveRequest, db: ReadDbSession, account: CurrentAccount, retriever: AppRetriever
) -> RetrieveResponse:
    """Rank the chatbot's chunks for a query as answering would (hit testing), with each method's score."""
    return await service.retrieve(db, retriever, account, uuid, body)
