"""The account's canned replies (`canned_reply`, live's table)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, select

from botyard.db.repository import Repository
from botyard.models import CannedReply


class CannedReplyRepository(Repository[CannedReply]):
    model = CannedReply

    noun = "Canned reply"

    def owned_statement(self, account_uuid: str, uuid: str) -> Select[Any]:
        return select(CannedReply).where(CannedReply.uuid == uuid, CannedReply.account_uuid == account_uuid)

    async def of_account(self, account_uuid: str) -> Sequence[CannedReply]:
        """The account's replies, by shortcut."""
        statement = select(CannedReply).where(CannedReply.account_uuid == account_uuid)
        return await self.all(statement.order_by(CannedReply.shortcut))

    async def by_shortcut(self, account_uuid: str, shortcut: str) -> CannedReply | None:
        mine = CannedReply.account_uuid == account_uuid
        return await self.one_or_none(select(CannedReply).where(mine, CannedReply.shortcut == shortcut))
