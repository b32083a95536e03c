"""The small generic base every repository builds on. SQL lives only in repositories."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import Base

M = TypeVar("M", bound=Base)


class Repository(Generic[M]):
    """Typed helpers over one table; feature repositories add their own account-scoped queries."""

    model: type[M]

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def one_or_none(self, statement: Select[M]) -> M | None:
        return (await self.session.execute(statement)).scalars().first()

    async def all(self, statement: Select[M]) -> Sequence[M]:
        return (await self.session.execute(statement)).scalars().all()

    def select(self) -> Select[M]:
        return select(self.model)

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
