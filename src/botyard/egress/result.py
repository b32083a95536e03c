"""What a fetch returns."""

from __future__ import annotations

from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class FetchResult:
    """The final response of a fetch: its URL after redirects, status, headers and whole (decoded) body.

    `headers` are as received, so Content-Encoding and Content-Length describe the wire, not `body`.
    """

    url: str
    status: int
    headers: httpx.Headers
    body: bytes
    redirects: tuple[str, ...] = ()
    """The URLs that answered with a redirect, in order (the requested URL first)."""

    @property
    def content_type(self) -> str:
        """The media type without parameters, lower case (`text/html`), or "" when the server sent none."""
        return str(self.headers.get("content-type", "")).partition(";")[0].strip().lower()

    @property
    def charset(self) -> str | None:
        """The `charset` parameter of Content-Type, if any."""
        for param in str(self.headers.get("content-type", "")).split(";")[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "charset" and value.strip():
                return value.strip().strip('"').lower()
        return None

    @property
    def etag(self) -> str | None:
        value = self.headers.get("etag")
        return None if value is None else str(value)

    @property
    def last_modified(self) -> str | None:
        value = self.headers.get("last-modified")
        return None if value is None else str(value)

    @property
    def not_modified(self) -> bool:
        """The server answered 304 to a conditional fetch: the stored copy is current."""
        return self.status == 304

    def text(self) -> str:
        """The body decoded with its declared charset (UTF-8 when unknown), never failing on bad bytes."""
        try:
            return self.body.decode(self.charset or "utf-8", errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")
