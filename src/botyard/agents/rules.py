"""What each agent type may carry, and the values an agent starts with.

`model` and `temperature` apply to every type. `bias` and `stickness` appear in an agent's meta only once set; an
agent without them routes as if both were 0 (no preference, no stickiness).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from botyard.errors import validation_error
from botyard.llm.catalogue import DEFAULT_MODEL

USER_FACING = "user-facing"
BACKGROUND = "background"
HUMAN_ESCALATION = "human-escalation"
PRE_CANNED = "pre-canned"
SPAM_DEFENSE = "spam-defense"

ROUTED = frozenset({USER_FACING, HUMAN_ESCALATION, PRE_CANNED, SPAM_DEFENSE})
"""Types of which one agent answers each query (background agents never reply)."""

APPLIES_TO: dict[str, frozenset[str]] = {
    "use_all_sources": frozenset({USER_FACING}),
    "bias": ROUTED,
    "stickness": ROUTED,
    "default_message": frozenset({PRE_CANNED, SPAM_DEFENSE}),
    "tags": frozenset({BACKGROUND}),
    "human_escalation_settings": frozenset({HUMAN_ESCALATION}),
}
"""Type-specific keys and the types they apply to; every other key applies to every type."""

ONE_PER_CHATBOT = frozenset({HUMAN_ESCALATION, SPAM_DEFENSE})
"""Types of which a chatbot has at most one agent."""

WITH_TOOL_FUNCTIONS = frozenset({USER_FACING, BACKGROUND})
"""Types that may call tool functions."""

DEFAULT_TEMPERATURE = 0

DEFAULT_MESSAGES = {
    PRE_CANNED: "Thank you for your message. A member of our team will get back to you soon.",
    SPAM_DEFENSE: "Sorry, I can't help with that. Please ask a question about our products or services.",
}

DEFAULT_HUMAN_ESCALATION_SETTINGS: dict[str, Any] = {
    "human_requested_message": "I have let our team know. A person will join this conversation shortly.",
    "live_chat_start_announcement": "You are now chatting with a person.",
    "live_chat_end_announcement": "The person has left the chat. I am back to answer your questions.",
    "monitored_messages": [],
    "notifications_enabled": 1,
    "sound_enabled": 1,
}


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
