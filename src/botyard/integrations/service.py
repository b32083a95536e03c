"""Zapier and Make: a message asked through the one answer pipeline, REST hooks subscribed and unsubscribed, the
latest messages polled, the account's email for the connection check.

A message is asked as the widget and the API ask one (`Pipeline.begin`, then the answer collected whole): in the
session given, which must be one of this chatbot's (another's, or another account's, is 404 like a missing one),
or in a new session of the chatbot. What comes back is the stored message with the hosted keys, and its session.

A subscription is an `integration_hook` row and a webhook of the chatbot's under the same uuid (`outbox.hooks`): its
events go out through the outbox as every webhook's do, signed (Standard Webhooks) and retried, in the transaction
of what they report. Unsubscribing deletes both.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.answering.pipeline import Pipeline
from botyard.answering.turn.records import Ask
from botyard.answering.wire import collect
from botyard.chat import service as chat
from botyard.chat.ratelimit import Visitor
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.db.session import Database
from botyard.egress import EgressClient
from botyard.errors import not_found
from botyard.identity.accounts import service as accounts
from botyard.integrations.repository import IntegrationHookRepository
from botyard.integrations.schemas import (
    HookSubscribe,
    HookSubscription,
    IntegrationMessage,
    IntegrationMessageCreate,
    PolledMessage,
)
from botyard.models import IntegrationHook, Webhook
from botyard.outbox import hooks
from botyard.outbox.signing import new_secret
from botyard.webhooks.service import check_url


async def ask(
    database: Database,
    answers: Pipeline,
    account_uuid: str,
    chatbot_uuid: str,
    body: IntegrationMessageCreate,
    visitor: Visitor,
    now: datetime,
) -> IntegrationMessage:
    """The question asked in its session (or a new one) and answered whole: the stored message and its session."""
    async with database.transaction() as db:
        session_uuid = await _session(db, account_uuid, chatbot_uuid, body.session_uuid, now)
    ask = Ask(session_uuid=session_uuid, query=body.query, account_uuid=account_uuid, visitor=visitor)
    run = await answers.begin(ask, events=False)
    await collect(run)
    async with database.transaction(write=False) as db:
        message = await chat.get_owned_message(db, account_uuid, run.prepared.message_uuid)
        shown = await chat.message_on_wire(db, message)
    return {**shown, "session_uuid": session_uuid}


async def _session(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, session_uuid: str | None, now: datetime
) -> str:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    if session_uuid is None:
        return (await chat.open_session(db, chatbot.uuid, now)).uuid
    found = await chat.get_session(db, session_uuid)
    if found is None or found.chatbot_uuid != chatbot.uuid:
        raise not_found("Session")
    return found.uuid


async def latest(db: AsyncSession, account_uuid: str, chatbot_uuid: str, limit: int) -> list[PolledMessage]:
    """The chatbot's latest answered messages, newest first, each with `id` (its uuid) for Zapier's dedupe."""
    found = await chat.latest_on_wire(db, account_uuid, chatbot_uuid, limit)
    return [{**shown, "session_uuid": session, "id": shown["uuid"]} for session, shown in found]


async def subscribe(
    db: AsyncSession, egress: EgressClient, account_uuid: str, chatbot_uuid: str, platform: str, body: HookSubscribe
) -> HookSubscription:
    """The platform subscribed to the event at its target URL (checked by the egress policy first, as a webhook's
    URL is: 422 `url_refused`)."""
    url = await check_url(egress, body.target_url)
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    hook = IntegrationHook(chatbot_uuid=chatbot.uuid, platform=platform, event=body.event, target_url=url)
    await IntegrationHookRepository(db).add(hook)
    webhook = Webhook(uuid=hook.uuid, chatbot_uuid=chatbot.uuid, url=url, events=[body.event], secret=new_secret())
    await hooks.add(db, webhook)
    return subscription(hook)


async def unsubscribe(db: AsyncSession, account_uuid: str, chatbot_uuid: str, platform: str, hook_uuid: str) -> None:
    """The subscription and its webhook deleted; another chatbot's, platform's or account's is 404."""
    repository = IntegrationHookRepository(db)
    hook = await repository.owned(account_uuid, hook_uuid)
    if hook is None or hook.chatbot_uuid != chatbot_uuid or hook.platform != platform:
        raise not_found("Subscription")
    webhook = await hooks.owned(db, account_uuid, hook.uuid)
    await hooks.delete(db, webhook)
    await repository.delete(hook)


async def subscriptions(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, platform: str
) -> list[HookSubscription]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return [subscription(hook) for hook in await IntegrationHookRepository(db).of_chatbot(chatbot.uuid, platform)]


def subscription(hook: IntegrationHook) -> HookSubscription:
    return {
        "id": hook.uuid,
        "uuid": hook.uuid,
        "platform": hook.platform,
        "event": hook.event,
        "target_url": hook.target_url,
        "created_at": iso(hook.created_at),
    }


async def email_of(db: AsyncSession, account_uuid: str) -> str:
    email = await accounts.email_of(db, account_uuid)
    if email is None:
        raise not_found("Account")
    return email
