"""The wire forms of agents and tool functions: exact keys, `enabled` as 0/1 (or a boolean where the hosted service
answers one), and the type-dependent keys of an agent's meta."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents import headers, rules
from botyard.agents.function_schemas import ToolFunction as ToolFunctionOut
from botyard.agents.repository import AgentRepository, ToolFunctionRepository
from botyard.agents.schemas import Agent as AgentOut
from botyard.agents.schemas import AgentBase, AgentListed, AgentUpdated, HumanEscalationSettings, Variable
from botyard.agents.schemas import AgentMeta as AgentMetaOut
from botyard.db.base import iso
from botyard.llm.catalogue import DEFAULT_MODEL
from botyard.models import Agent, AgentMeta, ToolFunction


def function_out(function: ToolFunction) -> ToolFunctionOut:
    """A tool function as every reply shows it, to every role: its header values masked (`agents/headers.py`)."""
    return {
        "uuid": function.uuid,
        "name": function.name,
        "description": function.description,
        "enabled": int(function.enabled),
        "external_url": function.external_url,
        "method": function.method,
        "headers": headers.shown(function.headers or {}),  # names only: a value is a credential
        "meta": function.meta,
        "parameters": function.parameters,
        "created_at": iso(function.created_at),
        "modified_at": iso(function.modified_at),
    }


def meta_out(agent: Agent) -> AgentMetaOut:
    stored = AgentMeta.of(agent).raw  # the stored values as they are: the wire shows them unchanged
    meta: AgentMetaOut = {
        "model": stored.get("model", DEFAULT_MODEL),
        "temperature": stored.get("temperature", rules.DEFAULT_TEMPERATURE),
    }
    if rules.applies("use_all_sources", agent.type):
        meta["use_all_sources"] = agent.use_all_sources
    if rules.applies("bias", agent.type) and "bias" in stored:
        meta["bias"] = stored["bias"]
    if rules.applies("stickness", agent.type) and "stickness" in stored:
        meta["stickness"] = stored["stickness"]
    if agent.type in rules.DEFAULT_MESSAGES:
        meta["default_message"] = stored.get("default_message", rules.DEFAULT_MESSAGES[agent.type])
    if rules.applies("choices", agent.type) and "choices" in stored:  # our own key: shown only once set
        meta["choices"] = stored["choices"]
    if rules.applies("tags", agent.type):
        meta["tags"] = stored.get("tags", [])
    return meta


def human_escalation_settings(agent: Agent) -> HumanEscalationSettings:
    merged: dict[str, Any] = {**rules.DEFAULT_HUMAN_ESCALATION_SETTINGS, **(agent.human_escalation_settings or {})}
    return cast(HumanEscalationSettings, merged)


def _base(agent: Agent, sources: list[str], functions: list[ToolFunction]) -> AgentBase:
    base: AgentBase = {
        "uuid": agent.uuid,
        "name": agent.name,
        "type": agent.type,
        "description": agent.description,
        "prompt": agent.prompt,
        "created_at": iso(agent.created_at),
        "modified_at": iso(agent.modified_at),
        "data_source_uuids": sources,
        "meta": meta_out(agent),
        "tool_functions": [function_out(function) for function in functions],
    }
    if agent.type == rules.HUMAN_ESCALATION:
        base["human_escalation_settings"] = human_escalation_settings(agent)
    return base


async def _bases(db: AsyncSession, agents: Sequence[Agent]) -> list[AgentBase]:
    """The shared part of each agent's wire form; sources and tool functions read in one query each."""
    uuids = [agent.uuid for agent in agents]
    sources = await AgentRepository(db).data_sources(uuids)
    functions = await ToolFunctionRepository(db).of_agents(uuids)
    return [_base(agent, sources.get(agent.uuid, []), functions.get(agent.uuid, [])) for agent in agents]


def _variables(agent: Agent) -> list[Variable]:
    return cast(list[Variable], agent.variables or [])


async def listed(db: AsyncSession, agents: Sequence[Agent]) -> list[AgentListed]:
    """As the list shows agents: no `variables`, `enabled` 0/1."""
    bases = await _bases(db, agents)
    return [{**base, "enabled": int(agent.enabled)} for base, agent in zip(bases, agents, strict=True)]


async def one(db: AsyncSession, agent: Agent) -> AgentOut:
    """As create and fetch show an agent: with `variables`, `enabled` 0/1."""
    (base,) = await _bases(db, [agent])
    return {**base, "enabled": int(agent.enabled), "variables": _variables(agent)}


async def updated(db: AsyncSession, agent: Agent) -> AgentUpdated:
    """As the update answers: with `variables`, `enabled` a boolean."""
    (base,) = await _bases(db, [agent])
    return {**base, "enabled": bool(agent.enabled), "variables": _variables(agent)}
