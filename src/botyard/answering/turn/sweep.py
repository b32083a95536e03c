"""Which process streams a message, and the start-up sweep of the `streaming` rows that processes left behind."""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat import conversation
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import Usage
from botyard.models import MessageMeta, MessageState

OTHER_HOST_STALE = timedelta(hours=1)
"""A `streaming` row of another machine is only taken for abandoned after this long (no stream lasts that long)."""


def stream_owner() -> str:
    """Which process streams a message: the start-up sweep leaves other live processes' streams alone."""
    return f"{socket.gethostname()}:{os.getpid()}"


async def sweep_streaming(db: AsyncSession, now: datetime) -> int:
    """At start-up: mark the messages left `streaming` by a process that is gone as complete and interrupted.

    A row names the process that streams it; rows of another live process on this host (a sibling uvicorn worker)
    are left alone, and so are recent rows of other machines (which this process cannot check). Rows of this very
    process id are leftovers of an earlier incarnation (a restarted container
    often gets the same pid): this process has not streamed anything yet.
    """
    host, _, _ = stream_owner().partition(":")
    swept = 0
    for message in await conversation.streaming_messages(db):
        stored = MessageMeta.of(message)
        owner_host, _, owner_pid = (stored.streaming_owner or "").partition(":")
        if owner_host == host and owner_pid.isdigit() and int(owner_pid) != os.getpid() and _alive(int(owner_pid)):
            continue
        if owner_host not in ("", host) and message.modified_at > now - OTHER_HOST_STALE:
            continue
        meta = stored.without("streaming_owner").with_values(interrupted=True)
        if not meta.counted:
            usage = Usage(max(1, count_tokens(message.query)), max(1, count_tokens(message.response)))
            meta = meta.with_values(actual_token_distribution=usage.as_dict())
        await conversation.update_message(db, message, {"state": MessageState.COMPLETE, "meta": meta.dump()})
        swept += 1
    return swept


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
