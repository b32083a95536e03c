"""The small generic base every repository builds on. SQL lives only in repositories."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import Base
from botyard.errors import not_found
from botyard.models.chatbot import Chatbot

M = TypeVar("M", bound=Base)


class Repository(Generic[M]):
    """Typed helpers over one table; feature repositories add their own account-scoped queries.

    A repository of something an account owns says how ownership reaches it in `owned_statement` (usually a join to
    the chatbot); `get_owned` then gives the object or the 404 a missing one gets, so another account's object
    answers exactly like a missing one, in one place.
    """

    model: type[M]
    noun: ClassVar[str] = "Object"
    """How a 404 names the object ("Chatbot not found")."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def one_or_none(self, statement: Select[M]) -> M | None:
        return (await self.session.execute(statement)).scalars().first()

    async def all(self, statement: Select[M]) -> Sequence[M]:
        return (await self.session.execute(statement)).scalars().all()

    def select(self) -> Select[M]:
        return select(self.model)

    async def get(self, key: Any) -> M | None:
        """The row with this primary key, whoever owns it (the caller has decided who may see it)."""
        return await self.session.get(self.model, key)

    def owned_statement(self, account_uuid: str, uuid: str) -> Select[Any]:
        """The select of the row `uuid` if the account owns it; repositories of owned tables override it."""
        raise NotImplementedError(f"{type(self).__name__} has no ownership rule")

    async def owned(self, account_uuid: str, uuid: str) -> M | None:
        return await self.one_or_none(self.owned_statement(account_uuid, uuid))

    async def get_owned(self, account_uuid: str, uuid: str) -> M:
        """The account's row, or the 404 a missing one gets (another account's row answers the same)."""
        found = await self.owned(account_uuid, uuid)
        if found is None:
            raise not_found(self.noun)
        return found

    async def add(self, obj: M) -> M:
        self.session.add(obj)
        await self.session.flush()
        return obj

    async def delete(self, obj: M) -> None:
        await self.session.delete(obj)
        await self.session.flush()

    async def update(self, obj: M, values: dict[str, Any]) -> M:
        for key, value in values.items():
            setattr(obj, key, value)
        await self.session.flush()
        return obj


class ChatbotPartRepository(Repository[M]):
    """A repository of rows that belong to a chatbot (a `chatbot_uuid` column): an account owns them through its
    chatbots."""

    def owned_statement(self, account_uuid: str, uuid: str) -> Select[Any]:
        part: Any = self.model
        return (
            select(part)
            .join(Chatbot, Chatbot.uuid == part.chatbot_uuid)
            .where(part.uuid == uuid, Chatbot.account_uuid == account_uuid)
        )
