"""Zapier's and Make's routes, on the hosted service's paths (relative to `/api/v1`; Make's under `make-app`), with
the account's API key: a message asked and answered, REST hooks subscribed and unsubscribed, the latest messages
polled; and `GET /user`, which Make checks a connection with."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query

from botyard.answering.router import Answers
from botyard.chat.ratelimit import CallingVisitor
from botyard.deps import AppClock, AppDatabase, DbSession, Egress, ReadDbSession
from botyard.errors import ErrorCode, Responses, error_responses
from botyard.identity.access import Audited, NotAudited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.integrations import service
from botyard.integrations.schemas import (
    HookSubscribe,
    HookSubscription,
    IntegrationMessage,
    IntegrationMessageCreate,
    PolledMessage,
    UserInfo,
)
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success

router = APIRouter(tags=["zapier and make"])
PLATFORMS = {"zapier": "zapier", "make": "make-app"}
"""Each platform and its path segment on the hosted service."""
_ASKED = NotAudited("conversations themselves are not management changes: chatting, documents, live chat")
_RATE = error_responses({ErrorCode.RATE_LIMITED: "over the chatbot's rate limit: its `rate_limit_message`."})


@router.get("/user", response_model=UserInfo, dependencies=[requires(Permission.SELF)])
async def user(db: ReadDbSession, account: CurrentAccount) -> UserInfo:
    """The account the key belongs to, as `data.email` (what Make's connection check reads)."""
    return {"data": {"email": await service.email_of(db, account)}}


def _message_create(platform: str) -> Callable[..., Awaitable[IntegrationMessage]]:
    async def message_create(
        uuid: str,
        body: IntegrationMessageCreate,
        account: CurrentAccount,
        database: AppDatabase,
        answers: Answers,
        visitor: CallingVisitor,
        clock: AppClock,
    ) -> IntegrationMessage:
        return await service.ask(database, answers, account, uuid, body, visitor, clock())

    message_create.__doc__ = (
        f"Ask the chatbot from {platform.title()}: `query`, in the session `session_uuid` (one of this chatbot's) or "
        "a new one; answers the stored message (the keys of `/message/{uuid}`) with its `session_uuid`."
    )
    return message_create


def _subscribe(platform: str) -> Callable[..., Awaitable[HookSubscription]]:
    async def subscribe(
        uuid: str, body: HookSubscribe, db: DbSession, account: CurrentAccount, egress: Egress
    ) -> HookSubscription:
        return await service.subscribe(db, egress, account, uuid, platform, body)

    subscribe.__doc__ = (
        f"{platform.title()}'s REST hook subscribed: `event` POSTed to `target_url` (signed and retried as every "
        "webhook's deliveries are); answers the subscription, whose `id` unsubscribes it."
    )
    return subscribe


def _unsubscribe(platform: str) -> Callable[..., Awaitable[Success]]:
    async def unsubscribe(uuid: str, id: str, db: DbSession, account: CurrentAccount) -> Success:
        await service.unsubscribe(db, account, uuid, platform, id)
        return Success()

    unsubscribe.__doc__ = f"{platform.title()}'s REST hook `id` unsubscribed (its webhook deleted)."
    return unsubscribe


def _poll(platform: str) -> Callable[..., Awaitable[list[PolledMessage]]]:
    async def poll(
        uuid: str, db: ReadDbSession, account: CurrentAccount, limit: Annotated[int, Query(ge=1, le=100)] = 25
    ) -> list[PolledMessage]:
        return await service.latest(db, account, uuid, limit)

    poll.__doc__ = (
        f"{platform.title()}'s polling trigger: the chatbot's latest answered messages, newest first, each with `id` "
        "(its uuid, to deduplicate by) and `session_uuid`."
    )
    return poll


def _subscriptions(platform: str) -> Callable[..., Awaitable[list[HookSubscription]]]:
    async def subscriptions(uuid: str, db: ReadDbSession, account: CurrentAccount) -> list[HookSubscription]:
        return await service.subscriptions(db, account, uuid, platform)

    subscriptions.__doc__ = f"The chatbot's {platform.title()} subscriptions, oldest first."
    return subscriptions


def _routes(platform: str, segment: str) -> None:
    base = f"/chatbot/{{uuid}}/{segment}"
    added: list[tuple[str, str, Callable[..., Any], Any, Any, Responses]] = [
        ("POST", "/message/create", _message_create(platform), IntegrationMessage, _ASKED, _RATE),
        ("POST", "/subscribe", _subscribe(platform), HookSubscription, made(AuditObject.WEBHOOK, platform), {}),
        (
            "DELETE",
            "/unsubscribe/{id}",
            _unsubscribe(platform),
            Success,
            Audited(AuditObject.WEBHOOK, AuditAction.DELETED, f"{platform} subscription"),
            {},
        ),
        ("GET", "/poll", _poll(platform), list[PolledMessage], None, {}),
        ("GET", "/subscriptions", _subscriptions(platform), list[HookSubscription], None, {}),
    ]
    for method, path, endpoint, model, audits, responses in added:
        permission = Permission.CHAT if path == "/message/create" else Permission.MANAGE
        if method == "GET":
            permission = Permission.READ
        router.add_api_route(
            base + path,
            endpoint,
            methods=[method],
            response_model=model,
            responses=responses,
            dependencies=[requires(permission, audits)],
            name=f"{platform}_{endpoint.__name__}",
        )


for _platform, _segment in PLATFORMS.items():
    _routes(_platform, _segment)
