from __future__ import annotations

from fastapi import APIRouter

from botyard.deps import DbSession
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success
from botyard.sources.tags import service
from botyard.sources.tags.schemas import SourceTag, TagCreate, TagUpdate

router = APIRouter(tags=["source tags"])


@router.post(
    "/chatbot/{uuid}/source-tag/create",
    response_model=SourceTag,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.TAG))],
)
async def create_tag(uuid: str, body: TagCreate, db: DbSession, account: CurrentAccount) -> SourceTag:
    """Create a source tag grouping some of the chatbot's data sources."""
    return await service.to_wire(db, await service.create(db, account, uuid, body))


@router.get("/chatbot/{uuid}/source-tags", response_model=list[SourceTag], dependencies=[requires(Permission.READ)])
async def list_tags(uuid: str, db: DbSession, account: CurrentAccount) -> list[SourceTag]:
    """List a chatbot's source tags, oldest first."""
    return await service.to_wire_many(db, await service.list_of_chatbot(db, account, uuid))


@router.get("/source-tag/{uuid}", response_model=SourceTag, dependencies=[requires(Permission.READ)])
async def get_tag(uuid: str, db: DbSession, account: CurrentAccount) -> SourceTag:
    """Fetch one source tag."""
    return await service.to_wire(db, await service.get_owned(db, account, uuid))


@router.post(
    "/source-tag/{uuid}/update",
    response_model=SourceTag,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.TAG, AuditAction.UPDATED))],
)
async def update_tag(uuid: str, db: DbSession, account: CurrentAccount, body: TagUpdate | None = None) -> SourceTag:
    """Update a tag's name, colour or sources; fields left out keep their value."""
    return await service.to_wire(db, await service.update(db, account, uuid, body or TagUpdate()))


@router.delete(
    "/source-tag/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.TAG, AuditAction.DELETED))],
)
async def delete_tag(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete a source tag (its data sources stay)."""
    await service.delete(db, account, uuid)
    return Success()
