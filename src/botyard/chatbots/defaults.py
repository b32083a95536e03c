"""The agent every new chatbot starts with (created with the chatbot, in its transaction)."""

from __future__ import annotations

from botyard.llm.catalogue import DEFAULT_MODEL
from botyard.models import Agent, AgentType

DEFAULT_AGENT_NAME = "General Q&A"

DEFAULT_AGENT_DESCRIPTION = (
    "Answers general questions about the company, its products and services, using the reference documents."
)

DEFAULT_AGENT_PROMPT = """You are a helpful assistant for {company}. You answer questions about {topic}.

Answer only from the reference documents provided to you. If the reference documents do not contain the answer,
say: "Sorry, I cannot find related information in my reference documents." Do not invent facts, names, prices or
links. Keep answers short and clear, and reply in the language of the question."""


def default_agent(chatbot_uuid: str) -> Agent:
    return Agent(
        chatbot_uuid=chatbot_uuid,
        name=DEFAULT_AGENT_NAME,
        type=AgentType.USER_FACING,
        description=DEFAULT_AGENT_DESCRIPTION,
        prompt=DEFAULT_AGENT_PROMPT,
        enabled=True,
        use_all_sources=True,
        meta={"model": DEFAULT_MODEL, "temperature": 0},
        variables=[],
    )
