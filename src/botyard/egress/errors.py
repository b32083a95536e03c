"""Every way an outbound request can fail, as one exception tree.

    EgressError                 base class; `reason` is short and stable, `status` is `error:<reason>`
    ├── EgressRefused           the policy said no; nothing was sent to the refused target
    │                             "invalid url", "scheme not allowed", "credentials in url", "port not allowed",
    │                             "private address", "too many redirects", "redirect loop", "unchecked host"
    ├── EgressTooLarge          "response too large" (counted after decompression), "headers too large"
    ├── EgressTimeout           "timeout": connect, read or write timeout, or the whole fetch's deadline
    ├── EgressNetworkError      "dns failure", "connection failed", "tls error", "protocol error",
    │                             "unsupported encoding", "bad encoding"
    └── EgressHTTPError         "http <status>": the final response was a 4xx or 5xx; it is kept as `result`

The reasons are meant for data-source statuses (`error:private address`) and API errors; the message is for humans
and may change. Messages never contain a URL's credentials.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from botyard.egress.result import FetchResult


class Reason(StrEnum):
    """The stable reasons, except `http <status>` which carries the status code."""

    INVALID_URL = "invalid url"
    SCHEME_NOT_ALLOWED = "scheme not allowed"
    CREDENTIALS_IN_URL = "credentials in url"
    PORT_NOT_ALLOWED = "port not allowed"
    PRIVATE_ADDRESS = "private address"
    TOO_MANY_REDIRECTS = "too many redirects"
    REDIRECT_LOOP = "redirect loop"
    UNCHECKED_HOST = "unchecked host"
    RESPONSE_TOO_LARGE = "response too large"
    HEADERS_TOO_LARGE = "headers too large"
    TIMEOUT = "timeout"
    DNS_FAILURE = "dns failure"
    CONNECTION_FAILED = "connection failed"
    TLS_ERROR = "tls error"
    PROTOCOL_ERROR = "protocol error"
    UNSUPPORTED_ENCODING = "unsupported encoding"
    BAD_ENCODING = "bad encoding"


class EgressError(Exception):
    """Base of every egress failure."""

    def __init__(self, message: str, reason: str, *, url: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = str(reason)
        self.url = url

    @property
    def status(self) -> str:
        """The data-source status for this failure: `error:<reason>`."""
        return f"error:{self.reason}"


class EgressRefused(EgressError):
    """The URL, one of its addresses or a redirect breaks the egress policy."""


class EgressTooLarge(EgressError):
    """The response (body after decompression, or headers) is over its cap."""


class EgressTimeout(EgressError):
    """A connect/read/write timeout or the total deadline of the fetch expired."""


class EgressNetworkError(EgressError):
    """The name did not resolve, the connection or TLS failed, or the peer spoke broken HTTP."""


class EgressHTTPError(EgressError):
    """The final response has a 4xx or 5xx status; `result` holds it, body included (within the cap)."""

    def __init__(self, result: FetchResult) -> None:
        super().__init__(f"{result.url} answered HTTP {result.status}", f"http {result.status}", url=result.url)
        self.result = result
