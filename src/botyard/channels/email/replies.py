"""A reply of an email conversation sent (the email branch of the `channel_send` job): in the thread of the
customer's latest mail of the conversation, and its `Message-ID` kept as the reply's receipt (`channel_receipt`),
so that the customer's answer to it finds its conversation (`threads`). An operator's live-chat reply goes the
same way, as a mail in the thread."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels.email import outgoing, threads
from botyard.channels.email.outgoing import Thread
from botyard.channels.render import Reply
from botyard.channels.repository import MailThreadRepository, ReceiptRepository
from botyard.config import Settings
from botyard.db.base import new_uuid
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import ChannelSend
from botyard.models import Channel, ChannelReply

TEST_SUBJECT = "A test message from Botyard"


class MailReplies:
    """Sends the email channels' replies."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def send(
        self,
        ctx: JobContext[ChannelSend],
        reply: ChannelReply,
        channel: Channel,
        secrets: Mapping[str, str],
        canonical: Reply,
        choices: Sequence[str],
    ) -> None:
        """The reply sent as a mail in its thread, and its receipt kept; `ProviderFailed` when it did not go."""
        thread = await ctx.read(partial(thread_of, reply=reply))
        address = secrets.get("address", "")
        message = outgoing.composed(reply.uuid, address, channel.name, thread, canonical, choices)
        await outgoing.send(outgoing.server_of(self.settings, secrets), message)
        receipt: dict[str, object] = {
            "uuid": new_uuid(),
            "channel_uuid": channel.uuid,
            "provider_id": outgoing.message_id(reply.uuid, address),
            "reply_uuid": reply.uuid,
            "conversation": reply.conversation,
        }
        await ctx.write(partial(_receipt, values=receipt))

    async def send_test(self, channel: Channel, secrets: Mapping[str, str], to: str, canonical: Reply) -> None:
        """A mail to `to` now, outside any thread (the dashboard's test message)."""
        thread = Thread(to, "", (), TEST_SUBJECT)
        message = outgoing.composed(new_uuid(), secrets.get("address", ""), channel.name, thread, canonical, ())
        await outgoing.send(outgoing.server_of(self.settings, secrets), message)


async def thread_of(db: AsyncSession, *, reply: ChannelReply) -> Thread:
    """Where the reply goes: to its recipient (or where its latest mail's `Reply-To` asked), answering the
    conversation's latest mail."""
    latest = await MailThreadRepository(db).latest(reply.channel_uuid, reply.conversation)
    details = latest.details if latest is not None else {}
    references = details.get("references") or []
    return Thread(
        to=str(details.get("reply_to") or reply.recipient),
        in_reply_to=str(details.get("message_id", "")),
        references=tuple(str(one) for one in references if isinstance(one, str)),
        subject=threads.subject_of_reply(str(details.get("subject", "")), reply.thread),
    )


async def _receipt(db: AsyncSession, *, values: dict[str, object]) -> None:
    await ReceiptRepository(db).add_new(values)  # a retry of the same reply keeps its one row
