"""Agents through the API and in the database."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Agent, AgentDataSource, ToolFunction
from tests.support.api import Api
from tests.support.database import Db


def make_agent(api: Api, bot: str, type_: str = "user-facing", name: str = "Helper", **fields: Any) -> Any:
    return api.ok(api.post(f"/chatbot/{bot}/agent/create", {"name": name, "type": type_, **fields}))


def count(db: Db, model: type[Agent] | type[ToolFunction] | type[AgentDataSource]) -> int:
    async def go(session: AsyncSession) -> int:
        return len((await session.execute(select(model))).scalars().all())

    return db.run(go)


SHIPPING = "Delivery times, parcels, tracking numbers and couriers."
PERSON = "Talk to a real person, a human operator, staff"


def agent(api: Api, bot: str, type_: str, name: str, description: str = "", **fields: Any) -> str:
    uuid: str = make_agent(api, bot, type_, name, description=description, **fields)["uuid"]
    api.ok(api.post(f"/agent/{uuid}/update", {"enabled": True}))
    return uuid


def disable_default(api: Api, bot: str) -> None:
    [general] = [a for a in api.ok(api.get(f"/chatbot/{bot}/agents")) if a["name"] == "General Q&A"]
    api.ok(api.post(f"/agent/{general['uuid']}/update", {"enabled": False}))


def set_agent_meta(db: Db, bot: str, **values: Any) -> None:
    async def go(session: AsyncSession) -> None:
        agent = (await session.execute(select(Agent).where(Agent.chatbot_uuid == bot))).scalars().one()
        await session.execute(update(Agent).where(Agent.uuid == agent.uuid).values(meta={**agent.meta, **values}))

    db.run(go)


def helpdesk(api: Api, **settings: Any) -> str:
    bot: str = api.chatbot()["uuid"]
    disable_default(api, bot)
    agent(api, bot, "user-facing", "Shipping", SHIPPING, use_all_sources=True)
    agent(api, bot, "human-escalation", "Human hand-off", PERSON, **settings)
    return bot
