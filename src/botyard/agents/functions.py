"""Tool function rules: only user-facing and background agents have them; names are unique in their agent."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents import headers, rules
from botyard.agents.function_schemas import FunctionMeta, Parameters, ToolFunctionCreate, ToolFunctionUpdate
from botyard.agents.repository import AgentRepository, ToolFunctionRepository
from botyard.agents.service import get_owned as get_owned_agent
from botyard.errors import AppError, ErrorCode, validation_error
from botyard.models import Agent, ToolFunction


def _columns(body: ToolFunctionUpdate, stored_headers: dict[str, Any]) -> dict[str, Any]:
    """The given fields in their stored form (nested objects as plain JSON; a masked header value sent back as the
    reply showed it: the stored value it stands for)."""
    values = body.given()
    for key in ("parameters", "meta"):
        if key in values:
            values[key] = values[key].model_dump(mode="json")
    if "headers" in values:
        values["headers"] = headers.merged(values["headers"], stored_headers)
    return values


async def _require_free_name(db: AsyncSession, agent_uuid: str, name: str, keep: str | None = None) -> None:
    """409 when another tool function of the agent has this name. The agent is locked first, so two concurrent
    writes cannot both find the name free."""
    await AgentRepository(db).lock(agent_uuid)
    existing = await ToolFunctionRepository(db).named(agent_uuid, name)
    if existing is not None and existing.uuid != keep:
        raise AppError(ErrorCode.CONFLICT, f"The agent already has a tool function named {name!r}")


def _require_tool_type(agent: Agent) -> None:
    if agent.type not in rules.WITH_TOOL_FUNCTIONS:
        message = f"{agent.type} agents cannot have tool functions (only user-facing and background agents can)"
        raise validation_error(message, [{"field": "agent", "message": message, "type": "not_applicable"}])


async def get_owned(db: AsyncSession, account_uuid: str, function_uuid: str) -> ToolFunction:
    """The account's tool function, or the 404 a missing one gets (another account's answers the same)."""
    return await ToolFunctionRepository(db).get_owned(account_uuid, function_uuid)


async def create(db: AsyncSession, account_uuid: str, agent_uuid: str, body: ToolFunctionCreate) -> ToolFunction:
    agent = await get_owned_agent(db, account_uuid, agent_uuid)
    _require_tool_type(agent)
    await _require_free_name(db, agent.uuid, body.name)
    values = {
        "description": "",
        "parameters": Parameters().model_dump(mode="json"),
        "headers": {},
        "enabled": True,
        "method": "GET",
        "meta": FunctionMeta().model_dump(mode="json"),
        **_columns(body, {}),
    }
    return await ToolFunctionRepository(db).add(ToolFunction(agent_uuid=agent.uuid, **values))


async def update(db: AsyncSession, account_uuid: str, function_uuid: str, body: ToolFunctionUpdate) -> ToolFunction:
    """Partial update; `parameters`, `headers` and `meta` replace the stored objects when given."""
    function = await get_owned(db, account_uuid, function_uuid)
    values = _columns(body, function.headers or {})
    if "name" in values:
        await _require_free_name(db, function.agent_uuid, values["name"], keep=function.uuid)
    return await ToolFunctionRepository(db).update(function, values)


async def delete(db: AsyncSession, account_uuid: str, function_uuid: str) -> None:
    function = await get_owned(db, account_uuid, function_uuid)
    await ToolFunctionRepository(db).remove(function)
