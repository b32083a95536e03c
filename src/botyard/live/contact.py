"""After office hours, the hand-off offers a form instead of a person: the visitor leaves an email address and a
message. The offer and the message are the session's events (`contact_form_offered`, `contact_form_sent`), so the
widget asks whether a form is open (the last of the two decides), and operators' streams hear of both. A message
left is a transcript row (`MessageKind.CONTACT_FORM`), flags the conversation for the inbox, goes to the webhooks
(`contact_form_sent`) and, when the chatbot has notification addresses, by email (`notify`). One message per
offer: a visitor who wants to write again asks for a person again (each ask is a message the rate limit counts).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession
from typing_extensions import TypedDict

from botyard.chat import session_state
from botyard.chat.service import add_visitor_row
from botyard.contacts import service as contacts
from botyard.errors import AppError, ErrorCode
from botyard.live.notify import About, queue_mail
from botyard.live.repository import ChatbotEventRepository
from botyard.live.service import is_flagged, record
from botyard.models import ChatbotEventKind, ChatSession, Message, MessageKind

OFFERED = ChatbotEventKind.CONTACT_FORM_OFFERED
SENT = ChatbotEventKind.CONTACT_FORM_SENT


class ContactState(TypedDict):
    offered: bool
    """A form is open: the visitor asked for a person after hours and has not written yet."""
    sent: bool
    """The visitor's last form was sent."""


async def offer(db: AsyncSession, session: ChatSession, now: datetime, message_uuid: str) -> None:
    """The visitor's message `message_uuid` asked for a person after hours: a form is open."""
    await record(db, session, OFFERED, now, message_uuid=message_uuid)


async def state(db: AsyncSession, session_uuid: str) -> ContactState:
    last = await ChatbotEventRepository(db).last_of_session(session_uuid, (OFFERED, SENT))
    kind = last.kind if last is not None else None
    return {"offered": kind == OFFERED, "sent": kind == SENT}


async def leave(db: AsyncSession, session: ChatSession, email: str, message: str, now: datetime) -> Message:
    """Store the visitor's message and tell the operators; 409 `contact_form_closed` when no form is open."""
    if not (await state(db, session.uuid))["offered"]:
        raise AppError(ErrorCode.CONTACT_FORM_CLOSED, "No form is open in this conversation: ask for a person first")
    row = await add_visitor_row(db, session, message, MessageKind.CONTACT_FORM, now, email=email)
    await contacts.gave_email(db, session, email, now)
    if not is_flagged(session):
        session_state.flag(session, now, row.uuid)
    await record(db, session, SENT, now, message_uuid=row.uuid, email=email, message=message)
    await queue_mail(db, session, About.CONTACT, row.uuid)
    return row
