"""Agent rules: type-specific settings, the one-per-chatbot types, source selection, ownership."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents import rules
from botyard.agents.repository import AgentRepository
from botyard.agents.schemas import AgentCreate, AgentUpdate, HumanEscalationSettingsUpdate, VariableInput
from botyard.chatbots.defaults import default_agent
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import utcnow
from botyard.errors import AppError, ErrorCode
from botyard.llm import catalogue
from botyard.models import Agent, AgentMeta, EscalationSettings
from botyard.sources.service import require_in_chatbot

_META_KEYS = ("model", "temperature", "bias", "stickness", "default_message", "choices", "tags")
_COLUMNS = ("name", "description", "prompt", "enabled", "use_all_sources")
_FLAGS = ("notifications_enabled", "sound_enabled")


async def add_default_agent(db: AsyncSession, chatbot_uuid: str) -> None:
    """A new chatbot's enabled "General Q&A" agent (`chatbots.defaults`), in the chatbot's transaction
    (`chatbots.service.create` is handed this)."""
    await AgentRepository(db).add(default_agent(chatbot_uuid))


def _meta_values(given: dict[str, Any]) -> dict[str, Any]:
    """The given settings that live in the agent's stored meta, in their stored form."""
    values = {key: given[key] for key in _META_KEYS if key in given}
    if "tags" in values:
        values["tags"] = [tag.model_dump() for tag in values["tags"]]
    return values


def _variables(variables: Sequence[VariableInput]) -> list[dict[str, Any]]:
    """Variables normalised with every key; `static` stored as the 0/1 the responses show."""
    stored = []
    for variable in variables:
        value = variable.model_dump()
        value["default_value"]["static"] = int(variable.default_value.static)
        stored.append(value)
    return stored


def _escalation_settings(
    current: dict[str, Any] | None, update: HumanEscalationSettingsUpdate | None
) -> dict[str, Any]:
    """The current settings (defaults for what is missing) with the given keys merged in."""
    settings = {**rules.DEFAULT_HUMAN_ESCALATION_SETTINGS, **(current or {})}
    for key, value in (update.given() if update else {}).items():
        settings[key] = int(value) if key in _FLAGS else value
    return settings


async def get_owned(db: AsyncSession, account_uuid: str, agent_uuid: str) -> Agent:
    """The account's agent, or the 404 a missing agent gets (another account's agent answers the same)."""
    return await AgentRepository(db).get_owned(account_uuid, agent_uuid)


async def escalation_settings(db: AsyncSession, chatbot_uuid: str) -> EscalationSettings:
    """The chatbot's human-escalation settings: its escalation agent's, over the defaults."""
    return EscalationSettings.of(await AgentRepository(db).escalation_settings(chatbot_uuid))


async def list_of_chatbot(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Sequence[Agent]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return await AgentRepository(db).of_chatbot(chatbot.uuid)


async def create(db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: AgentCreate) -> Agent:
    """A new agent, always disabled. Every check passes before anything is written."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    given = body.given()
    rules.require_applicable(body.type, given)
    repository = AgentRepository(db)
    if body.type in rules.ONE_PER_CHATBOT:
        await repository.lock_chatbot(chatbot.uuid)
        if await repository.count_of_type(chatbot.uuid, body.type):
            raise AppError(ErrorCode.AGENT_TYPE_LIMIT, f"A chatbot can have only one {body.type} agent")
    sources = await require_in_chatbot(db, chatbot.uuid, body.data_source_uuids or [])
    agent = Agent(
        chatbot_uuid=chatbot.uuid,
        name=body.name,
        type=body.type,
        description=body.description or "",
        prompt=body.prompt or "",
        enabled=False,
        use_all_sources=bool(body.use_all_sources),
        meta={**rules.initial_meta(body.type), **_meta_values(given)},
        variables=_variables(body.variables or []),
        human_escalation_settings=(
            _escalation_settings(None, body.human_escalation_settings) if body.type == rules.HUMAN_ESCALATION else None
        ),
    )
    await repository.add(agent)
    await repository.set_data_sources(agent.uuid, sources)
    return agent


async def update(db: AsyncSession, account_uuid: str, agent_uuid: str, body: AgentUpdate) -> Agent:
    """Partial update. `data_source_uuids` replaces the agent's own sources and leaves `use_all_sources` as it was;
    `variables` replaces the list; `human_escalation_settings` and the meta settings merge into the stored ones."""
    agent = await get_owned(db, account_uuid, agent_uuid)
    given = body.given()
    rules.require_applicable(agent.type, given)
    sources = given.get("data_source_uuids")
    if sources is not None:
        sources = await require_in_chatbot(db, agent.chatbot_uuid, sources)
    values = {key: given[key] for key in _COLUMNS if key in given}
    meta_values = _meta_values(given)
    if meta_values:
        values["meta"] = AgentMeta.of(agent).with_values(meta_values).dump()
    if "variables" in given:
        values["variables"] = _variables(given["variables"])
    if "human_escalation_settings" in given:
        values["human_escalation_settings"] = _escalation_settings(
            agent.human_escalation_settings, given["human_escalation_settings"]
        )
    repository = AgentRepository(db)
    if sources is not None:
        await repository.set_data_sources(agent.uuid, sources)
        # The selection lives in its own table, so the agent row's timestamp is moved by hand.
        values["modified_at"] = utcnow()
    return await repository.update(agent, values)


async def delete(db: AsyncSession, account_uuid: str, agent_uuid: str) -> None:
    agent = await get_owned(db, account_uuid, agent_uuid)
    await AgentRepository(db).remove(agent)


def model_names() -> list[str]:
    return catalogue.model_names()


def model_costs() -> dict[str, int]:
    return catalogue.model_costs()
