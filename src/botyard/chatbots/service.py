"""Chatbot rules: defaults, what a new chatbot starts with, ownership, the knowledge version."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.repository import ChatbotRepository
from botyard.chatbots.schemas import (
    AnswerSettings,
    AnswerSettingsUpdate,
    ChatbotCreate,
    ChatbotSettings,
    ChatbotUpdate,
    LanguageSource,
)
from botyard.chatbots.schemas import Chatbot as ChatbotOut
from botyard.db.base import iso
from botyard.i18n import DEFAULT, Language, main_language
from botyard.models import Chatbot
from botyard.retrieval.language import SAMPLE
from botyard.retrieval.relevance import Strictness

KNOWLEDGE_SAMPLE = 64
"""Chunks read to tell the knowledge's language: a sample of every source (see `chunk_sample`), enough for a clear
majority, and one small query even for a knowledge base of 100,000 chunks."""
_DETECTED_KEPT = 4096
_detected: OrderedDict[tuple[str, int], Language | None] = OrderedDict()
"""The knowledge's language by (chatbot, knowledge version): the version changes with every change of the chunks, so
an entry never goes stale, and each process reads the sample once per version (when the language is first asked)."""


def _columns(settings: ChatbotSettings) -> dict[str, Any]:
    values = settings.given()
    if "rate_limit" in values:
        values["rate_limit_messages"], values["rate_limit_seconds"] = values.pop("rate_limit")
    return values


async def get_owned(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Chatbot:
    """The account's chatbot, or the 404 a missing chatbot gets (another account's chatbot answers the same)."""
    return await ChatbotRepository(db).get_owned(account_uuid, chatbot_uuid)


NewChatbotParts = Callable[[AsyncSession, str], Awaitable[None]]
"""What a new chatbot starts with, written by the owners of those tables in the chatbot's transaction (its default
agent: `agents.service.add_default_agent`, handed over by the app, since `agents` builds on this package)."""


async def create(db: AsyncSession, account_uuid: str, body: ChatbotCreate, parts: NewChatbotParts) -> Chatbot:
    """Create a chatbot and, in the same transaction, its parts (its enabled "General Q&A" agent)."""
    chatbot = await ChatbotRepository(db).add(Chatbot(account_uuid=account_uuid, **_columns(body)))
    await parts(db, chatbot.uuid)
    return chatbot


async def next_knowledge_version(db: AsyncSession, chatbot_uuid: str) -> int | None:
    """A new knowledge version of the chatbot, asked for by `sources` in the transaction that changes its chunks (the
    version is the key of every process's search index); None when the chatbot is gone."""
    return await ChatbotRepository(db).next_knowledge_version(chatbot_uuid)


async def update(db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: ChatbotUpdate) -> Chatbot:
    chatbot = await get_owned(db, account_uuid, chatbot_uuid)
    return await ChatbotRepository(db).update(chatbot, _columns(body))


async def by_uuid(db: AsyncSession, chatbot_uuid: str) -> Chatbot | None:
    """The chatbot, whoever owns it (the caller decides who may use it)."""
    return await ChatbotRepository(db).by_uuid(chatbot_uuid)


async def list_owned(db: AsyncSession, account_uuid: str) -> Sequence[Chatbot]:
    return await ChatbotRepository(db).of_account(account_uuid)


async def delete(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> None:
    chatbot = await get_owned(db, account_uuid, chatbot_uuid)
    await ChatbotRepository(db).remove(chatbot)


async def set_answer_settings(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: AnswerSettingsUpdate
) -> AnswerSettings:
    chatbot = await get_owned(db, account_uuid, chatbot_uuid)
    await ChatbotRepository(db).update(chatbot, body.columns())
    return await answer_settings(db, chatbot)


async def answer_settings(db: AsyncSession, chatbot: Chatbot) -> AnswerSettings:
    spoken = await language(db, chatbot)
    return AnswerSettings(
        strictness=Strictness(chatbot.answer_strictness),
        language=Language(chatbot.language) if chatbot.language else None,
        effective_language=spoken.language,
        language_source=spoken.source,
    )


@dataclass(frozen=True)
class SpokenLanguage:
    language: Language
    source: LanguageSource


async def language(db: AsyncSession, chatbot: Chatbot) -> SpokenLanguage:
    """The language the chatbot speaks to its users: its setting, else the main language of its knowledge, else
    English.

    Detected when asked rather than stored at ingestion: a chatbot's knowledge changes in many places (each source's
    ingestion, re-syncs, deletes), all of which already bump its knowledge version, so a cache by that version is
    always current and needs no code in any of them.
    """
    if chatbot.language:
        return SpokenLanguage(Language(chatbot.language), LanguageSource.SETTING)
    key = (chatbot.uuid, chatbot.knowledge_version)
    if key in _detected:
        _detected.move_to_end(key)
        found = _detected[key]
    else:
        found = main_language(await ChatbotRepository(db).chunk_sample(chatbot.uuid, KNOWLEDGE_SAMPLE, SAMPLE))
        _detected[key] = found
        if len(_detected) > _DETECTED_KEPT:
            _detected.popitem(last=False)
    if found is None:
        return SpokenLanguage(DEFAULT, LanguageSource.DEFAULT)
    return SpokenLanguage(found, LanguageSource.KNOWLEDGE)


def to_wire(chatbot: Chatbot) -> ChatbotOut:
    return {
        "uuid": chatbot.uuid,
        "name": chatbot.name,
        "created_at": iso(chatbot.created_at),
        "modified_at": iso(chatbot.modified_at),
        "meta": {
            "rate_limit": [chatbot.rate_limit_messages, chatbot.rate_limit_seconds],
            "rate_limit_message": chatbot.rate_limit_message,
            "show_citations": chatbot.show_citations,
            "visibility": chatbot.visibility,
        },
    }
