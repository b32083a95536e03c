"""What this service runs (the owner's key). Not in the hosted interface; designed in its style."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.about.schemas import ServiceInfo
from botyard.about.service import describe
from botyard.deps import AppRetriever
from botyard.identity.access import requires
from botyard.identity.caller import CurrentAccount
from botyard.models import Permission
from botyard.service_settings.live import Live

router = APIRouter(tags=["operations"])


@router.get("/service", response_model=ServiceInfo, dependencies=[requires(Permission.READ)])
async def service_info(account: CurrentAccount, live: Live, retriever: AppRetriever) -> ServiceInfo:
    """Which answerer is in use (`offline`, or `llm` with the model API's host and the model map) and which embedder,
    with the version: prompts, models, temperatures and tool functions take effect only with `llm`."""
    return describe(live.current, retriever.embedder)
