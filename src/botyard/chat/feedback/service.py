"""Feedback rules: which messages take a verdict, replacing it, and how it is shown (on a message and in the
owner's list)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.conversation import set_outcome
from botyard.chat.feedback.repository import FeedbackRepository
from botyard.chat.feedback.schemas import EXCERPT_LENGTH, Feedback, FeedbackEntry
from botyard.chat.repository import MessageRepository
from botyard.chat.wire import one_line
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.errors import not_found
from botyard.models import (
    ChatSession,
    ConversationOutcome,
    Message,
    MessageFeedback,
    MessageMeta,
    MessageState,
    OutcomeReason,
    Rating,
    WebhookEvent,
)
from botyard.outbox import events as webhooks


def rateable(message: Message) -> bool:
    """An answer the AI finished: not a live-chat row (an operator's reply, an announcement, a message that went to
    the operator), and not one still streaming."""
    return MessageMeta.of(message).kind is None and message.state != MessageState.STREAMING


async def give(
    db: AsyncSession, session: ChatSession, message_uuid: str, rating: Rating, comment: str, now: datetime
) -> Feedback:
    """Store the verdict on the session's answer `message_uuid`. A message of another session (or chatbot), a
    missing one and one that is no answer all answer the same 404: the session uuid opens its own answers only."""
    message = await MessageRepository(db).get(message_uuid)
    if message is None or message.session_uuid != session.uuid or not rateable(message):
        raise not_found("Message")
    await FeedbackRepository(db).put(message, session.chatbot_uuid, Rating(rating).value, comment, now)
    if Rating(rating) is Rating.DOWN:  # the conversation did not help (`answering.turn.outcomes`)
        await set_outcome(db, session.uuid, ConversationOutcome.UNRESOLVED, OutcomeReason.THUMBS_DOWN)
    data = {"session_uuid": session.uuid, "message_uuid": message.uuid, "rating": rating, "comment": comment}
    await webhooks.emit(db, session.chatbot_uuid, WebhookEvent.FEEDBACK, data, now)
    return {"rating": rating, "comment": comment, "created_at": iso(now)}


def feedback_to_wire(row: MessageFeedback) -> Feedback:
    return {
        "rating": Rating(row.rating),
        "comment": row.comment,
        "created_at": iso(row.created_at),
    }


async def feedback_of(db: AsyncSession, message_uuids: Sequence[str]) -> dict[str, Feedback]:
    """The verdicts on those of the messages that have one, by message uuid."""
    return {row.message_uuid: feedback_to_wire(row) for row in await FeedbackRepository(db).of_messages(message_uuids)}


def excerpt(text: str, length: int = EXCERPT_LENGTH) -> str:
    """The start of `text` on one line, at most `length` characters (an ellipsis says it goes on)."""
    flat = one_line(text)
    return flat if len(flat) <= length else flat[: length - 1].rstrip() + "…"


async def list_feedback(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, rating: Rating | None, limit: int, offset: int
) -> list[FeedbackEntry]:
    """The account's chatbot's rated answers, newest verdict first, optionally only those rated `rating`."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    rows = await FeedbackRepository(db).of_chatbot(chatbot.uuid, rating, limit, offset)
    return [
        {
            "message_uuid": message.uuid,
            "session_uuid": message.session_uuid,
            "query": message.query,
            "response_excerpt": excerpt(message.response),
            **feedback_to_wire(feedback),
        }
        for feedback, message in rows
    ]


async def thumbs_down(db: AsyncSession, chatbot_uuid: str, limit: int) -> list[tuple[MessageFeedback, Message]]:
    """The chatbot's answers rated down, with their verdicts, newest verdict first (the caller owns the chatbot)."""
    return await FeedbackRepository(db).of_chatbot(chatbot_uuid, Rating.DOWN.value, limit, 0)


async def verdicts_of(db: AsyncSession, message_uuids: Sequence[str]) -> dict[str, MessageFeedback]:
    """The verdict rows of those of the messages that have one, by message uuid."""
    return {row.message_uuid: row for row in await FeedbackRepository(db).of_messages(message_uuids)}
