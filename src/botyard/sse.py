"""The one encoder of server-sent events (the answer stream and the live-chat event streams both use it)."""

from __future__ import annotations

import json
from typing import Any

PING = b"event: ping\ndata: {}\n\n"


def encode(event: str, data: dict[str, Any], *, event_id: int | None = None) -> bytes:
    """One SSE event; its data is one line of JSON, so newlines in a text cannot break the framing. `event_id` is
    the `id:` a client resumes from (`Last-Event-ID`)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
