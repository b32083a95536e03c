"""The one way a browser session begins: password sign-in, single sign-on, an invitation accepted, a reset link and
the first account's setup all open theirs here, for the one lifetime (`BOTYARD_SESSION_DAYS`), and set its cookies.

The session is opened in the caller's transaction `db` (each flow has its own: the request's, or a brief one after
its checks); the cookies go on `response`, which is only sent if the handler returns, so a transaction that fails
sends no cookie of a session that does not exist. A flow that runs its transaction again (single sign-on, on a
race) sets the cookies again: they replace the first try's, never add a second pair.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from botyard.config import Settings
from botyard.identity.browser_sessions import cookies, sessions
from botyard.identity.browser_sessions.sessions import OpenedBrowserSession
from botyard.models import User

Opener = Callable[[AsyncSession, User], Awaitable[OpenedBrowserSession]]
"""What a flow that checks before it opens (sign-in, single sign-on) is handed: open `user`'s session in `db`."""


def lifetime(settings: Settings) -> timedelta:
    """How long a browser session lasts: its row's expiry and its cookies' `Max-Age`."""
    return timedelta(days=settings.session_days)


async def open_browser_session(
    db: AsyncSession, user: User, request: Request, response: Response, now: datetime
) -> OpenedBrowserSession:
    """Open a browser session for `user` in the transaction `db` and set its two cookies on `response`."""
    settings: Settings = request.app.state.settings
    opened = await sessions.start(db, user, now, lifetime(settings))
    cookies.set_session(response, request, token=opened.token, csrf=opened.csrf, expires_at=opened.expires_at, now=now)
    return opened


def opener(request: Request, response: Response, now: datetime) -> Opener:
    """`open_browser_session` for a flow that finds its user in a transaction of its own."""

    async def open_one(db: AsyncSession, user: User) -> OpenedBrowserSession:
        return await open_browser_session(db, user, request, response, now)

    return open_one
