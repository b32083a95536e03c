"""The account's canned replies: read by anyone of the team, written by those who answer conversations (`live`);
a shortcut is unique within the account (409 `canned_reply_exists`)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import iso
from botyard.errors import AppError, ErrorCode
from botyard.live.canned.repository import CannedReplyRepository
from botyard.live.canned.schemas import CannedReplyCreate, CannedReplyDeleted, CannedReplyOut, CannedReplyUpdate
from botyard.models import CannedReply


async def replies(db: AsyncSession, account_uuid: str) -> list[CannedReplyOut]:
    return [reply_to_wire(reply) for reply in await CannedReplyRepository(db).of_account(account_uuid)]


async def create(db: AsyncSession, account_uuid: str, body: CannedReplyCreate) -> CannedReplyOut:
    await _check_free(db, account_uuid, body.shortcut)
    reply = CannedReply(account_uuid=account_uuid, shortcut=body.shortcut, text=body.text)
    return reply_to_wire(await CannedReplyRepository(db).add(reply))


async def update(db: AsyncSession, account_uuid: str, uuid: str, body: CannedReplyUpdate) -> CannedReplyOut:
    repository = CannedReplyRepository(db)
    reply = await repository.get_owned(account_uuid, uuid)
    values = body.given()
    if "shortcut" in values and values["shortcut"] != reply.shortcut:
        await _check_free(db, account_uuid, values["shortcut"])
    return reply_to_wire(await repository.update(reply, values))


async def delete(db: AsyncSession, account_uuid: str, uuid: str) -> CannedReplyDeleted:
    repository = CannedReplyRepository(db)
    await repository.delete(await repository.get_owned(account_uuid, uuid))
    return {"uuid": uuid, "deleted": True}


async def _check_free(db: AsyncSession, account_uuid: str, shortcut: str) -> None:
    if await CannedReplyRepository(db).by_shortcut(account_uuid, shortcut) is not None:
        raise AppError(
            ErrorCode.CANNED_REPLY_EXISTS, f"The account has a canned reply /{shortcut}: choose another shortcut"
        )


def reply_to_wire(reply: CannedReply) -> CannedReplyOut:
    return {
        "uuid": reply.uuid,
        "shortcut": reply.shortcut,
        "text": reply.text,
        "created_at": iso(reply.created_at),
        "modified_at": iso(reply.modified_at),
    }
