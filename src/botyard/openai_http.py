"""One failure policy for the OpenAI-compatible endpoints the service calls: chat completions (`llm`) and embeddings
(`embedding`). Both clients word their own messages; what a failure means is decided here.

- Retryable: a network error or a timeout, HTTP 408, 409, 429 and every 5xx (the statuses the OpenAI SDK retries).
  Anything else (a wrong key, an unknown model, a bad request) fails again the same way.
- The server's explanation: the `message` of its `{"error": ...}` body when it sends one, else its text on one line,
  cut short; its reason phrase when the body says nothing.
- The API key never leaves in a message: some servers echo what they were sent (a 401 body may quote the key).
- `Retry-After` in seconds, for a caller that waits itself (an HTTP date is not parsed: no caller waits that long).

Neutral ground on purpose: `llm` and `embedding` both import it and neither imports the other.
"""

from __future__ import annotations

import json

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Besides every 5xx."""
ERROR_BODY_BYTES = 2048
"""How much of an error body is read: enough for any explanation, bounded whatever the server sends."""
DETAIL_CHARS = 300
REDACTED = "[redacted]"


def is_retryable_status(status: int) -> bool:
    """Whether an answer with this HTTP status may succeed when asked again."""
    return status in RETRYABLE_STATUSES or status >= 500


def error_detail(body: bytes, reason_phrase: str) -> str:
    """The server's own explanation of an error answer, on one line and at most `DETAIL_CHARS` long."""
    text = body[:ERROR_BODY_BYTES].decode("utf-8", "replace")
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    detail = " ".join(str(message if message else text).split())
    return detail[:DETAIL_CHARS] or reason_phrase


def redact(text: str, api_key: str | None) -> str:
    """`text` without the API key, for errors and logs."""
    return text.replace(api_key, REDACTED) if api_key else text


def retry_after_seconds(value: str | None) -> float | None:
    """A `Retry-After` header in seconds; None when absent or an HTTP date."""
    try:
        return max(float(value), 0.0) if value else None
    except ValueError:
        return None
