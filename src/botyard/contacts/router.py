"""Contacts: the people who write to the account's chatbots, one person across every channel, with every
conversation they had. Not in the hosted interface; designed in its style (`GET` lists and reads,
`POST .../update`, `POST .../delete`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request

from botyard.contacts import erasure, service, views
from botyard.contacts.schemas import (
    ContactDeleted,
    ContactDetail,
    ContactExport,
    ContactList,
    ContactMerge,
    ContactUpdate,
)
from botyard.deps import AppClock, DbSession, ReadDbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import Audited, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import MAX_SQL_INTEGER

router = APIRouter(tags=["contacts"])


async def _erasers(request: Request) -> Sequence[erasure.Eraser]:
    erasers: Sequence[erasure.Eraser] = getattr(request.app.state, "contact_erasers", ())
    return erasers


Erasers = Annotated[Sequence[erasure.Eraser], Depends(_erasers)]
"""What the packages above `contacts` keep of a conversation and erase with it (`main` hands them over)."""

_MISSING = error_responses({ErrorCode.NOT_FOUND: "no such contact in this account."})


@router.get("/contacts", response_model=ContactList, dependencies=[requires(Permission.READ)])
async def list_contacts(
    db: ReadDbSession,
    account: CurrentAccount,
    q: Annotated[str, Query(max_length=200, description="Part of a name, an email address or a phone number.")] = "",
    limit: Annotated[int, Query(ge=1, le=200, description="At most this many contacts.")] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_SQL_INTEGER, description="Skip this many (the next page).")] = 0,
) -> ContactList:
    """The account's contacts whose name, email or phone holds `q` (any case), latest seen first, each with its
    identities, the channels it wrote on and its number of conversations; `total` counts every match."""
    return await views.page(db, account, q, limit, offset)


@router.get(
    "/contact/{uuid}", response_model=ContactDetail, dependencies=[requires(Permission.READ)], responses=_MISSING
)
async def get_contact(uuid: str, db: ReadDbSession, account: CurrentAccount) -> ContactDetail:
    """One contact with its identities and every conversation it had on any channel and chatbot of the account,
    latest activity first (chatbot, channel, status, message count, the start of the last message)."""
    return await views.detail(db, account, uuid)


@router.post(
    "/contact/{uuid}/update",
    response_model=ContactDetail,
    dependencies=[requires(Permission.LIVE, Audited(AuditObject.CONTACT, AuditAction.UPDATED))],
    responses=_MISSING
    | error_responses({ErrorCode.VALIDATION_ERROR: "a field is too long, or the phone is not international."}),
)
async def update_contact(uuid: str, body: ContactUpdate, db: DbSession, account: CurrentAccount) -> ContactDetail:
    """Change the name, email, phone (stored in E.164), note or attributes (replaced whole); what is not given stays.
    The identities stay as the channels gave them."""
    contact = await service.update(db, account, uuid, body.given())
    return await views.detail_of(db, contact)


@router.post(
    "/contact/{uuid}/merge",
    response_model=ContactDetail,
    dependencies=[requires(Permission.LIVE, Audited(AuditObject.CONTACT, AuditAction.MERGED))],
    responses=error_responses(
        {
            ErrorCode.NOT_FOUND: "either contact is not one of this account's.",
            ErrorCode.MERGE_WITH_ITSELF: "`contact_uuid` is this contact.",
        }
    ),
)
async def merge_contact(uuid: str, body: ContactMerge, db: DbSession, account: CurrentAccount) -> ContactDetail:
    """The contact `contact_uuid` joins this one: its identities and conversations move here, this one's empty
    fields are filled from it, and it is deleted. All or nothing."""
    contact = await service.merge(db, account, uuid, body.contact_uuid)
    return await views.detail_of(db, contact)


@router.post(
    "/contact/{uuid}/export",
    response_model=ContactExport,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CONTACT, AuditAction.EXPORTED))],
    responses=_MISSING,
)
async def export_contact(uuid: str, db: ReadDbSession, account: CurrentAccount, clock: AppClock) -> ContactExport:
    """Everything the account holds of the person (their right of access): the contact, its identities and every
    conversation with its messages. A POST, so that each export is a line of the audit log."""
    return await erasure.export(db, account, uuid, clock())


@router.post(
    "/contact/{uuid}/delete",
    response_model=ContactDeleted,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CONTACT, AuditAction.DELETED, "with conversations"))],
    responses=_MISSING,
)
async def delete_contact(uuid: str, db: DbSession, account: CurrentAccount, erasers: Erasers) -> ContactDeleted:
    """Erase the person (their right to erasure): the contact, its identities and every conversation it had, with
    the conversations' messages and what the channels kept of them (deliveries, replies, receipts). All or nothing."""
    return {"success": True, "conversations_deleted": await erasure.erase(db, account, uuid, erasers)}
