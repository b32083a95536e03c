"""What each agent type may carry, and the values an agent starts with.

`model` and `temperature` apply to every type. `bias` and `stickness` appear in an agent's meta only once set; an
agent without them routes as if both were 0 (no preference, no stickiness).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from botyard.errors import validation_error
from botyard.llm.catalogue import DEFAULT_MODEL
from botyard.models.agent_meta import DEFAULT_ESCALATION_SETTINGS
from botyard.models.kinds import AgentType

# The types by their old names, which other modules still import.
USER_FACING = AgentType.USER_FACING
BACKGROUND = AgentType.BACKGROUND
HUMAN_ESCALATION = AgentType.HUMAN_ESCALATION
PRE_CANNED = AgentType.PRE_CANNED
SPAM_DEFENSE = AgentType.SPAM_DEFENSE

ROUTED: frozenset[str] = frozenset({USER_FACING, HUMAN_ESCALATION, PRE_CANNED, SPAM_DEFENSE})
"""Types of which one agent answers each query (background agents never reply)."""

APPLIES_TO: dict[str, frozenset[str]] = {
    "use_all_sources": frozenset({USER_FACING}),
    "bias": ROUTED,
    "stickness": ROUTED,
    "default_message": frozenset({PRE_CANNED, SPAM_DEFENSE}),
    "choices": frozenset({PRE_CANNED}),
    "tags": frozenset({BACKGROUND}),
    "human_escalation_settings": frozenset({HUMAN_ESCALATION}),
}
"""Type-specific keys and the types they apply to; every other key applies to every type."""

ONE_PER_CHATBOT = frozenset({HUMAN_ESCALATION, SPAM_DEFENSE})
"""Types of which a chatbot has at most one agent."""

WITH_TOOL_FUNCTIONS = frozenset({USER_FACING, BACKGROUND})
"""Types that may call tool functions."""

DEFAULT_TEMPERATURE = 0

DEFAULT_MESSAGES: dict[str, str] = {
    PRE_CANNED: "Thank you for your message. A member of our team will get back to you soon.",
    SPAM_DEFENSE: "Sorry, I can't help with that. Please ask a question about our products or services.",
}

DEFAULT_HUMAN_ESCALATION_SETTINGS: dict[str, Any] = DEFAULT_ESCALATION_SETTINGS


def applies(key: str, agent_type: str) -> bool:
    return agent_type in APPLIES_TO.get(key, frozenset({agent_type}))


def require_applicable(agent_type: str, keys: Iterable[str]) -> None:
    """422 naming every given type-specific key that does not apply to `agent_type`; nothing is written then."""
    wrong = [key for key in keys if not applies(key, agent_type)]
    if wrong:
        message = f"does not apply to {agent_type} agents"
        details = [{"field": key, "message": message, "type": "not_applicable"} for key in wrong]
        raise validation_error(f"Invalid request ({', '.join(wrong)}): {message}", details)


def initial_meta(agent_type: str) -> dict[str, Any]:
    """The stored meta of a new agent before its given settings are applied."""
    meta: dict[str, Any] = {"model": DEFAULT_MODEL, "temperature": DEFAULT_TEMPERATURE}
    if agent_type in DEFAULT_MESSAGES:
        meta["default_message"] = DEFAULT_MESSAGES[agent_type]
    if applies("tags", agent_type):
        meta["tags"] = []
    return meta
