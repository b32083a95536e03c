"""The browser sign-in sessions (`user_session`): SQL lives here only; `browser_sessions.sessions` is the one writer."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select

from botyard.db.repository import Repository
from botyard.models import User, UserSession


class BrowserSessionRepository(Repository[UserSession]):
    model = UserSession

    async def signed_in(self, token_hash: str, now: datetime) -> tuple[UserSession, User] | None:
        """The live session of this token and its person, in one indexed read (every cookie request makes it)."""
        statement = (
            select(UserSession, User)
            .join(User, User.uuid == UserSession.user_uuid)
            .where(UserSession.token_hash == token_hash, UserSession.expires_at > now)
        )
        row = (await self.session.execute(statement)).first()
        return None if row is None else (row[0], row[1])

    async def end(self, session_uuid: str) -> None:
        await self.session.execute(delete(UserSession).where(UserSession.uuid == session_uuid))

    async def end_all(self, user_uuid: str) -> int:
        result = await self.session.execute(delete(UserSession).where(UserSession.user_uuid == user_uuid))
        return int(getattr(result, "rowcount", 0) or 0)

    async def end_expired(self, user_uuid: str, now: datetime) -> None:
        await self.session.execute(
            delete(UserSession).where(UserSession.user_uuid == user_uuid, UserSession.expires_at <= now)
        )
