"""Background agents' tool functions (LLM provider only): after an answer, each enabled background agent with
enabled functions reads the recent conversation and may call them (a ticket, a CRM note), never replying.

It runs in the background job (`tagging.SessionTagger`), through the LLM answerer's own tool loop, so the same
rules hold as for user-facing agents: the owner's URL, method and headers, required parameters, at most
`MAX_TOOL_CALLS`, the egress guard. The calls made are recorded on the answered message's `meta_json` as
`background_functions_called` (`[{agent, name, content}]`). A job that runs again after a crash may repeat a call:
background calls are at least once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.roster import enabled_functions
from botyard.answering.base import Answerer, AnswerRequest, Finished, Turn
from botyard.answering.routing.supervisor import tool_of
from botyard.answering.tools import Tool
from botyard.chat import conversation
from botyard.llm.catalogue import DEFAULT_MODEL
from botyard.models import Agent, AgentMeta

BACKGROUND_RULES = """You work in the background of a customer conversation and never reply to the customer. \
Call your functions when the conversation calls for it, and only then. When you are done, reply with the single \
word: done."""


@dataclass(frozen=True)
class BackgroundAgent:
    name: str
    prompt: str
    model: str
    tools: list[Tool]


async def background_agents(db: AsyncSession, agents: Sequence[Agent]) -> list[BackgroundAgent]:
    """Among a chatbot's enabled background agents, those that have enabled tool functions."""
    functions = await enabled_functions(db, [agent.uuid for agent in agents]) if agents else {}
    found = []
    for agent in agents:
        tools = [tool_of(function) for function in functions.get(agent.uuid, [])]
        if tools:
            found.append(BackgroundAgent(agent.name, agent.prompt, AgentMeta.of(agent).model or DEFAULT_MODEL, tools))
    return found


async def run_tools(
    answerer: Answerer,
    call_tool: Callable[[Tool, dict[str, Any]], Awaitable[str]],
    agent: BackgroundAgent,
    turns: Sequence[Turn],
) -> list[dict[str, str]]:
    """Let `agent` read the conversation and make its calls; the calls made, as `{agent, name, content}`."""
    if not turns or not answerer.uses_tools:
        return []
    request = AnswerRequest(
        query=turns[-1].query,
        hits=[],
        history=list(turns[:-1]),
        agent_prompt=f"{agent.prompt}\n\n{BACKGROUND_RULES}".strip(),
        model=agent.model,
        tools=agent.tools,
        call_tool=call_tool,
    )
    called: list[dict[str, str]] = []
    async with aclosing(answerer.answer(request)) as events:  # type: ignore[type-var]
        async for event in events:
            if isinstance(event, Finished):
                called = list(event.meta.get("functions_called") or [])
    return [{"agent": agent.name, **call} for call in called]


async def record_calls(db: AsyncSession, message_uuid: str, calls: list[dict[str, str]]) -> None:
    await conversation.add_to_message_meta(db, message_uuid, "background_functions_called", calls)
