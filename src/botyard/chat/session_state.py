"""What live chat changes of a session: its flags for operators (`SessionMeta`: a person asked for, an operator
having it), the inbox's read mark, and the team's work on it (status, assignee). `chat_session` is this package's
table, so `live` changes a session through these (on the row it loaded, written with the caller's transaction) and
never sets the row itself."""

from __future__ import annotations

from datetime import datetime

from botyard.db.base import iso
from botyard.models import ChatSession, ConversationStatus, SessionMeta


def store_meta(session: ChatSession, meta: SessionMeta) -> None:
    """Write the meta into the session (which keeps its flag columns in step with it)."""
    session.meta = meta.dump()


def flag(session: ChatSession, at: datetime, message_uuid: str | None = None) -> None:
    """Asking for a person since `at`, by the message `message_uuid` (when known)."""
    store_meta(session, SessionMeta.of(session).flagged(iso(at), message_uuid))


def dismiss_request(session: ChatSession) -> None:
    """An operator cleared the request without taking the session over."""
    store_meta(session, SessionMeta.of(session).dismissed())


def start_live_chat(session: ChatSession) -> None:
    store_meta(session, SessionMeta.of(session).live_started())


def end_live_chat(session: ChatSession) -> None:
    """Back with the AI: the live chat is over and the request for a person answered."""
    store_meta(session, SessionMeta.of(session).live_ended())


def mark_seen(session: ChatSession, at: datetime) -> None:
    """An operator opened the session at `at`: the visitor's messages until then are read."""
    session.operator_seen_at = at


def link_contact(session: ChatSession, contact_uuid: str, page: str = "") -> None:
    """The session is the contact's (`contacts.recognise`); `page`, the widget's page, is kept from the first time."""
    session.contact_uuid = contact_uuid
    if page and not session.visitor_page:
        session.visitor_page = page


def set_status(session: ChatSession, status: ConversationStatus, at: datetime, until: datetime | None = None) -> None:
    """A person set where the team's work stands: `until` only for snoozed; resolving stamps `resolved_at` (the
    team's resolution time), any other status clears it."""
    session.status = status.value
    session.snoozed_until = until if status is ConversationStatus.SNOOZED else None
    session.resolved_at = at if status is ConversationStatus.RESOLVED else None


def assign(session: ChatSession, user_uuid: str | None) -> None:
    """The person of the account who has the conversation (None: nobody); the caller checked they may take it."""
    session.assignee_uuid = user_uuid
