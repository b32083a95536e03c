"""The service's log lines, and the request id they carry.

One configuration for `botyard serve`, its worker processes, `botyard worker` and uvicorn's own loggers (through
uvicorn's `log_config`): every line on stderr has an ISO-8601 UTC timestamp, the level, the logger's name, the
request id when the line was written while answering a request, and the message. `BOTYARD_LOG_FORMAT=json` makes
each line one JSON object instead (`time`, `level`, `logger`, `request_id`, `message`, and `exc_info` when a line
carries a traceback).

No line carries a credential (`redact`, applied to every line, tracebacks included): the value of a URL's query
parameter that names one (`api_key`, `key`, `token`, `access_token`, `password`, `secret`, `code`, `state`, or any
name containing key, token, secret, password, signature, session, csrf or auth) is written `[redacted]`, and so are
a `Bearer` token, a URL's `user:password@` and anything shaped like one of our API keys. uvicorn's access line,
which shows the path with its query string, is one such line: a key sent as `?api_key=` is not written to the log.

The request id comes from the client's `X-Request-ID` when it is sane (a proxy's or a load balancer's, so that its
lines and ours can be joined), else is made here; it is echoed as the response's `X-Request-ID`.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID: ContextVar[str | None] = ContextVar("botyard_request_id", default=None)
"""The id of the request being answered, for the log lines written meanwhile (None outside requests)."""

HEADER = "X-Request-ID"
_SANE = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")
"""What a client's request id may be: short, printable, no spaces (it goes into log lines and a response header)."""

LogFormat = Literal["text", "json"]

REDACTED = "[redacted]"
_CREDENTIAL_WORDS = "key|token|secret|passw(?:or)?d|pwd|signature|session|csrf|auth|credential"
_QUERY_CREDENTIAL = re.compile(
    rf"(?i)(?<=[?&;])((?:[\w.%\[\]-]*(?:{_CREDENTIAL_WORDS})[\w.%\[\]-]*|code|state|sig)=)[^&;#\s\"']*"
)
"""A query parameter that names a credential, and its value (up to the next parameter, fragment or quote)."""
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s@:]*:[^/?#\s@]*@")
"""A URL's `user:password@`."""
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+")
_API_KEY = re.compile(r"\bby_[0-9A-Za-z]{20,}")
"""Our API keys' shape (`auth.keys`), wherever one shows (a path, an error's text)."""


def redact(text: str) -> str:
    """`text` with every credential it shows replaced by `[redacted]` (see the module)."""
    text = _QUERY_CREDENTIAL.sub(rf"\1{REDACTED}", text)
    text = _BEARER.sub(rf"\1{REDACTED}", text)
    text = _USERINFO.sub(rf"\1{REDACTED}@", text)
    return _API_KEY.sub(f"by_{REDACTED}", text)


def request_id_for(sent: str | None) -> str:
    """The client's request id if it is sane, else a new one."""
    if sent is not None and _SANE.fullmatch(sent):
        return sent
    return uuid.uuid4().hex


class RequestId:
    """ASGI middleware: sets `REQUEST_ID` for the request and echoes it as the `X-Request-ID` response header.

    The value is not reset at the end: each request runs in a task of its own, whose context ends with it, and the
    lines written after this middleware returned (an unhandled error's, uvicorn's access line) still carry it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = next((value for name, value in scope["headers"] if name == b"x-request-id"), None)
        request_id = request_id_for(None if sent is None else sent.decode("latin-1"))
        REQUEST_ID.set(request_id)

        async def with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)[HEADER] = request_id
            await send(message)

        await self.app(scope, receive, with_id)


def _time(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextFormatter(logging.Formatter):
    """`2025-01-31T09:30:00.123Z WARNING botyard.jobs.runner [<request id or ->] message`, then any traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{_time(record)} {record.levelname} {record.name} [{REQUEST_ID.get() or '-'}] {record.getMessage()}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        elif record.exc_text:
            line += "\n" + record.exc_text
        if record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return redact(line)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: `time`, `level`, `logger`, `request_id`, `message`, and `exc_info` if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _time(record),
            "level": record.levelname,
            "logger": record.name,
            "request_id": REQUEST_ID.get(),
            "message": redact(record.getMessage()),
        }
        if record.exc_info:
            entry["exc_info"] = redact(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exc_info"] = redact(record.exc_text)
        if record.stack_info:
            entry["stack_info"] = redact(self.formatStack(record.stack_info))
        return json.dumps(entry, ensure_ascii=False)


OWN_LOGGERS = ("botyard", "uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")
"""The loggers `BOTYARD_LOG_LEVEL` applies to; other libraries' lines show from WARNING up (or the level, if higher)."""


def log_config(level: str = "INFO", log_format: LogFormat = "text") -> dict[str, Any]:
    """The `logging.config.dictConfig` dictionary: for `configure`, and for uvicorn's `log_config`."""
    formatter = JsonFormatter if log_format == "json" else TextFormatter
    others = max(logging.getLevelNamesMapping()[level], logging.WARNING)
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"botyard": {"()": f"{formatter.__module__}.{formatter.__qualname__}"}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "botyard", "stream": "ext://sys.stderr"}
        },
        "root": {"handlers": ["stderr"], "level": logging.getLevelName(others)},
        # uvicorn's default configuration gives its loggers handlers of their own; these lines go through the root's.
        "loggers": {name: {"handlers": [], "level": level, "propagate": True} for name in OWN_LOGGERS},
    }


def configure(level: str = "INFO", log_format: LogFormat = "text") -> None:
    """Apply `log_config` to this process."""
    import logging.config

    logging.config.dictConfig(log_config(level, log_format))
