"""The `channel_relay` job: live chat on a channel. While an operator has a channel's conversation, the bot is
silent (`channels.answering`), the customer's messages reach the inbox like a widget visitor's, and what the
operators write there (their replies, signed with their name, and the start and end announcements) is queued here
as a reply of the conversation, sent in its order like the bot's (`channels.sending`)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.channels.repository import ChannelRepository, ReplyRepository
from botyard.chat.service import get_session
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import ChannelRelay, ChannelSend
from botyard.jobs.service import enqueue
from botyard.models import ChannelReply, ChannelType


class ChannelRelayer:
    """Runs `channel_relay` jobs."""

    payload_type = ChannelRelay
    timeout_seconds = 60.0

    async def run(self, ctx: JobContext[ChannelRelay]) -> None:
        payload = ctx.payload
        await ctx.finish(lambda db: queue_relayed(db, payload.session_uuid, payload.message_uuid))

    async def give_up(self, session: AsyncSession, payload: ChannelRelay, reason: str) -> None:
        return None


async def queue_relayed(db: AsyncSession, session_uuid: str, message_uuid: str) -> None:
    """The live-chat row `message_uuid` as the next reply of its session's channel conversation."""
    session = await get_session(db, session_uuid)
    if session is None or session.channel_uuid is None:
        return
    channel = await ChannelRepository(db).get(session.channel_uuid)
    if channel is None:
        return
    conversation = f"{session.channel_thread}:{session.channel_user}"  # as `inbound.Said` names it
    replies = ReplyRepository(db)
    reply = ChannelReply(
        channel_uuid=channel.uuid,
        conversation=conversation,
        sequence=await replies.next_sequence(channel.uuid, conversation),
        session_uuid=session.uuid,
        message_uuid=message_uuid,
        recipient=session.channel_thread if channel.type == ChannelType.TELEGRAM else session.channel_user,
        thread=session.channel_thread,
    )
    await replies.add(reply)
    await enqueue(db, ChannelSend(reply.uuid), chatbot_uuid=channel.chatbot_uuid, max_attempts=1)
