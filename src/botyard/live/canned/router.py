"""The account's canned replies (the owner's key or a signed-in person). Not in the hosted interface; designed in
its style."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.deps import DbSession, ReadDbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.live.canned import service
from botyard.live.canned.schemas import CannedReplyCreate, CannedReplyDeleted, CannedReplyOut, CannedReplyUpdate
from botyard.models import AuditAction, AuditObject, Permission

router = APIRouter(tags=["live chat"])

_EXISTS = error_responses({ErrorCode.CANNED_REPLY_EXISTS: "the account has a reply with this shortcut."})
_REPLY = error_responses({ErrorCode.NOT_FOUND: "no such canned reply, or another account's."})


@router.get("/canned-replies", response_model=list[CannedReplyOut], dependencies=[requires(Permission.READ)])
async def list_canned_replies(db: ReadDbSession, account: CurrentAccount) -> list[CannedReplyOut]:
    """The account's canned replies, by shortcut."""
    return await service.replies(db, account)


@router.post(
    "/canned-reply/create",
    response_model=CannedReplyOut,
    responses=_EXISTS,
    dependencies=[requires(Permission.LIVE, made(AuditObject.CANNED_REPLY))],
)
async def create_canned_reply(body: CannedReplyCreate, db: DbSession, account: CurrentAccount) -> CannedReplyOut:
    """Add a canned reply: its `shortcut` (`[a-z0-9_-]{1,64}`, unique in the account: 409 `canned_reply_exists`)
    and its text (`{{contact.name}}`, `{{contact.email}}`, `{{contact.phone}}` are filled in by the dashboard)."""
    return await service.create(db, account, body)


@router.post(
    "/canned-reply/{uuid}/update",
    response_model=CannedReplyOut,
    responses=_REPLY | _EXISTS,
    dependencies=[requires(Permission.LIVE, Audited(AuditObject.CANNED_REPLY, AuditAction.UPDATED))],
)
async def update_canned_reply(
    uuid: str, body: CannedReplyUpdate, db: DbSession, account: CurrentAccount
) -> CannedReplyOut:
    """Change a canned reply's shortcut or text (the fields given)."""
    return await service.update(db, account, uuid, body)


@router.post(
    "/canned-reply/{uuid}/delete",
    response_model=CannedReplyDeleted,
    responses=_REPLY,
    dependencies=[requires(Permission.LIVE, Audited(AuditObject.CANNED_REPLY, AuditAction.DELETED))],
)
async def delete_canned_reply(uuid: str, db: DbSession, account: CurrentAccount) -> CannedReplyDeleted:
    """Delete a canned reply."""
    return await service.delete(db, account, uuid)
