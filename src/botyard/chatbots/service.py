"""Chatbot rules: defaults, the default agent, ownership."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.defaults import default_agent
from botyard.chatbots.repository import ChatbotRepository
from botyard.chatbots.schemas import AnswerSettings, ChatbotCreate, ChatbotSettings, ChatbotUpdate
from botyard.chatbots.schemas import Chatbot as ChatbotOut
from botyard.db.base import iso
from botyard.models import Chatbot
from botyard.retrieval.relevance import Strictness


def _columns(settings: ChatbotSettings) -> dict[str, Any]:
    values = settings.given()
    if "rate_limit" in values:
        values["rate_limit_messages"], values["rate_limit_seconds"] = values.pop("rate_limit")
    return values


async def get_owned(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Chatbot:
    """The account's chatbot, or the 404 a missing chatbot gets (another account's chatbot answers the same)."""
    return await ChatbotRepository(db).get_owned(account_uuid, chatbot_uuid)


async def create(db: AsyncSession, account_uuid: str, body: ChatbotCreate) -> Chatbot:
    """Create a chatbot and, in the same transaction, its enabled "General Q&A" agent."""
    repository = ChatbotRepository(db)
    chatbot = await repository.add(Chatbot(account_uuid=account_uuid, **_columns(body)))
    await repository.add_agent(default_agent(chatbot.uuid))
    return chatbot


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
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: AnswerSettings
) -> AnswerSettings:
    chatbot = await get_owned(db, account_uuid, chatbot_uuid)
    await ChatbotRepository(db).update(chatbot, {"answer_strictness": body.strictness.value})
    return answer_settings(chatbot)


def answer_settings(chatbot: Chatbot) -> AnswerSettings:
    return AnswerSettings(strictness=Strictness(chatbot.answer_strictness))


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
