"""What WhatsApp's Cloud API, Messenger and Instagram share: they all reach a channel through the owner's own Meta
app, whose webhooks are checked and whose Graph API is called the same way.

- **The subscription handshake**: when the owner saves the webhook in the app's dashboard, Meta GETs the inbound
  URL with `hub.mode=subscribe`, `hub.verify_token` and `hub.challenge`; the service answers the challenge, as
  plain text, only when the token is the channel's `verify_token` (`verified`). The verify token is made by the
  service and shown on the channel whenever it is read: the owner pastes it into Meta's form, and it guards only
  this handshake (a subscription to the channel's own URL), never a delivery.
- **Every delivery** carries `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body keyed with the
  app secret, compared in constant time before the body is parsed (`signed`).
- **The Graph API** (`GRAPH_VERSION`, at the setting `graph_api_url`) answers an error as
  `{"error": {"message", "type", "code", "error_subcode", "fbtrace_id"}}` (`refusal`): worth trying again on a
  5xx, a 429 and Meta's throttling codes (`THROTTLED`), given up on otherwise.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from botyard.channels.inbound import Delivery, Status
from botyard.models import ChannelType

GRAPH_VERSION = "v23.0"
"""The one Graph API version the channels speak (Meta keeps a version for two years at least)."""
SIGNATURE_HEADER = "x-hub-signature-256"
THROTTLED = frozenset({4, 80007, 130429, 131056})
"""Meta's codes of too many calls: the app's limit, WhatsApp's account limit, its throughput limit, and too many
messages to one recipient (pair rate)."""
WINDOW_CLOSED = 131047
"""WhatsApp's "re-engagement message": more than 24 hours since the customer's last message."""
META_TYPES = frozenset({ChannelType.WHATSAPP.value, ChannelType.MESSENGER.value, ChannelType.INSTAGRAM.value})


MAX_EXTERNAL_ID = 128
"""`channel_event.external_id`'s length: a longer message id (Instagram's `mid`) is stored as its digest."""


@dataclass(frozen=True)
class Batch:
    """One webhook POST: any number of messages (each its own event) and statuses of sent messages."""

    deliveries: list[Delivery]
    statuses: list[Status]


def external_id(message_id: str) -> str:
    """The message's id as an event's key: itself, or its SHA-256 when longer than the column."""
    if len(message_id) <= MAX_EXTERNAL_ID:
        return message_id
    return "sha256:" + hashlib.sha256(message_id.encode()).hexdigest()


_IMAGE = re.compile(r"!\[[^\]]*\]\((https://[^)\s]+)\)")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\((https://[^)\s]+)\)")
DOCUMENTS = (".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".csv", ".txt")


def media_of(markdown: str) -> list[tuple[str, str]]:
    """An answer's images (Markdown `![..](https://..)`) and linked documents (a link to a `.pdf`, ...), in order of
    appearance, as (`image` or `document`, link): each also goes as a message of its own, which Meta fetches."""
    found = [(match.start(), "image", match.group(1)) for match in _IMAGE.finditer(markdown)]
    for match in _LINK.finditer(markdown):
        if match.group(1).lower().split("?")[0].endswith(DOCUMENTS):
            found.append((match.start(), "document", match.group(1)))
    return [(kind, link) for _, kind, link in sorted(found)]


def without_images(markdown: str) -> str:
    """The text without its images' Markdown (they go as messages of their own)."""
    return _IMAGE.sub("", markdown)


def verified(query: Mapping[str, str], verify_token: str) -> str | None:
    """The challenge to answer when `query` is Meta's subscription request with the channel's verify token; None
    (refused) otherwise."""
    given = query.get("hub.verify_token", "")
    if query.get("hub.mode") != "subscribe" or not given or not verify_token:
        return None
    if not hmac.compare_digest(given.encode(), verify_token.encode()):
        return None
    return query.get("hub.challenge", "")


def signature(body: bytes, app_secret: str) -> str:
    """The `X-Hub-Signature-256` value of `body`."""
    return "sha256=" + hmac.new(app_secret.encode(), body, hashlib.sha256).hexdigest()


def signed(headers: Mapping[str, str], body: bytes, app_secret: str) -> bool:
    """Whether the delivery is signed with the app secret, on its raw bytes."""
    given = headers.get(SIGNATURE_HEADER, "")
    return (
        bool(given) and bool(app_secret) and hmac.compare_digest(given.encode(), signature(body, app_secret).encode())
    )


@dataclass(frozen=True)
class GraphRefusal:
    """The Graph API's error: what to do next follows from it."""

    status: int
    message: str
    code: int | None = None
    subcode: int | None = None
    type: str = ""
    fbtrace_id: str = ""

    @property
    def passing(self) -> bool:
        """Worth trying again: Meta's own trouble, or too many calls."""
        return self.status >= 500 or self.status == 429 or self.code in THROTTLED

    @property
    def window_closed(self) -> bool:
        return self.code == WINDOW_CLOSED

    def __str__(self) -> str:
        code = "" if self.code is None else f" (#{self.code})"
        return f"{self.message}{code}"


def refusal(status: int, body: Any) -> GraphRefusal:
    """Read the Graph API's error body."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return GraphRefusal(status, f"http {status}")
    return GraphRefusal(
        status,
        str(error.get("message") or f"http {status}")[:300],
        _int(error.get("code")),
        _int(error.get("error_subcode")),
        str(error.get("type", "")),
        str(error.get("fbtrace_id", "")),
    )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def path(*parts: str) -> str:
    """A Graph API path of the pinned version: `/v23.0/{parts}`."""
    return "/" + "/".join((GRAPH_VERSION, *parts))
