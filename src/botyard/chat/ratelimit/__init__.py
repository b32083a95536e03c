"""The chatbot's rate limit: at most N accepted messages per caller in any S seconds (a sliding window), counted by
what the caller cannot reset.

- A caller with a key (the owner's own traffic) counts per session, as the hosted service limits the widget and
  not the owner's dashboard.
- A caller without a key (the widget, a keyless message to a public chatbot) counts per client network
  (`botyard.client_address`): a device id, a session or a connection is the client's to choose, so counting by
  them let one client rotate past any limit. Over all such callers together, a chatbot also takes at most
  `BOTYARD_ANONYMOUS_MESSAGES_PER_MINUTE` messages (and as many new sessions) a minute: the owner's LLM budget is
  bounded whatever the number of addresses.

The hits live in the database so that every worker process counts the same window. The check and the insert of
the new hit happen under a per-key lock inside the request's write transaction (see
`RateLimitRepository.lock_device`), and that transaction also stores the message: two workers can never both admit
the N+1th message, and a refused message leaves nothing behind (the transaction is rolled back by the 429).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated

from fastapi import Depends
from sqlalchemy.ext.asyncio import AsyncSession

from botyard import metrics
from botyard.chat.ratelimit.repository import RateLimitRepository
from botyard.deps import AppSettings, ClientNetwork
from botyard.errors import AppError, ErrorCode
from botyard.models import Chatbot, RateLimitHit

MAX_WINDOW = timedelta(seconds=360)
"""The longest window a chatbot may set: older hits can never count again and are deleted."""

CEILING_WINDOW = timedelta(seconds=60)


@dataclass(frozen=True)
class Visitor:
    """A caller without a key, as the limits see it."""

    network: str
    """Its address, or its IPv6 /64 (`client_address.client_network`)."""
    ceiling_per_minute: int
    """What one chatbot takes a minute from all anonymous callers together (0: no ceiling)."""


async def _visitor(network: ClientNetwork, settings: AppSettings) -> Visitor:
    # async: FastAPI would run a plain `def` in a worker thread (see `botyard.deps`)
    return Visitor(network, settings.anonymous_messages_per_minute)


CallingVisitor = Annotated[Visitor, Depends(_visitor)]
"""The request's caller as a visitor without a key (a handler with an optional key uses it only without one)."""


@dataclass(frozen=True)
class Window:
    """One sliding window: at most `limit` hits of `key` in any `span`."""

    key: str
    limit: int
    span: timedelta


def for_messages(chatbot: Chatbot, session_uuid: str, visitor: Visitor | None) -> list[Window]:
    """The windows a message counts in: the session's with a key, else the visitor's network's and the ceiling."""
    if visitor is None:
        return [_own(chatbot, f"session:{session_uuid}")]
    return _anonymous(chatbot, "message", visitor)


def for_new_sessions(chatbot: Chatbot, visitor: Visitor) -> list[Window]:
    """Starting a widget session counts apart from messages, with the same limits."""
    return _anonymous(chatbot, "new-session", visitor)


def for_feedback(chatbot: Chatbot, visitor: Visitor) -> list[Window]:
    return [_own(chatbot, f"feedback:{visitor.network}")]


def _own(chatbot: Chatbot, key: str) -> Window:
    return Window(key, chatbot.rate_limit_messages, timedelta(seconds=chatbot.rate_limit_seconds))


def _anonymous(chatbot: Chatbot, what: str, visitor: Visitor) -> list[Window]:
    windows = [_own(chatbot, f"{what}:{visitor.network}")]
    if visitor.ceiling_per_minute:
        windows.append(Window(f"{what}:anonymous", visitor.ceiling_per_minute, CEILING_WINDOW))
    return windows


async def admit(db: AsyncSession, chatbot: Chatbot, windows: list[Window], now: datetime) -> None:
    """Record one hit in every window, or raise 429 (with `Retry-After` and the chatbot's `rate_limit_message`)
    when any of them is full. Call it in the write transaction that stores what is admitted."""
    repository = RateLimitRepository(db)
    for window in windows:  # always in the same order, so two requests' locks cannot deadlock
        await repository.lock_device(chatbot.uuid, window.key)
        await repository.forget_before(chatbot.uuid, window.key, now - max(window.span, MAX_WINDOW))
        # The count and the insert in one statement; a window that is full raises, and the caller's transaction
        # (rolled back by the 429) takes the hits already inserted in the earlier windows with it.
        if not await repository.add_below(chatbot.uuid, window.key, now, now - window.span, window.limit):
            await _refuse_when_full(repository, chatbot, window, now)
            await repository.add(RateLimitHit(chatbot_uuid=chatbot.uuid, device=window.key, created_at=now))


async def check(db: AsyncSession, chatbot: Chatbot, windows: list[Window], now: datetime) -> None:
    """Raise the 429 `admit` would, without locking or writing: refuses a caller over the limit before any work
    (routing may call the model) is spent on its message. `admit` still decides."""
    repository = RateLimitRepository(db)
    for window in windows:
        await _refuse_when_full(repository, chatbot, window, now)


async def _refuse_when_full(repository: RateLimitRepository, chatbot: Chatbot, window: Window, now: datetime) -> None:
    times = await repository.times_since(chatbot.uuid, window.key, now - window.span)
    if len(times) < window.limit:
        return
    # The window admits again once enough of its hits have aged out: the (len - limit + 1)th oldest must go.
    frees_at = times[len(times) - window.limit] + window.span
    wait = max(1, math.ceil((frees_at - now).total_seconds()))
    message = chatbot.rate_limit_message or "Too many messages"
    metrics.rate_limited(ErrorCode.RATE_LIMITED.value, window_reason(window.key))
    raise AppError(ErrorCode.RATE_LIMITED, message, headers={"Retry-After": str(wait)})


def window_reason(key: str) -> str:
    """The full window, as the metrics name it: `session` (a keyed caller's), `address` (an anonymous caller's),
    `anonymous_ceiling` (all anonymous callers'), `feedback`, and for new widget sessions `new_session_address` and
    `new_session_anonymous_ceiling`."""
    what, _, who = key.partition(":")
    if what in ("session", "feedback"):
        return what
    window = "anonymous_ceiling" if who == "anonymous" else "address"
    return window if what == "message" else f"new_session_{window}"
