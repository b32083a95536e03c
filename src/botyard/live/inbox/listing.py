"""The team's inbox of one chatbot: the conversations a filter picks (`filters.InboxFilter`), each with its status,
assignee, contact and the caller's unread count, ordered by who waits longest, and the counts of the tabs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.history.service import conversation_channel, preview
from botyard.chat.service import messages_by_uuids
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.live import channel_window
from botyard.live.inbox.filters import InboxFilter, current_status, waits_for_a_person
from botyard.live.inbox.repository import InboxRepository, Listed
from botyard.live.inbox.schemas import Inbox, InboxContact, InboxSession, Person
from botyard.models import ConversationStatus, SessionMeta


async def inbox(db: AsyncSession, account_uuid: str, chatbot_uuid: str, only: InboxFilter) -> Inbox:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    repository = InboxRepository(db)
    listed = await repository.listing(chatbot.uuid, only)
    counts = await repository.counts(chatbot.uuid, only)
    asked = {found.session.uuid: SessionMeta.of(found.session).human_requested_message for found in listed}
    queries = {uuid: m.query for uuid, m in (await messages_by_uuids(db, [a for a in asked.values() if a])).items()}
    windows = await channel_window.channels_of(db, [found.session for found in listed])
    entries = [
        (found, _entry(found, queries.get(asked[found.session.uuid] or ""), windows, only.now)) for found in listed
    ]
    sessions = triage(entries)
    return {
        "unread": sum(entry["unread"] for entry in sessions),
        "sessions": sessions,
        "counts": {"mine": counts.mine, "unassigned": counts.unassigned, "waiting": counts.waiting, "all": counts.all},
    }


def triage(entries: Sequence[tuple[Listed, InboxSession]]) -> list[InboxSession]:
    """Who waits longest first: those waiting for a person, the longest waiting first (ISO times sort as text);
    then the open ones whose customer's last message is unanswered, the oldest first; then the rest, the latest
    activity first (the order they came in)."""
    waiting = sorted((e for _, e in entries if e["waiting_since"]), key=lambda e: e["waiting_since"] or "")
    unanswered = [(found, e) for found, e in entries if _unanswered(e)]
    unanswered.sort(key=lambda pair: pair[0].unanswered_since or pair[0].session.modified_at)
    rest = [e for _, e in entries if not e["waiting_since"] and not _unanswered(e)]
    return waiting + [e for _, e in unanswered] + rest


def _unanswered(entry: InboxSession) -> bool:
    return (
        not entry["waiting_since"]
        and entry["status"] == ConversationStatus.OPEN
        and entry["unanswered_since"] is not None
    )


def _entry(
    found: Listed, asking: str | None, windows: dict[str, tuple[str, str | None]], now: datetime
) -> InboxSession:
    session, meta = found.session, SessionMeta.of(found.session)
    window = windows.get(session.uuid, (None, None))
    return {
        "uuid": session.uuid,
        "created_at": iso(session.created_at),
        "modified_at": iso(session.modified_at),
        "human_requested": session.human_requested,
        "live_chat": session.live_chat,
        "waiting_since": meta.human_requested_at if waits_for_a_person(session) else None,
        "preview": preview(asking or found.first_query),
        "unread": found.unread,
        "seen_at": _when(found.seen_at),
        "tags": meta.tags,
        "channel": conversation_channel(session),
        "channel_type": window[0],
        "channel_window_closes_at": window[1],
        "status": current_status(session.status, session.snoozed_until, now),
        "snoozed_until": _when(session.snoozed_until),
        "resolved_at": _when(session.resolved_at),
        "assignee": person(session.assignee_uuid, found.assignee_name),
        "contact": _contact(found.contact),
        "last_message_at": _when(found.last_message_at),
        "unanswered_since": _when(found.unanswered_since),
        "visitor_page": session.visitor_page,
    }


def person(uuid: str | None, name: str | None) -> Person | None:
    return {"uuid": uuid, "name": name or ""} if uuid is not None else None


def _contact(found: tuple[str, str, str, str] | None) -> InboxContact | None:
    if found is None:
        return None
    uuid, name, email, phone = found
    return {"uuid": uuid, "name": name, "email": email, "phone": phone}


def _when(moment: datetime | None) -> str | None:
    return iso(moment) if moment is not None else None
