"""A reply as a mail in the customer's thread, sent over SMTP (aiosmtplib, as `botyard.mail.smtp` sends).

Its `Message-ID` is made from the reply's id (`<botyard.{reply}@{domain}>`), so a retry sends the same mail again
and no client shows it twice, and so that a mail that comes back to the channel is known as ours. It answers the
customer's latest mail (`In-Reply-To`, `References`: its references and it), under `Re: ` and its subject with the
thread's token, and says it was sent automatically (`Auto-Submitted: auto-replied`, RFC 3834;
`X-Auto-Response-Suppress: All` for Exchange) so that auto-responders do not answer it. Its text goes twice: plain
(the Markdown, each citation's link listed under it) and HTML rendered from the Markdown (citations as links).

The server is the channel's own (`smtp_host` and the rest of its credentials) or, without one, the service's mail
settings (`BOTYARD_SMTP_*`). A 4xx or a network failure is worth trying again (`sending`'s schedule), a 5xx or a
refused sign-in is not.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, formatdate

import aiosmtplib

from botyard.channels import buttons, render
from botyard.channels.calls import ProviderFailed
from botyard.channels.email.loops import OUR_ID_PREFIX
from botyard.channels.render import Reply
from botyard.config import Settings

HTML = render.Dialect(
    marks={"strong": ("<b>", "</b>"), "em": ("<i>", "</i>"), "s": ("<s>", "</s>"), "heading": ("<b>", "</b>")},
    link=lambda href: (f'<a href="{html.escape(href)}">', "</a>"),
    code=lambda text: f"<code>{html.escape(text)}</code>",
    pre=lambda text: f"<pre>{html.escape(text)}</pre>",
    quote=("<blockquote>", "</blockquote>"),
    escape=html.escape,
)
_WHOLE = 10**7
"""No limit: a mail is one message, however long."""


@dataclass(frozen=True)
class Server:
    host: str
    port: int
    security: str
    username: str
    password: str
    timeout: float


@dataclass(frozen=True)
class Thread:
    """Where a reply goes: to whom, answering which mail, under which subject."""

    to: str
    in_reply_to: str
    references: tuple[str, ...]
    subject: str


def server_of(settings: Settings, secrets: Mapping[str, str]) -> Server:
    """The channel's own SMTP server, else the service's."""
    if secrets.get("smtp_host"):
        return Server(
            secrets["smtp_host"],
            int(secrets.get("smtp_port") or 587),
            secrets.get("smtp_security") or "starttls",
            secrets.get("smtp_username", ""),
            secrets.get("smtp_password", ""),
            settings.smtp_timeout,
        )
    password = settings.smtp_password.get_secret_value() if settings.smtp_password else ""
    return Server(
        settings.smtp_host or "",
        settings.smtp_port,
        settings.smtp_security,
        settings.smtp_username or "",
        password,
        settings.smtp_timeout,
    )


def message_id(reply_uuid: str, address: str) -> str:
    return f"<{OUR_ID_PREFIX}{reply_uuid}@{address.rpartition('@')[2]}>"


def composed(
    reply_uuid: str, address: str, name: str, thread: Thread, canonical: Reply, choices: Sequence[str]
) -> EmailMessage:
    """The reply's mail, its choices as numbered lines (the customer answers with the number)."""
    shown = buttons.numbered(canonical, choices)
    message = EmailMessage()
    message["From"] = formataddr((name, address)) if name else address
    message["To"] = thread.to
    message["Subject"] = thread.subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = message_id(reply_uuid, address)
    if thread.in_reply_to:
        message["In-Reply-To"] = thread.in_reply_to
        message["References"] = " ".join([*thread.references, thread.in_reply_to][-20:])
    message["Auto-Submitted"] = "auto-replied"
    message["X-Auto-Response-Suppress"] = "All"
    message.set_content(plain(shown))
    message.add_alternative(rich(shown), subtype="html")
    return message


def plain(reply: Reply) -> str:
    """The Markdown as it is, each cited source's link listed under it."""
    cited = [f"{marker} {link}" for marker, link in reply.links.items() if marker in reply.text]
    return reply.text + ("\n\n" + "\n".join(cited) if cited else "") + "\n"


def rich(reply: Reply) -> str:
    body = "".join(render.parts(reply, _WHOLE, HTML)).replace("\n", "<br>\n")
    return f'<!DOCTYPE html>\n<html><body><div style="font-family: sans-serif">{body}</div></body></html>\n'


async def send(server: Server, message: EmailMessage) -> None:
    """The mail sent; `ProviderFailed` (passing for a 4xx or the network) when the server did not take it."""
    if not server.host:
        raise ProviderFailed(
            "no mail server for replies: give the channel smtp_host, or set BOTYARD_SMTP_HOST", passing=False
        )
    try:
        await aiosmtplib.send(
            message,
            hostname=server.host,
            port=server.port,
            username=server.username or None,
            password=server.password if server.username else None,
            use_tls=server.security == "tls",
            start_tls=server.security == "starttls",
            timeout=server.timeout,
        )
    except aiosmtplib.SMTPAuthenticationError as error:
        raise ProviderFailed(f"the mail server refused the sign-in ({error.code})", passing=False) from None
    except aiosmtplib.SMTPResponseException as error:
        reason = f"the mail server answered {error.code}: {error.message[:200]}"
        raise ProviderFailed(reason, passing=error.code < 500) from None
    except aiosmtplib.SMTPRecipientsRefused as error:
        codes = [refused.code for refused in error.recipients]
        passing = bool(codes) and all(code < 500 for code in codes)
        raise ProviderFailed(f"the mail server refused the recipient ({codes[:1]})", passing=passing) from None
    except (aiosmtplib.SMTPException, OSError) as error:
        reason = f"the mail server could not be reached: {type(error).__name__}: {error}"[:300]
        raise ProviderFailed(reason, passing=True) from None
