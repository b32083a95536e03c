"""Widget rules: the owner's settings over the defaults, which chatbots and sessions the public widget API opens,
and the conversation as the widget shows it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import ratelimit
from botyard.chat.access import OPEN_VISIBILITIES
from botyard.chat.feedback import service as feedback
from botyard.chat.feedback.schemas import Feedback
from botyard.chat.service import open_session as open_chat_session
from botyard.chat.service import session_with_chatbot
from botyard.chat.wire import citation_link
from botyard.chatbots.service import by_uuid as chatbot_by_uuid
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.chatbots.service import language as chatbot_language
from botyard.contacts import identities
from botyard.contacts import service as contacts
from botyard.db.base import iso
from botyard.errors import not_found
from botyard.i18n import direction, widget
from botyard.models import (
    Chatbot,
    ChatSession,
    Message,
    MessageKind,
    MessageMeta,
    MessageState,
    WidgetRole,
    WidgetSettings,
)
from botyard.widget.repository import WidgetSettingsRepository
from botyard.widget.schemas import (
    DEFAULTS,
    WidgetCitation,
    WidgetConfig,
    WidgetEntry,
    WidgetFeedbackCreate,
    WidgetSessionCreate,
    WidgetSettingsUpdate,
)
from botyard.widget.schemas import WidgetSettings as WidgetSettingsOut

_FIELDS = tuple(DEFAULTS)
_ROLE_OF_KIND = {
    MessageKind.LIVE_CHAT_START: WidgetRole.ANNOUNCEMENT,
    MessageKind.LIVE_CHAT_END: WidgetRole.ANNOUNCEMENT,
    MessageKind.OPERATOR: WidgetRole.OPERATOR,
}

_VISITOR_ROWS = (MessageKind.LIVE_CHAT_USER, MessageKind.CONTACT_FORM)
"""Rows of the visitor's words alone (no answer follows them)."""


@dataclass(frozen=True)
class OpenChatbot:
    """A chatbot the public widget API serves, with its widget settings (defaults filled in)."""

    chatbot: Chatbot
    settings: dict[str, Any]

    @property
    def allowed_origins(self) -> list[str]:
        return list(self.settings["allowed_origins"])


def _values(row: WidgetSettings | None) -> dict[str, Any]:
    if row is None:
        return {name: (list(value) if isinstance(value, list) else value) for name, value in DEFAULTS.items()}
    return {name: getattr(row, name) for name in _FIELDS}


async def get_settings(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> WidgetSettingsOut:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    row = await WidgetSettingsRepository(db).of_chatbot(chatbot.uuid)
    return _settings_out(chatbot.uuid, row)


async def update_settings(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: WidgetSettingsUpdate, now: datetime
) -> WidgetSettingsOut:
    """Change the given fields; the first update stores the defaults for the others."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    repository = WidgetSettingsRepository(db)
    row = await repository.of_chatbot(chatbot.uuid)
    given = body.given()
    for name in ("allowed_origins", "image_hosts", "suggested_questions"):
        if name in given:
            given[name] = list(dict.fromkeys(given[name]))  # normalised duplicates count once
    if row is None:
        row = await repository.add(
            WidgetSettings(chatbot_uuid=chatbot.uuid, **(_values(None) | given), modified_at=now)
        )
    else:
        row = await repository.update(row, given | {"modified_at": now})
    return _settings_out(chatbot.uuid, row)


def _settings_out(chatbot_uuid: str, row: WidgetSettings | None) -> WidgetSettingsOut:
    values = _values(row)
    return {
        "chatbot_uuid": chatbot_uuid,
        "allowed_origins": values["allowed_origins"],
        "title": values["title"],
        "primary_color": values["primary_color"],
        "background_color": values["background_color"],
        "text_color": values["text_color"],
        "welcome_message": values["welcome_message"],
        "suggested_questions": values["suggested_questions"],
        "placeholder": values["placeholder"],
        "image_hosts": values["image_hosts"],
        "modified_at": iso(row.modified_at) if row is not None else None,
    }


async def open_chatbot(db: AsyncSession, chatbot_uuid: str) -> OpenChatbot:
    """A public or hybrid chatbot; a private or missing one answers the same 404."""
    chatbot = await chatbot_by_uuid(db, chatbot_uuid)
    if chatbot is None or chatbot.visibility not in OPEN_VISIBILITIES:
        raise not_found("Chatbot")
    return OpenChatbot(chatbot, _values(await WidgetSettingsRepository(db).of_chatbot(chatbot.uuid)))


async def open_session(db: AsyncSession, session_uuid: str) -> tuple[ChatSession, OpenChatbot]:
    """A session of a public or hybrid chatbot (the session uuid is the capability); otherwise 404."""
    found = await session_with_chatbot(db, session_uuid)
    if found is None or found[1].visibility not in OPEN_VISIBILITIES:
        raise not_found("Session")
    session, chatbot = found
    return session, OpenChatbot(chatbot, _values(await WidgetSettingsRepository(db).of_chatbot(chatbot.uuid)))


async def config(db: AsyncSession, opened: OpenChatbot) -> WidgetConfig:
    """What the widget shows, in the chatbot's language: its own words, and the welcome message and placeholder
    while the owner keeps them at their (English) defaults."""
    settings, chatbot = opened.settings, opened.chatbot
    language = (await chatbot_language(db, chatbot)).language
    texts = widget(language)
    welcome, placeholder = settings["welcome_message"], settings["placeholder"]
    return {
        "chatbot_uuid": chatbot.uuid,
        "name": chatbot.name,
        "title": settings["title"] or chatbot.name,
        "primary_color": settings["primary_color"],
        "background_color": settings["background_color"],
        "text_color": settings["text_color"],
        "welcome_message": texts["welcome"] if welcome == DEFAULTS["welcome_message"] else welcome,
        "suggested_questions": settings["suggested_questions"],
        "placeholder": texts["placeholder"] if placeholder == DEFAULTS["placeholder"] else placeholder,
        "image_hosts": settings["image_hosts"],
        "show_citations": chatbot.show_citations,
        "language": language.value,
        "direction": direction(language),
        "texts": texts,
    }


async def create_session(
    db: AsyncSession, opened: OpenChatbot, body: WidgetSessionCreate, visitor: ratelimit.Visitor, now: datetime
) -> ChatSession:
    """A new session for a widget user, linked to its contact (the device's visitor, the email given). New sessions
    count against the chatbot's rate limit in a window of their own, per client address and under the anonymous
    ceiling, so a script cannot mint sessions without end."""
    await ratelimit.admit(db, opened.chatbot, ratelimit.for_new_sessions(opened.chatbot, visitor), now)
    session = await open_chat_session(db, opened.chatbot.uuid, now)
    await contacts.recognise(
        db,
        opened.chatbot.account_uuid,
        session,
        identities.visitor(opened.chatbot.uuid, body.device_id),
        now=now,
        name=body.name,
        email=body.email,
        page=body.page,
        attributes=body.attributes,
    )
    return session


async def give_feedback(
    db: AsyncSession,
    opened: OpenChatbot,
    session: ChatSession,
    message_uuid: str,
    body: WidgetFeedbackCreate,
    visitor: ratelimit.Visitor,
    now: datetime,
) -> Feedback:
    """The widget user's verdict on an answer of their session. Verdicts count against the chatbot's rate limit in
    a window of their own (like new sessions), so rating answers never uses up the messages a visitor may send, and a
    script cannot rewrite verdicts without end."""
    await ratelimit.admit(db, opened.chatbot, ratelimit.for_feedback(opened.chatbot, visitor), now)
    return await feedback.give(db, session, message_uuid, body.rating, body.comment, now)


def entries(messages: Sequence[Message], verdicts: Mapping[str, Feedback] | None = None) -> list[WidgetEntry]:
    """The conversation as the widget shows it: a stored exchange is a user line and an assistant line; live-chat
    rows are announcements, operator replies, or a user line alone. An assistant line carries the user's verdict on
    it (from `verdicts`, by message uuid), so a reloaded widget shows the thumb that was chosen."""
    verdicts = verdicts or {}
    shown: list[WidgetEntry] = []
    for message in messages:
        kind = MessageMeta.of(message).kind
        if message.query:
            shown.append(_entry(message, WidgetRole.USER, message.query))
        if kind is not None and kind in _ROLE_OF_KIND:
            shown.append(_entry(message, _ROLE_OF_KIND[kind], message.response))
        elif kind not in _VISITOR_ROWS and message.state != MessageState.STREAMING:
            entry = _entry(message, WidgetRole.ASSISTANT, message.response, _citations(message.cite_data))
            shown.append(entry | {"feedback": verdicts.get(message.uuid)})
    return shown


def _entry(
    message: Message, role: WidgetRole, text: str, citations: dict[str, WidgetCitation] | None = None
) -> WidgetEntry:
    entry: WidgetEntry = {
        "uuid": message.uuid,
        "role": role.value,
        "text": text,
        "citations": citations or {},
        "created_at": iso(message.created_at),
        "feedback": None,
    }
    if (name := MessageMeta.of(message).operator_name) is not None:
        entry["operator_name"] = name
    return entry


def _citations(cite_data: dict[str, Any]) -> dict[str, WidgetCitation]:
    return {marker: citation(entry) for marker, entry in cite_data.items() if isinstance(entry, dict)}


def citation(entry: dict[str, Any]) -> WidgetCitation:
    """A stored citation as the widget shows it, with its link (`chat.wire.citation_link`)."""
    return {"title": str(entry.get("title") or ""), "url": citation_link(entry), "type": str(entry.get("type") or "")}
