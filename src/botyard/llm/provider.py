"""The provider interface: one streaming chat call, as typed events.

A provider never raises for what the remote side does (an HTTP error, a timeout, a malformed chunk): it ends the
stream with a `StreamEnd` whose `error` says why, so the caller keeps whatever text already arrived and the answer
stream ends cleanly (after the first byte an error is an event, not an exception). Exceptions are left for bugs and
for cancellation.

Events:

    ProviderEvent
    ├── TextDelta   a piece of the answer, in order
    ├── ToolCall    a whole function call the model asks for (only when tools were offered), before the end
    └── StreamEnd   always last, exactly once: finish_reason, usage (when the provider reported it), error

Callers match on the type and ignore what they do not know.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asks for (a whole one: the stream's fragments joined); `arguments` is its JSON."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolSpec:
    """A function offered to the model: its name, what it does, and the JSON schema of its parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ChatMessage:
    """One message of the conversation sent to the model."""

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    """On an assistant message: the calls it asked for."""
    tool_call_id: str | None = None
    """On a tool message: the call whose result `content` is."""
    images: tuple[str, ...] = ()
    """On a user message: images (`data:` URLs) sent after the text as image parts, for models that see images."""


@dataclass(frozen=True)
class Usage:
    """Token counts: as a provider reported them, or as an answer spent them (the one usage type of the service)."""

    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, int]:
        """As messages store it (`meta_json.actual_token_distribution`) and the SSE `end` event sends it."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer's text."""

    text: str


@dataclass(frozen=True)
class StreamEnd:
    """The last event of every provider stream."""

    finish_reason: str
    """As the provider said it (`stop`, `length`, `content_filter`, ...); `error` when the stream failed."""
    usage: Usage | None = None
    """None when the provider sent no usage (servers that ignore `stream_options`, or a failed stream)."""
    error: str | None = None
    """Why the stream failed; never contains the API key. None on success."""


ProviderEvent = TextDelta | ToolCall | StreamEnd


class Provider(Protocol):
    """A chat model reachable over the network (or a test double of one)."""

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        model: str,
        temperature: float,
        max_tokens: int,
        tools: Sequence[ToolSpec] = (),
    ) -> AsyncGenerator[ProviderEvent, None]:
        """Stream the completion of `messages` by the provider's `model`: `TextDelta`s, the `ToolCall`s the model
        asks for (when `tools` were offered; the finish reason is then `tool_calls`), then one `StreamEnd`.

        Closing the iterator early (the client went away) closes the connection to the provider.
        """
        ...

    async def aclose(self) -> None:
        """Release connections; called once at shutdown."""
        ...
