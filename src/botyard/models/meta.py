"""Typed views over the JSON state of sessions and messages (agents: `agent_meta`).

A view wraps the stored dict without changing it: `X.of(row)` reads, the properties give typed values (a missing
or malformed key reads as its default), the `with_...`/named methods return a new view, and `dump()` gives the dict
to store, with exactly the keys the row had plus those a method set (the wire shows the stored keys, so a view never
adds a default key of its own). The owner of the table writes the dict back (`chat`: `chat.session_state`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botyard.models.kinds import AgentType, MessageKind

if TYPE_CHECKING:
    from botyard.models.chat_session import ChatSession
    from botyard.models.message import Message


def as_dict(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def as_strings(value: object) -> list[str]:
    """A stored list of strings (anything else in it left out; not a list: none)."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def as_number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class SessionMeta:
    """`chat_session.meta`: the conversation's variables and its flags for operators (on the wire as `meta`)."""

    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, session: ChatSession) -> SessionMeta:
        return cls(dict(session.meta or {}))

    @classmethod
    def new(cls, initial_variables: Mapping[str, Any] | None) -> SessionMeta:
        """A new session's meta: the variables start as a copy of `initial_variables` (kept too, when given), no
        human has been requested and no tag assigned yet."""
        meta: dict[str, Any] = {}
        if initial_variables is not None:
            meta["initial_variables"] = dict(initial_variables)
        meta.update({"variables": dict(initial_variables or {}), "human_requested": False, "tags": []})
        return cls(meta)

    @property
    def variables(self) -> dict[str, Any]:
        return as_dict(self.raw.get("variables"))

    @property
    def initial_variables(self) -> dict[str, Any] | None:
        given = self.raw.get("initial_variables")
        return dict(given) if isinstance(given, Mapping) else None

    @property
    def human_requested(self) -> bool:
        """A person was asked for (by the escalation agent or a monitored phrase); cleared by a live chat's end."""
        return bool(self.raw.get("human_requested"))

    @property
    def human_requested_at(self) -> str | None:
        """When a person was first asked for (ISO 8601); kept after the flag is cleared."""
        return as_str(self.raw.get("human_requested_at"))

    @property
    def human_requested_message(self) -> str | None:
        """The uuid of the message that asked for a person (or whose answer said a monitored phrase)."""
        return as_str(self.raw.get("human_requested_message")) or None

    @property
    def live_chat(self) -> bool:
        """An operator has the session: no AI answers it."""
        return bool(self.raw.get("live_chat"))

    @property
    def tags(self) -> list[str]:
        found = self.raw.get("tags")
        return [str(tag) for tag in found] if isinstance(found, list) else []

    def _with(self, **values: Any) -> SessionMeta:
        return SessionMeta({**self.raw, **values})

    def with_variables(self, values: Mapping[str, Any]) -> SessionMeta:
        """The given values merged over the current variables."""
        return self._with(variables={**self.variables, **values})

    def with_tags(self, added: Sequence[str]) -> SessionMeta:
        """The tags with `added` appended (those already there are not repeated)."""
        current = self.tags
        return self._with(tags=current + [tag for tag in dict.fromkeys(added) if tag not in current])

    def flagged(self, at: str, message_uuid: str | None = None) -> SessionMeta:
        """Asking for a person since `at`, by the message `message_uuid` (when known)."""
        raw = {key: value for key, value in self.raw.items() if key != "human_requested_message"}
        asked = {"human_requested_message": message_uuid} if message_uuid else {}
        return SessionMeta({**raw, "human_requested": True, "human_requested_at": at, **asked})

    def dismissed(self) -> SessionMeta:
        """An operator cleared the request without taking over (`human_requested_at` stays: it was handed off)."""
        return self._with(human_requested=False)

    def live_started(self) -> SessionMeta:
        return self._with(live_chat=True)

    def live_ended(self) -> SessionMeta:
        """Back with the AI: the live chat is over and the request for a person answered."""
        return self._with(live_chat=False, human_requested=False)

    def dump(self) -> dict[str, Any]:
        return dict(self.raw)


@dataclass(frozen=True)
class MessageMeta:
    """`message.meta` (on the wire as the `meta_json` string)."""

    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, message: Message) -> MessageMeta:
        return cls(dict(message.meta or {}))

    @classmethod
    def transcript_row(cls, kind: MessageKind, operator_name: str | None = None) -> MessageMeta:
        """The meta of a live-chat row: its kind, and the name of the person who wrote or started it (none for an
        API key)."""
        return cls({"kind": kind.value, **({"operator_name": operator_name} if operator_name else {})})

    @property
    def operator_name(self) -> str | None:
        """The person who wrote this live-chat row (or took the chat over); None for an API key or another row."""
        value = self.raw.get("operator_name")
        return value if isinstance(value, str) and value else None

    @property
    def kind(self) -> MessageKind | None:
        """The live-chat row's kind; `None` for an answered exchange (or a kind this version does not know)."""
        value = self.raw.get("kind")
        return MessageKind(value) if isinstance(value, str) and value in MessageKind._value2member_map_ else None

    @property
    def agent_uuid(self) -> str | None:
        """The agent that answered (for `stickness`)."""
        return as_str(self.raw.get("agent_uuid")) or None

    @property
    def agent_name(self) -> str | None:
        return as_str(self.raw.get("agent_name"))

    @property
    def agent_type(self) -> AgentType | None:
        value = self.raw.get("agent_type")
        return AgentType(value) if isinstance(value, str) and value in AgentType._value2member_map_ else None

    @property
    def routing(self) -> dict[str, Any] | None:
        """How the agent was chosen: `{forced, reason}`."""
        found = self.raw.get("routing")
        return dict(found) if isinstance(found, Mapping) else None

    @property
    def choices(self) -> list[str]:
        """The choices that go with the reply (a pre-canned agent's, the offer of a person's), in order: buttons
        where a channel shows them, pressed as the visitor's next message."""
        return as_strings(self.raw.get("choices"))

    @property
    def interrupted(self) -> bool:
        """The client went away (or the process ended) before the answer was complete."""
        return bool(self.raw.get("interrupted"))

    @property
    def error(self) -> str | None:
        return as_str(self.raw.get("error"))

    @property
    def counted(self) -> bool:
        """Whether the answer's tokens were counted (`actual_token_distribution`, written from `llm.provider.Usage`)."""
        return bool(as_dict(self.raw.get("actual_token_distribution")))

    @property
    def functions_called(self) -> list[dict[str, Any]]:
        return [as_dict(call) for call in self.raw.get("functions_called") or [] if isinstance(call, Mapping)]

    @property
    def background_functions_called(self) -> list[dict[str, Any]]:
        found = self.raw.get("background_functions_called") or []
        return [as_dict(call) for call in found if isinstance(call, Mapping)]

    @property
    def streaming_owner(self) -> str | None:
        """`host:pid` of the process streaming the answer (removed when the message is finalised)."""
        return as_str(self.raw.get("streaming_owner"))

    def with_values(self, **values: Any) -> MessageMeta:
        return MessageMeta({**self.raw, **values})

    def without(self, *keys: str) -> MessageMeta:
        return MessageMeta({key: value for key, value in self.raw.items() if key not in keys})

    def dump(self) -> dict[str, Any]:
        return dict(self.raw)
