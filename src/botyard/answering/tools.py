"""Tool functions: the owner's HTTP endpoints an agent's model may call while answering (LLM provider only).

The model chooses a function and its arguments, nothing else: the URL, the method and the headers are the owner's,
and every call goes through the guarded egress client (a function pointed at a private address is refused like
any other URL). Arguments go in the query string for GET and DELETE, as a JSON body otherwise. A call is made only
when every `required` parameter is there; the response body, capped, goes back to the model as untrusted data and
into the message's `meta_json.functions_called` as `{name, content}`. A failure is a result too ("error: ..."), so
the model can say the function did not work instead of the answer failing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from botyard.egress import EgressClient, EgressError
from botyard.llm.provider import ToolSpec

MAX_TOOL_CALLS = 5
"""Function calls one query may make."""
RESPONSE_BYTES = 16 * 1024
QUERY_METHODS = frozenset({"GET", "DELETE"})


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    url: str
    method: str = "GET"
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def spec(self) -> ToolSpec:
        """What the model sees: never the URL or the headers."""
        parameters = self.parameters or {"type": "object", "properties": {}}
        return ToolSpec(self.name, self.description, parameters)

    def declared(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Only the arguments the schema declares (when it declares any): the model cannot add parameters."""
        properties = (self.parameters or {}).get("properties")
        if not isinstance(properties, dict) or not properties:
            return dict(arguments)
        return {name: value for name, value in arguments.items() if name in properties}

    def missing(self, arguments: dict[str, Any]) -> list[str]:
        """The required parameters `arguments` lacks (None and "" count as missing)."""
        required = (self.parameters or {}).get("required") or []
        return [str(name) for name in required if arguments.get(str(name)) in (None, "")]


class ToolCaller:
    """Makes the calls, through the egress client."""

    def __init__(self, egress: EgressClient, timeout: float) -> None:
        self.egress = egress
        self.timeout = timeout

    async def __call__(self, tool: Tool, arguments: dict[str, Any]) -> str:
        method = tool.method.upper()
        arguments = tool.declared(arguments)
        as_query = method in QUERY_METHODS
        params = {name: _query_value(value) for name, value in arguments.items()} if as_query else None
        try:
            async with asyncio.timeout(self.timeout):
                result = await self.egress.fetch(
                    tool.url,
                    method=method,
                    headers=tool.headers,
                    params=params,
                    json=None if as_query else arguments,
                    max_bytes=RESPONSE_BYTES,
                )
        except TimeoutError:
            return f"error: the function did not answer within {self.timeout:g} s"
        except EgressError as error:
            return f"error: the function could not be called ({error.reason})"
        return result.body.decode("utf-8", "replace")


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
