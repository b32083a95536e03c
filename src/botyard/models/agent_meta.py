"""Typed views over an agent's JSON settings: its `meta` and its human-escalation settings (see `meta` for how
views behave)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botyard.models.meta import as_dict, as_number, as_str, as_strings

if TYPE_CHECKING:
    from botyard.models.agent import Agent


@dataclass(frozen=True)
class AgentTag:
    """A tag a background agent assigns when its criteria match the conversation."""

    name: str
    criteria: str
    color: str


@dataclass(frozen=True)
class AgentMeta:
    """`agent.meta`: the type-specific settings (model, temperature, bias, stickness, default_message, choices,
    tags)."""

    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, agent: Agent) -> AgentMeta:
        return cls(dict(agent.meta or {}))

    @property
    def model(self) -> str | None:
        return as_str(self.raw.get("model")) or None

    @property
    def temperature(self) -> float | None:
        return as_number(self.raw.get("temperature"))

    @property
    def bias(self) -> float | None:
        return as_number(self.raw.get("bias"))

    @property
    def stickness(self) -> float | None:
        return as_number(self.raw.get("stickness"))

    @property
    def default_message(self) -> str | None:
        return as_str(self.raw.get("default_message"))

    @property
    def choices(self) -> list[str]:
        """A pre-canned agent's choices, offered with its `default_message` (`agents.fields.Choices`)."""
        return as_strings(self.raw.get("choices"))

    @property
    def no_answer_message(self) -> str | None:
        return as_str(self.raw.get("no_answer_message"))

    @property
    def tags(self) -> list[AgentTag]:
        found = self.raw.get("tags")
        tags = [as_dict(tag) for tag in found] if isinstance(found, list) else []
        return [
            AgentTag(str(tag.get("name") or ""), str(tag.get("criteria") or ""), str(tag.get("color") or ""))
            for tag in tags
            if tag.get("name")
        ]

    def with_values(self, values: Mapping[str, Any]) -> AgentMeta:
        return AgentMeta({**self.raw, **values})

    def dump(self) -> dict[str, Any]:
        return dict(self.raw)


DEFAULT_ESCALATION_SETTINGS: dict[str, Any] = {
    "human_requested_message": "I have let our team know. A person will join this conversation shortly.",
    "live_chat_start_announcement": "You are now chatting with a person.",
    "live_chat_end_announcement": "The person has left the chat. I am back to answer your questions.",
    "monitored_messages": [],
    "notifications_enabled": 1,
    "sound_enabled": 1,
}


@dataclass(frozen=True)
class EscalationSettings:
    """`agent.human_escalation_settings` over the defaults (a human-escalation agent's, or the defaults alone)."""

    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, stored: Mapping[str, Any] | None) -> EscalationSettings:
        return cls(DEFAULT_ESCALATION_SETTINGS | dict(stored or {}))

    @property
    def human_requested_message(self) -> str:
        return str(self.raw["human_requested_message"])

    @property
    def live_chat_start_announcement(self) -> str:
        return str(self.raw["live_chat_start_announcement"])

    @property
    def live_chat_end_announcement(self) -> str:
        return str(self.raw["live_chat_end_announcement"])

    @property
    def monitored_messages(self) -> list[str]:
        found = self.raw.get("monitored_messages")
        return [str(phrase) for phrase in found] if isinstance(found, list) else []

    def dump(self) -> dict[str, Any]:
        return dict(self.raw)
