"""A chatbot's hand-off settings: the owner's API over the defaults, and what the hand-off reads of them (whether a
person is promised now, what to say when not, whom to email)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.handoff import hours
from botyard.chatbots.handoff.repository import HandoffSettingsRepository
from botyard.chatbots.handoff.schemas import (
    Interval,
    Notifications,
    NotificationsUpdate,
    OfficeHours,
    OfficeHoursUpdate,
)
from botyard.chatbots.service import get_owned
from botyard.errors import validation_error
from botyard.models import HandoffSettings

DEFAULT_AFTER_HOURS_MESSAGE = (
    "Nobody from our team is available right now. Leave your email address and a message below, and we will "
    "write back as soon as we are in."
)


@dataclass(frozen=True)
class Handoff:
    """What a hand-off needs to know, read at once."""

    open: bool
    """A person is promised now (no office hours, or inside them)."""
    after_hours_message: str
    notify_emails: tuple[str, ...]
    hand_off_requests: bool = True
    """A request for a person is handed off even without a human-escalation agent (the owner's setting)."""


def _open(row: HandoffSettings | None, now: datetime) -> bool:
    if row is None or not row.office_hours_enabled:
        return True
    return hours.is_open(row.week, row.timezone, now)


async def handoff(db: AsyncSession, chatbot_uuid: str, now: datetime) -> Handoff:
    row = await HandoffSettingsRepository(db).of_chatbot(chatbot_uuid)
    message = (row.after_hours_message if row is not None else "") or DEFAULT_AFTER_HOURS_MESSAGE
    emails = tuple(row.notify_emails) if row is not None else ()
    requests = row.hand_off_requests if row is not None else True
    return Handoff(_open(row, now), message, emails, requests)


async def hands_off_requests(db: AsyncSession, chatbot_uuid: str) -> bool:
    """Whether a request for a person is handed off without a human-escalation agent (on until the owner says)."""
    row = await HandoffSettingsRepository(db).of_chatbot(chatbot_uuid)
    return row is None or row.hand_off_requests


async def _row(db: AsyncSession, chatbot_uuid: str, now: datetime) -> HandoffSettings:
    repository = HandoffSettingsRepository(db)
    row = await repository.of_chatbot(chatbot_uuid)
    if row is None:
        row = await repository.add(
            HandoffSettings(
                chatbot_uuid=chatbot_uuid,
                notify_emails=[],
                office_hours_enabled=False,
                timezone="UTC",
                week={},
                after_hours_message="",
                hand_off_requests=True,
                modified_at=now,
            )
        )
    return row


async def office_hours(db: AsyncSession, account_uuid: str, chatbot_uuid: str, now: datetime) -> OfficeHours:
    chatbot = await get_owned(db, account_uuid, chatbot_uuid)
    return _office_hours_out(chatbot.uuid, await HandoffSettingsRepository(db).of_chatbot(chatbot.uuid), now)


async def update_office_hours(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: OfficeHoursUpdate, now: datetime
) -> OfficeHours:
    """422 `validation_error` for an unknown time zone or a week that does not read (`hours.checked_week`)."""
    chatbot = await get_owned(db, account_uuid, chatbot_uuid)
    given = body.given()
    values: dict[str, object] = {"modified_at": now}
    try:
        if body.timezone is not None:
            values["timezone"] = hours.zone(body.timezone).key
        if body.week is not None:
            week = {str(day): [[i.start, i.end] for i in intervals] for day, intervals in body.week.items()}
            values["week"] = hours.checked_week(week)
    except hours.ScheduleError as error:
        raise validation_error(f"Invalid office hours: {error}") from None
    if body.enabled is not None:
        values["office_hours_enabled"] = body.enabled
    if body.hand_off_requests is not None:
        values["hand_off_requests"] = body.hand_off_requests
    if "after_hours_message" in given:
        values["after_hours_message"] = (body.after_hours_message or "").strip()
    repository = HandoffSettingsRepository(db)
    row = await repository.update(await _row(db, chatbot.uuid, now), values)
    return _office_hours_out(chatbot.uuid, row, now)


def _office_hours_out(chatbot_uuid: str, row: HandoffSettings | None, now: datetime) -> OfficeHours:
    week = row.week if row is not None else {}
    return {
        "chatbot_uuid": chatbot_uuid,
        "enabled": bool(row and row.office_hours_enabled),
        "timezone": row.timezone if row is not None else "UTC",
        "week": {day: [Interval(start=s, end=e) for s, e in week.get(day, [])] for day in hours.DAYS},
        "after_hours_message": (row.after_hours_message if row is not None else "") or DEFAULT_AFTER_HOURS_MESSAGE,
        "open_now": _open(row, now),
        "hand_off_requests": row.hand_off_requests if row is not None else True,
    }


async def notifications(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, mail: tuple[bool, str]
) -> Notifications:
    chatbot = await get_owned(db, account_uuid, chatbot_uuid)
    row = await HandoffSettingsRepository(db).of_chatbot(chatbot.uuid)
    return _notifications_out(chatbot.uuid, list(row.notify_emails) if row is not None else [], mail)


async def update_notifications(
    db: AsyncSession,
    account_uuid: str,
    chatbot_uuid: str,
    body: NotificationsUpdate,
    mail: tuple[bool, str],
    now: datetime,
) -> Notifications:
    chatbot = await get_owned(db, account_uuid, chatbot_uuid)
    emails = list(dict.fromkeys(str(email) for email in body.emails))  # the first of each, in the order given
    row = await HandoffSettingsRepository(db).update(
        await _row(db, chatbot.uuid, now), {"notify_emails": emails, "modified_at": now}
    )
    return _notifications_out(chatbot.uuid, list(row.notify_emails), mail)


def _notifications_out(chatbot_uuid: str, emails: list[str], mail: tuple[bool, str]) -> Notifications:
    configured, status = mail
    return {"chatbot_uuid": chatbot_uuid, "emails": emails, "mail_configured": configured, "mail_status": status}
