"""The chatbot's rate limit: at most N accepted messages per device in any S seconds (a sliding window).

The hits live in the database so that every worker process counts the same window. The check and the insert of
the new hit happen under a per-device lock inside the request's write transaction (see
`RateLimitRepository.lock_device`), and that transaction also stores the message: two workers can never both admit
the N+1th message, and a refused message leaves nothing behind (the transaction is rolled back by the 429).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.repository import RateLimitRepository
from botyard.errors import AppError, ErrorCode
from botyard.models import Chatbot, RateLimitHit

MAX_WINDOW = timedelta(seconds=360)
"""The longest window a chatbot may set: older hits can never count again and are deleted."""


def session_device(session_uuid: str) -> str:
    """API traffic has no device of its own: the session stands for it."""
    return f"session:{session_uuid}"


async def admit(db: AsyncSession, chatbot: Chatbot, device: str, now: datetime) -> None:
    """Record one message of `device`, or raise 429 with `Retry-After` and the chatbot's `rate_limit_message`."""
    repository = RateLimitRepository(db)
    await repository.lock_device(chatbot.uuid, device)
    window = timedelta(seconds=chatbot.rate_limit_seconds)
    await repository.forget_before(chatbot.uuid, device, now - max(window, MAX_WINDOW))
    times = await repository.times_since(chatbot.uuid, device, now - window)
    limit = chatbot.rate_limit_messages
    if len(times) >= limit:
        # The window admits again once enough of its hits have aged out: the (len - limit + 1)th oldest must go.
        frees_at = times[len(times) - limit] + window
        wait = max(1, math.ceil((frees_at - now).total_seconds()))
        message = chatbot.rate_limit_message or "Too many messages"
        raise AppError(429, ErrorCode.RATE_LIMITED, message, headers={"Retry-After": str(wait)})
    await repository.add(RateLimitHit(chatbot_uuid=chatbot.uuid, device=device, created_at=now))
