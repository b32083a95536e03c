"""A mail as the channel reads it: who wrote, in reply to what, what it asks, what it carries (pure).

What it asks is its text: the `text/plain` part, else its HTML read as text; then its quoted history (`> ...`,
"On ... wrote:") and its signature cut off by a maintained reply parser (`mail-parser-reply`, in the languages it
knows). Attachments are listed (name, type, size) for the operator, and never read: a customer's file is not the
chatbot's knowledge. A mail without a `Message-ID` is known by a hash of its bytes, so that its repeat is one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage, MIMEPart
from email.utils import getaddresses, parseaddr
from typing import Any

from bs4 import BeautifulSoup
from mailparser_reply import EmailReplyParser

from botyard.channels.email.loops import Unanswered, unanswered

MAX_ID_CHARS = 128
"""`channel_event.external_id`'s size: a longer `Message-ID` is stored as its hash."""
MAX_TEXT_CHARS = 8000
_LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pl", "pt", "sv"]
_IDS = re.compile(r"<[^<>\s]+>")
_PARSER = EmailReplyParser(languages=_LANGUAGES)
_BLOCKS = ["p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "pre"]


@dataclass(frozen=True)
class Attachment:
    name: str
    type: str
    size: int


@dataclass(frozen=True)
class Mail:
    """One mail as read; `unanswered` says why it must not be answered (None: it may be)."""

    message_id: str
    in_reply_to: str
    references: tuple[str, ...]
    subject: str
    sender: str
    """The address it is from, in lower case: the customer's identity on the channel."""
    sender_name: str
    reply_to: str
    """Where the customer asked replies to go (`Reply-To`), when it is not the sender."""
    recipients: tuple[str, ...]
    text: str
    attachments: tuple[Attachment, ...]
    unanswered: Unanswered | None

    @property
    def external_id(self) -> str:
        return stored_id(self.message_id)

    def details(self) -> dict[str, Any]:
        """What `channel_event.details` keeps of it: what a reply and the operator need."""
        return {
            "message_id": self.message_id,
            "in_reply_to": self.in_reply_to,
            "references": list(self.references),
            "subject": self.subject,
            "from": self.sender,
            **({"reply_to": self.reply_to} if self.reply_to else {}),
            "attachments": [{"name": one.name, "type": one.type, "size": one.size} for one in self.attachments],
            **({"unanswered": self.unanswered.value} if self.unanswered is not None else {}),
        }


def stored_id(message_id: str) -> str:
    """A `Message-ID` as the channel's events keep it (`external_id`)."""
    return message_id if len(message_id) <= MAX_ID_CHARS else digest(message_id)


def digest(value: str | bytes) -> str:
    data = value.encode() if isinstance(value, str) else value
    return "sha256:" + hashlib.sha256(data).hexdigest()


def read(raw: bytes, address: str) -> Mail:
    """The mail `raw` (RFC 5322 bytes), as received on the channel of `address`."""
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    name, sender = parseaddr(str(message.get("From", "")))
    message_id = _first_id(str(message.get("Message-ID", ""))) or f"<{digest(raw)}>"
    found = unanswered(message, sender.lower(), message_id, address)
    fields = [str(value) for key in ("To", "Cc", "Delivered-To", "X-Original-To") for value in message.get_all(key, [])]
    return Mail(
        message_id=message_id,
        in_reply_to=_first_id(str(message.get("In-Reply-To", ""))),
        references=tuple(_IDS.findall(str(message.get("References", "")))),
        subject=" ".join(str(message.get("Subject", "")).split())[:300],
        sender=sender.lower(),
        sender_name=name,
        reply_to=_reply_to(message, sender.lower()),
        recipients=tuple(found_address.lower() for _, found_address in getaddresses(fields) if found_address),
        text="" if found is not None else asked(message),
        attachments=tuple(_attachments(message)),
        unanswered=found,
    )


def asked(message: EmailMessage) -> str:
    """What the mail asks: its text without quoted history or signature."""
    text = _body_text(message)
    if not text.strip():
        return ""
    replies = _PARSER.read(text=text).replies
    body = replies[0].body if replies else text
    return (body.strip() or text.strip())[:MAX_TEXT_CHARS]


def _body_text(message: EmailMessage) -> str:
    plain = message.get_body(("plain",))
    if plain is not None:
        return _content(plain)
    markup = message.get_body(("html",))
    if markup is None:
        return ""
    soup = BeautifulSoup(_content(markup), "html.parser")
    for hidden in soup(["script", "style", "head"]):
        hidden.decompose()
    for quoted in soup.select("blockquote, .gmail_quote, #divRplyFwdMsg, #appendonsend"):
        quoted.decompose()
    for block in soup.find_all(_BLOCKS):
        block.insert_after("\n")
    for line_break in soup.find_all("br"):
        line_break.replace_with("\n")
    lines = (" ".join(line.split()) for line in soup.get_text().splitlines())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _content(part: MIMEPart) -> str:
    try:
        content = part.get_content()
    except (LookupError, ValueError):  # an unknown charset: read what can be read
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    return content if isinstance(content, str) else ""


def _attachments(message: EmailMessage) -> list[Attachment]:
    found = []
    for part in message.iter_attachments():
        payload = part.get_payload(decode=True)
        size = len(payload) if isinstance(payload, bytes) else 0
        found.append(Attachment(part.get_filename() or "", part.get_content_type(), size))
    return found


def _reply_to(message: EmailMessage, sender: str) -> str:
    address = parseaddr(str(message.get("Reply-To", "")))[1].lower()
    return address if "@" in address and address != sender else ""


def _first_id(value: str) -> str:
    found = _IDS.search(value)
    return found.group(0) if found else ""
