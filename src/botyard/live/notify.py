"""Operators told by email: a visitor waits for a person, or left a message after hours.

The request that flags the conversation only queues an `operator_mail` job (in its own transaction, so a rolled-back
request emails nobody); the job reads the current state, writes the email and sends it through `botyard.mail`, so
an answer never waits for a mail server. A failure for now (the server is down, a 4xx) is retried with the runner's
backoff, up to `ATTEMPTS` times; a refusal for good (a 5xx, a bad sign-in) is not. Without a mail server
(`BOTYARD_SMTP_HOST`) the job sends nothing. At least once: a retry after a lost lease may send twice.
"""

from __future__ import annotations

import logging
from datetime import datetime
from enum import StrEnum

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.service import messages_by_uuids, session_with_chatbot
from botyard.chat.wire import one_line
from botyard.chatbots.handoff.service import handoff
from botyard.db.base import utcnow
from botyard.identity.users.availability import addresses_of_those_there
from botyard.jobs.handler import JobContext, PermanentError, RetryLater
from botyard.jobs.kinds import OperatorMail
from botyard.jobs.service import enqueue
from botyard.mail import Mail, Mailer, MailError, MailRefused
from botyard.models import Chatbot, ChatSession, MessageMeta

log = logging.getLogger(__name__)

ATTEMPTS = 8
"""With the runner's doubling backoff from 2 s, the last try comes about 4 minutes after the first."""
SUBJECT_CHARS = 120


class About(StrEnum):
    WAITING = "waiting"
    """A visitor asked for a person (inside office hours)."""
    CONTACT = "contact"
    """A visitor left an email address and a message through the after-hours form."""


async def recipients(db: AsyncSession, chatbot: Chatbot, now: datetime) -> list[str]:
    """Whom to email: the chatbot's notification addresses when it lists some, else the account's people who take
    conversations and are not away (none for an account of API keys only)."""
    listed = (await handoff(db, chatbot.uuid, now)).notify_emails
    return list(listed) if listed else await addresses_of_those_there(db, chatbot.account_uuid)


async def queue_mail(db: AsyncSession, session: ChatSession, about: About, message_uuid: str | None) -> None:
    """In the caller's transaction: an `operator_mail` job, when there is someone to email (`recipients`)."""
    found = await session_with_chatbot(db, session.uuid)
    if found is None or not await recipients(db, found[1], utcnow()):
        return
    payload = OperatorMail(session.uuid, about.value, message_uuid)
    await enqueue(db, payload, chatbot_uuid=session.chatbot_uuid, max_attempts=ATTEMPTS)


def conversation_link(public_url: str, chatbot_uuid: str, session_uuid: str) -> str:
    """The conversation in the dashboard's inbox."""
    return f"{public_url}/dashboard#/bot/{chatbot_uuid}/inbox/{session_uuid}"


async def compose(db: AsyncSession, payload: OperatorMail, public_url: str, now: datetime) -> Mail | None:
    """The email the job sends, from what is stored now; None when there is nobody to tell (the addresses were
    removed) or nothing to tell about (the conversation was deleted)."""
    found = await session_with_chatbot(db, payload.session_uuid)
    if found is None:
        return None
    session, chatbot = found
    emails = tuple(await recipients(db, chatbot, now))
    if not emails:
        return None
    message_uuid = payload.message_uuid or ""
    message = (await messages_by_uuids(db, [message_uuid])).get(message_uuid) if message_uuid else None
    question = message.query if message is not None else ""
    link = conversation_link(public_url, chatbot.uuid, session.uuid)
    name = one_line(chatbot.name)[:SUBJECT_CHARS]
    if payload.about == About.CONTACT and message is not None:
        email = str(MessageMeta.of(message).raw.get("email") or "")
        text = (
            f"A visitor of {name} left a message after hours.\n\nFrom: {email}\n\n{question}\n\nConversation: {link}\n"
        )
        return Mail(emails, f"Message left after hours: {name}", text, reply_to=email or None)
    asked = f"They asked:\n\n{question}\n\n" if question else ""
    text = f"A visitor of {name} is waiting for a person.\n\n{asked}Answer them in the inbox: {link}\n"
    return Mail(emails, f"A visitor is waiting: {name}", text)


class OperatorMailer:
    """Sends `operator_mail` jobs."""

    payload_type = OperatorMail
    timeout_seconds = 60.0

    def __init__(self, mailer: Mailer, public_url: str) -> None:
        self.mailer = mailer
        self.public_url = public_url

    async def run(self, ctx: JobContext[OperatorMail]) -> None:
        if not self.mailer.configured:
            log.info("no mail server is set (BOTYARD_SMTP_HOST): operator mail %s not sent", ctx.job_uuid)
            return
        mail = await ctx.read(lambda db: compose(db, ctx.payload, self.public_url, utcnow()))
        if mail is None:
            return
        try:
            await self.mailer.send(mail)
        except MailRefused as error:
            raise PermanentError(str(error)) from None
        except MailError as error:
            raise RetryLater(str(error)) from None

    async def give_up(self, session: AsyncSession, payload: OperatorMail, reason: str) -> None:
        """Nothing to record but the log line: the conversation is in the inbox all the same."""
        log.warning("operator mail for session %s not sent: %s", payload.session_uuid, reason)
