"""A chatbot's hand-off settings (the owner's key): who is emailed when a visitor asks for a person, and the office
hours outside of which no person is promised. Not in the hosted interface; designed in its style."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.chatbots.handoff import service
from botyard.chatbots.handoff.schemas import Notifications, NotificationsUpdate, OfficeHours, OfficeHoursUpdate
from botyard.db.base import utcnow
from botyard.deps import AppSettings, DbSession, ReadDbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import Audited, requires
from botyard.identity.caller import CurrentAccount
from botyard.mail import mail_status
from botyard.models import AuditAction, AuditObject, Permission

router = APIRouter(tags=["live chat"])

_CHATBOT = error_responses({ErrorCode.NOT_FOUND: "no such chatbot, or another account's."})


@router.get(
    "/chatbot/{uuid}/office-hours",
    response_model=OfficeHours,
    responses=_CHATBOT,
    dependencies=[requires(Permission.READ)],
)
async def get_office_hours(uuid: str, db: ReadDbSession, account: CurrentAccount) -> OfficeHours:
    """The chatbot's office hours (off until set: a person is always promised), and whether it is open now."""
    return await service.office_hours(db, account, uuid, utcnow())


@router.post(
    "/chatbot/{uuid}/office-hours",
    response_model=OfficeHours,
    responses=_CHATBOT,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.SETTING, AuditAction.UPDATED, "office hours"))],
)
async def update_office_hours(
    uuid: str, body: OfficeHoursUpdate, db: DbSession, account: CurrentAccount
) -> OfficeHours:
    """Change any of `enabled`, `timezone`, `week` (replaced whole) and `after_hours_message`. Outside the hours, a
    visitor who asks for a person gets the after-hours message and a form for an email address and a message."""
    return await service.update_office_hours(db, account, uuid, body, utcnow())


@router.get(
    "/chatbot/{uuid}/notifications",
    response_model=Notifications,
    responses=_CHATBOT,
    dependencies=[requires(Permission.READ)],
)
async def get_notifications(
    uuid: str, db: ReadDbSession, account: CurrentAccount, settings: AppSettings
) -> Notifications:
    """The addresses emailed when a visitor asks for a person or leaves a message after hours, and whether this
    service sends mail at all (`mail_configured`)."""
    return await service.notifications(db, account, uuid, mail_status(settings))


@router.post(
    "/chatbot/{uuid}/notifications",
    response_model=Notifications,
    responses=_CHATBOT,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.SETTING, AuditAction.UPDATED, "notifications"))],
)
async def update_notifications(
    uuid: str, body: NotificationsUpdate, db: DbSession, account: CurrentAccount, settings: AppSettings
) -> Notifications:
    """Replace the notification addresses (at most 20; an invalid address is a 422 `validation_error`)."""
    return await service.update_notifications(db, account, uuid, body, mail_status(settings), utcnow())
