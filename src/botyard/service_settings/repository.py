from __future__ import annotations

from typing import Any

from sqlalchemy import select

from botyard.db.repository import Repository
from botyard.models.instance_settings import SINGLETON, InstanceSettings


class InstanceSettingsRepository(Repository[InstanceSettings]):
    model = InstanceSettings

    async def current(self) -> InstanceSettings | None:
        return await self.get(SINGLETON)

    async def version(self) -> int:
        """The row's version alone (0 before anything was saved): the cheap check of `live`."""
        statement = select(InstanceSettings.version).where(InstanceSettings.id == SINGLETON)
        found = (await self.session.execute(statement)).scalar_one_or_none()
        return found or 0

    async def for_update(self) -> InstanceSettings | None:
        """The row, locked until the transaction ends (PostgreSQL; SQLite's write transaction already is)."""
        statement = select(InstanceSettings).where(InstanceSettings.id == SINGLETON).with_for_update()
        return await self.one_or_none(statement)

    async def save(
        self, row: InstanceSettings | None, values: dict[str, Any], secrets: dict[str, Any], **more: Any
    ) -> InstanceSettings:
        if row is None:
            return await self.add(InstanceSettings(id=SINGLETON, values=values, secrets=secrets, version=1, **more))
        return await self.update(row, {"values": values, "secrets": secrets, "version": row.version + 1, **more})
