from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from botyard.chatbots import service
from botyard.chatbots.schemas import AnswerSettings, AnswerSettingsUpdate, Chatbot, ChatbotCreate, ChatbotUpdate
from botyard.deps import AppRetriever, DbSession
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success

router = APIRouter(tags=["chatbots"])


async def _new_chatbot_parts(request: Request) -> service.NewChatbotParts:
    parts: service.NewChatbotParts = request.app.state.new_chatbot_parts
    return parts


NewChatbotParts = Annotated[service.NewChatbotParts, Depends(_new_chatbot_parts)]
"""What a new chatbot starts with (`main` hands over the agents' function)."""


@router.post(
    "/chatbot/create", response_model=Chatbot, dependencies=[requires(Permission.MANAGE, made(AuditObject.CHATBOT))]
)
async def create_chatbot(
    body: ChatbotCreate, db: DbSession, account: CurrentAccount, parts: NewChatbotParts
) -> Chatbot:
    """Create a chatbot with its default "General Q&A" agent."""
    return service.to_wire(await service.create(db, account, body, parts))


@router.post(
    "/chatbot/{uuid}/update",
    response_model=Chatbot,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CHATBOT, AuditAction.UPDATED))],
)
async def update_chatbot(
    uuid: str, db: DbSession, account: CurrentAccount, body: ChatbotUpdate | None = None
) -> Chatbot:
    """Update a chatbot's name and settings; fields left out keep their value."""
    return service.to_wire(await service.update(db, account, uuid, body or ChatbotUpdate()))


@router.get("/chatbots", response_model=list[Chatbot], dependencies=[requires(Permission.READ)])
async def list_chatbots(db: DbSession, account: CurrentAccount) -> list[Chatbot]:
    """List the chatbots of the account, oldest first."""
    return [service.to_wire(chatbot) for chatbot in await service.list_owned(db, account)]


@router.get("/chatbot/{uuid}", response_model=Chatbot, dependencies=[requires(Permission.READ)])
async def get_chatbot(uuid: str, db: DbSession, account: CurrentAccount) -> Chatbot:
    """Fetch one chatbot."""
    return service.to_wire(await service.get_owned(db, account, uuid))


@router.delete(
    "/chatbot/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.CHATBOT, AuditAction.DELETED))],
)
async def delete_chatbot(uuid: str, db: DbSession, account: CurrentAccount, retriever: AppRetriever) -> Success:
    """Delete a chatbot with everything it owns: agents, sources, tags, sessions and messages."""
    await service.delete(db, account, uuid)
    await retriever.forget(db, uuid)  # its search index too
    return Success()


@router.get("/chatbot/{uuid}/answer-settings", response_model=AnswerSettings, dependencies=[requires(Permission.READ)])
async def get_answer_settings(uuid: str, db: DbSession, account: CurrentAccount) -> AnswerSettings:
    """How the chatbot decides whether its knowledge answers a question (hit testing shows the decision), and the
    language it speaks to its users."""
    return await service.answer_settings(db, await service.get_owned(db, account, uuid))


@router.post(
    "/chatbot/{uuid}/answer-settings",
    response_model=AnswerSettings,
    dependencies=[requires(Permission.MANAGE, Audited(AuditObject.SETTING, AuditAction.UPDATED, "answer settings"))],
)
async def set_answer_settings(
    uuid: str, db: DbSession, account: CurrentAccount, body: AnswerSettingsUpdate | None = None
) -> AnswerSettings:
    """Make the chatbot stricter or looser about what its knowledge covers (offline answerer), or set the language
    it speaks to its users; fields left out keep their value."""
    return await service.set_answer_settings(db, account, uuid, body or AnswerSettingsUpdate())
