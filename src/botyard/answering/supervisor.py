"""Which agent answers a query. For now: the chatbot's first enabled user-facing agent (the default General Q&A).

Routing between several agents (descriptions, `bias`, `stickness`, pre-canned, spam-defense and human-escalation
agents) is a later step; it extends `choose_agent`, the one place the rest of the chat flow asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.repository import AgentRepository
from botyard.agents.rules import USER_FACING
from botyard.llm.catalogue import DEFAULT_MODEL
from botyard.models import Agent

DEFAULT_NO_ANSWER_MESSAGE = "Sorry, I cannot find related information in my reference documents."


@dataclass(frozen=True)
class ChosenAgent:
    """What answering needs of the agent, copied out of the database session that loaded it."""

    uuid: str
    name: str
    prompt: str
    model: str
    temperature: float
    source_uuids: list[str] | None
    """None: all the chatbot's sources (`use_all_sources`); otherwise only these (possibly none)."""
    no_answer_message: str = DEFAULT_NO_ANSWER_MESSAGE
    variables: dict[str, str] = field(default_factory=dict)


def _variables(agent: Agent, session_variables: dict[str, object]) -> dict[str, str]:
    values = {
        str(variable.get("name")): str((variable.get("default_value") or {}).get("content", ""))
        for variable in agent.variables or []
        if isinstance(variable, dict) and variable.get("name")
    }
    values.update({str(name): str(value) for name, value in session_variables.items()})
    return values


async def choose_agent(
    db: AsyncSession, chatbot_uuid: str, query: str, session_variables: dict[str, object] | None = None
) -> ChosenAgent | None:
    """The agent that answers `query`, or None when the chatbot has no enabled agent able to answer."""
    del query  # routing by the query comes with the supervisor
    repository = AgentRepository(db)
    candidates: Sequence[Agent] = [
        agent for agent in await repository.of_chatbot(chatbot_uuid) if agent.enabled and agent.type == USER_FACING
    ]
    if not candidates:
        return None
    agent = candidates[0]
    meta = agent.meta or {}
    sources = None if agent.use_all_sources else (await repository.data_sources([agent.uuid])).get(agent.uuid, [])
    no_answer = meta.get("no_answer_message")
    return ChosenAgent(
        uuid=agent.uuid,
        name=agent.name,
        prompt=agent.prompt,
        model=str(meta.get("model") or DEFAULT_MODEL),
        temperature=float(meta.get("temperature") or 0),
        source_uuids=sources,
        no_answer_message=no_answer if isinstance(no_answer, str) and no_answer.strip() else DEFAULT_NO_ANSWER_MESSAGE,
        variables=_variables(agent, session_variables or {}),
    )
