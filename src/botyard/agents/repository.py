from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, delete, func, insert, select

from botyard.db.batches import batches
from botyard.db.repository import ChatbotPartRepository, Repository
from botyard.models import Agent, AgentDataSource, AgentType, Chatbot, ToolFunction


class AgentRepository(ChatbotPartRepository[Agent]):
    model = Agent

    noun = "Agent"

    async def of_chatbot(self, chatbot_uuid: str) -> Sequence[Agent]:
        return await self.all(
            select(Agent).where(Agent.chatbot_uuid == chatbot_uuid).order_by(Agent.created_at, Agent.uuid)
        )

    async def count_of_type(self, chatbot_uuid: str, agent_type: str) -> int:
        statement = (
            select(func.count()).select_from(Agent).where(Agent.chatbot_uuid == chatbot_uuid, Agent.type == agent_type)
        )
        return int((await self.session.execute(statement)).scalar_one())

    async def escalation_settings(self, chatbot_uuid: str) -> dict[str, Any] | None:
        """The stored human-escalation settings of the chatbot's escalation agent (none: `None`)."""
        statement = select(Agent.human_escalation_settings).where(
            Agent.chatbot_uuid == chatbot_uuid, Agent.type == AgentType.HUMAN_ESCALATION
        )
        stored = (await self.session.execute(statement)).scalars().first()
        return dict(stored) if stored else None

    async def lock_chatbot(self, chatbot_uuid: str) -> None:
        """Serialise the chatbot's agent writes until the transaction ends: on PostgreSQL a row lock, on SQLite the
        write lock every write transaction already holds. A check-then-insert under it cannot race."""
        await self.session.execute(select(Chatbot.uuid).where(Chatbot.uuid == chatbot_uuid).with_for_update())

    async def lock(self, agent_uuid: str) -> None:
        """Serialise writes to the agent's tool functions until the transaction ends (see `lock_chatbot`)."""
        await self.session.execute(select(Agent.uuid).where(Agent.uuid == agent_uuid).with_for_update())

    async def data_sources(self, agent_uuids: Sequence[str]) -> dict[str, list[str]]:
        """Each agent's own data source uuids, in the order they were given."""
        sources: dict[str, list[str]] = defaultdict(list)
        for batch in batches(list(agent_uuids)):
            rows = await self.session.execute(
                select(AgentDataSource.agent_uuid, AgentDataSource.data_source_uuid)
                .where(AgentDataSource.agent_uuid.in_(batch))
                .order_by(AgentDataSource.agent_uuid, AgentDataSource.position)
            )
            for agent_uuid, source_uuid in rows:
                sources[agent_uuid].append(source_uuid)
        return sources

    async def set_data_sources(self, agent_uuid: str, source_uuids: Sequence[str]) -> None:
        await self.session.execute(delete(AgentDataSource).where(AgentDataSource.agent_uuid == agent_uuid))
        rows = [
            {"agent_uuid": agent_uuid, "data_source_uuid": source_uuid, "position": position}
            for position, source_uuid in enumerate(source_uuids)
        ]
        for batch in batches(rows):
            await self.session.execute(insert(AgentDataSource), batch)

    async def remove(self, agent: Agent) -> None:
        # Its tool functions and source selection go with it through ON DELETE CASCADE.
        await self.session.execute(delete(Agent).where(Agent.uuid == agent.uuid))


class ToolFunctionRepository(Repository[ToolFunction]):
    model = ToolFunction

    noun = "Tool function"

    def owned_statement(self, account_uuid: str, function_uuid: str) -> Select[Any]:
        return (
            select(ToolFunction)
            .join(Agent, Agent.uuid == ToolFunction.agent_uuid)
            .join(Chatbot, Chatbot.uuid == Agent.chatbot_uuid)
            .where(ToolFunction.uuid == function_uuid, Chatbot.account_uuid == account_uuid)
        )

    async def of_agents(self, agent_uuids: Sequence[str]) -> dict[str, list[ToolFunction]]:
        """Each agent's tool functions, oldest first."""
        functions: dict[str, list[ToolFunction]] = defaultdict(list)
        for batch in batches(list(agent_uuids)):
            for function in await self.all(
                select(ToolFunction)
                .where(ToolFunction.agent_uuid.in_(batch))
                .order_by(ToolFunction.created_at, ToolFunction.uuid)
            ):
                functions[function.agent_uuid].append(function)
        return functions

    async def named(self, agent_uuid: str, name: str) -> ToolFunction | None:
        return await self.one_or_none(
            select(ToolFunction).where(ToolFunction.agent_uuid == agent_uuid, ToolFunction.name == name)
        )

    async def remove(self, function: ToolFunction) -> None:
        await self.session.execute(delete(ToolFunction).where(ToolFunction.uuid == function.uuid))
