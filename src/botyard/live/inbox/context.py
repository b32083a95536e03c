"""What an operator sees beside a conversation: who writes (the contact), where (the channel, the page), their
other conversations on any channel, and for each of the bot's answers how sure it was and what it quoted."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.history.service import preview
from botyard.chat.service import get_owned_session, session_messages
from botyard.chat.wire import citation_link
from botyard.db.base import iso, utcnow
from botyard.live.inbox.filters import current_status
from botyard.live.inbox.repository import ContextRepository, Earlier
from botyard.live.inbox.schemas import Answer, Context, EarlierConversation, InboxContact, Source
from botyard.models import ChatSession, DataSource, Message, MessageMeta
from botyard.sources.service import in_chatbot

MAX_EARLIER = 20
UNSURE = frozenset({"low", "none"})
"""The confidences (`answering.offline.confidence.Confidence`) of an answer the bot was not sure of."""


async def context(db: AsyncSession, account_uuid: str, session_uuid: str) -> Context:
    session = await get_owned_session(db, account_uuid, session_uuid)
    reads = ContextRepository(db)
    contact = await reads.contact(session.contact_uuid) if session.contact_uuid else None
    channel = await reads.channel(session.channel_uuid) if session.channel_uuid else None
    earlier = await reads.earlier(account_uuid, contact.uuid, session.uuid, MAX_EARLIER) if contact is not None else []
    shown: InboxContact | None = None
    if contact is not None:
        shown = {"uuid": contact.uuid, "name": contact.name, "email": contact.email, "phone": contact.phone}
    return {
        "session_uuid": session.uuid,
        "contact": shown,
        "channel": {"type": channel[0], "name": channel[1]} if channel is not None else None,
        "visitor_page": session.visitor_page,
        "earlier": [_earlier(found) for found in earlier],
        "answers": await answers(db, session.chatbot_uuid, await session_messages(db, session.uuid)),
    }


def _earlier(found: Earlier) -> EarlierConversation:
    session: ChatSession = found.session
    return {
        "session_uuid": session.uuid,
        "chatbot_uuid": session.chatbot_uuid,
        "chatbot_name": found.chatbot_name,
        "channel_type": found.channel_type,
        "created_at": iso(session.created_at),
        "modified_at": iso(session.modified_at),
        "preview": preview(found.first_query),
        "status": current_status(session.status, session.snoozed_until, utcnow()),
    }


async def answers(db: AsyncSession, chatbot_uuid: str, messages: Sequence[Message]) -> list[Answer]:
    """The bot's answers (not the live chat's rows), oldest first: how sure each was, whether it refused, and the
    sources it used: the transcript's citations (title and link), then the sources an offline answer quoted without
    a citation marker (`meta_json.quoted_sources`)."""
    answered = [m for m in messages if MessageMeta.of(m).kind is None and m.query and m.response]
    quoted = {m.uuid: _quoted(m) for m in answered}
    known = {s.uuid: s for s in await in_chatbot(db, chatbot_uuid, sorted({u for q in quoted.values() for u in q}))}
    found: list[Answer] = []
    for message in answered:
        confidence = MessageMeta.of(message).raw.get("confidence")
        cited = _cited(message)
        named = {source["data_source_uuid"] for source in cited}
        more = [_source(known[uuid]) for uuid in quoted[message.uuid] if uuid in known and uuid not in named]
        found.append(
            {
                "message_uuid": message.uuid,
                "confidence": confidence if isinstance(confidence, str) else None,
                "unsure": bool(message.refused) or confidence in UNSURE,
                "refused": bool(message.refused),
                "sources": cited + more,
            }
        )
    return found


def _cited(message: Message) -> list[Source]:
    sources: list[Source] = []
    for entry in (message.cite_data or {}).values():
        if isinstance(entry, dict):
            title = entry.get("title") or entry.get("file_name") or ""
            uuid = entry.get("data_source_uuid")
            source = uuid if isinstance(uuid, str) and uuid else None
            sources.append({"data_source_uuid": source, "title": str(title), "url": citation_link(entry)})
    return sources


def _quoted(message: Message) -> list[str]:
    quoted = MessageMeta.of(message).raw.get("quoted_sources")
    items = quoted if isinstance(quoted, list) else []
    uuids = [item.get("data_source_uuid") for item in items if isinstance(item, dict)]
    return list(dict.fromkeys(uuid for uuid in uuids if isinstance(uuid, str)))


def _source(source: DataSource) -> Source:
    link = {"reference_source_link": source.meta.get("reference_source_link"), "type": source.type}
    return {
        "data_source_uuid": source.uuid,
        "title": source.title or source.file_name,
        "url": citation_link(link | {"file_name": source.file_name}),
    }
