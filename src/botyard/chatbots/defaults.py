"""The agent every new chatbot starts with (created with the chatbot, in its transaction)."""

from __future__ import annotations

from botyard.llm.catalogue import DEFAULT_MODEL
from botyard.models import Agent, AgentType

DEFAULT_AGENT_NAME = "General Q&A"

DEFAULT_AGENT_DESCRIPTION = (
    "Answers general questions about the company, its products and services, using the reference documents."
)

KNOWLEDGE_ONLY_RULE = """\
Answer only from the reference documents provided to you. If the reference documents do not contain the answer,
say: "Sorry, I cannot find related information in my reference documents." Do not invent facts, names, prices or
links."""
"""What makes a chatbot refuse what its knowledge does not cover. It is the agent's prompt, not a fixed rule of ours,
that says so: an owner whose own prompt allows general answers gets them from the model."""

# Stored on each new chatbot's agent: a change here reaches new chatbots only (existing agents keep their prompt).
DEFAULT_AGENT_PROMPT = f"""You are a helpful assistant for {{company}}. You answer questions about {{topic}}.

{KNOWLEDGE_ONLY_RULE} Keep answers short and clear, and reply in the language of the question."""


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
