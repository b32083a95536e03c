"""What other features read of a chatbot's agents: the enabled ones with their sources and tool functions (the
answer pipeline and the background agents), and one agent's source scope (hit testing)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.repository import AgentRepository, ToolFunctionRepository
from botyard.agents.rules import BACKGROUND, ROUTED, USER_FACING
from botyard.errors import not_found
from botyard.models import Agent, ToolFunction


@dataclass(frozen=True)
class EnabledAgents:
    """A chatbot's enabled agents, oldest first, as loaded in one read transaction."""

    routed: list[Agent]
    """Those of which one answers each query."""
    background: list[Agent]
    sources: dict[str, list[str]] = field(default_factory=dict)
    """The selected sources of each routed agent that does not use all of them."""
    functions: dict[str, list[ToolFunction]] = field(default_factory=dict)
    """The enabled tool functions of each user-facing and background agent (loaded only when asked for)."""


async def enabled_agents(db: AsyncSession, chatbot_uuid: str, *, functions: bool = False) -> EnabledAgents:
    """The chatbot's enabled agents; with `functions`, the user-facing and background agents' enabled tool functions
    too (only an answerer that can call them needs them)."""
    repository = AgentRepository(db)
    everyone = [agent for agent in await repository.of_chatbot(chatbot_uuid) if agent.enabled]
    routed = [agent for agent in everyone if agent.type in ROUTED]
    background = [agent for agent in everyone if agent.type == BACKGROUND]
    own = [agent.uuid for agent in routed if agent.type == USER_FACING and not agent.use_all_sources]
    callers = [agent.uuid for agent in routed if agent.type == USER_FACING] + [agent.uuid for agent in background]
    return EnabledAgents(
        routed=routed,
        background=background,
        sources=await repository.data_sources(own) if own else {},
        functions=await enabled_functions(db, callers) if functions and callers else {},
    )


async def enabled_functions(db: AsyncSession, agent_uuids: list[str]) -> dict[str, list[ToolFunction]]:
    """The enabled tool functions of each of these agents."""
    stored = await ToolFunctionRepository(db).of_agents(agent_uuids)
    return {uuid: [function for function in found if function.enabled] for uuid, found in stored.items()}


async def source_scope(db: AsyncSession, account_uuid: str, chatbot_uuid: str, agent_uuid: str) -> list[str] | None:
    """The sources an agent of the chatbot answers from: None for all (`use_all_sources`), else its selection.
    An agent of another chatbot (or account) is a 404, like a missing one."""
    repository = AgentRepository(db)
    agent = await repository.owned(account_uuid, agent_uuid)
    if agent is None or agent.chatbot_uuid != chatbot_uuid:
        raise not_found("Agent")
    if agent.use_all_sources:
        return None
    return (await repository.data_sources([agent.uuid])).get(agent.uuid, [])
