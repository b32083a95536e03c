"""An email channel's credentials checked when it is made or changed: the mailbox signed into over IMAP (a
refusal is 422 `channel_refused` with the server's words), a way to send replies (the channel's own SMTP server,
else the service's), and where its listener starts: the mail that arrives from now on, not the mailbox's past."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botyard.channels.email.imap import Account, Mailbox, MailboxFailed, MailboxRefused
from botyard.channels.email.outgoing import server_of
from botyard.channels.schemas import Credentials
from botyard.config import Settings
from botyard.egress import EgressClient, EgressError, EgressRefused
from botyard.errors import AppError, ErrorCode

FIELDS = (
    "imap_host",
    "imap_port",
    "imap_security",
    "imap_username",
    "imap_password",
    "address",
    "smtp_host",
    "smtp_port",
    "smtp_security",
    "smtp_username",
    "smtp_password",
)
REQUIRED = ("imap_host", "imap_username", "imap_password", "address")
TIMEOUT = 15.0


async def checked(
    settings: Settings, egress: EgressClient, credentials: Credentials, earlier: Mapping[str, str] | None = None
) -> tuple[dict[str, str], dict[str, Any]]:
    """The credentials in the clear (each as text) and the listener's start (`poll_offset`, `poll_state`)."""
    given = {name: str(value) for name, value in credentials.given().items() if name in FIELDS}
    plain = {**(earlier or {}), **given}
    plain["address"] = plain.get("address", "").lower()
    missing = [name for name in REQUIRED if not plain.get(name)]
    if missing:
        details = [{"field": f"credentials.{name}", "message": "required", "type": "missing"} for name in missing]
        raise AppError(ErrorCode.VALIDATION_ERROR, f"An email channel needs credentials.{missing[0]}", details)
    if not plain.get("smtp_host") and not settings.smtp_host:
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            "An email channel sends its replies over SMTP: give credentials.smtp_host (and smtp_username, "
            "smtp_password), or set the service's mail server (BOTYARD_SMTP_HOST).",
            [{"field": "credentials.smtp_host", "message": "required", "type": "missing"}],
        )
    await _servers_allowed(settings, egress, plain)
    try:
        mailbox = await Mailbox.open(Account.of(plain), TIMEOUT)
    except MailboxRefused as refused:
        raise AppError(
            ErrorCode.CHANNEL_REFUSED,
            f"The IMAP server refused the sign-in: {refused}. Check imap_username and imap_password (a mailbox "
            "with two-step sign-in needs an app password).",
        ) from None
    except MailboxFailed as failed:
        raise AppError(
            ErrorCode.CHANNEL_REFUSED, f"The mailbox could not be opened: {failed}. Check imap_host and imap_port."
        ) from None
    try:
        start = mailbox.uidnext - 1 if mailbox.uidnext else await mailbox.last_uid()
    except MailboxFailed:
        start = 0
    finally:
        await mailbox.close()
    return plain, {"poll_offset": max(start, 0), "poll_state": {"uidvalidity": mailbox.uidvalidity}}


async def _servers_allowed(settings: Settings, egress: EgressClient, plain: Mapping[str, str]) -> None:
    """The channel's own IMAP and SMTP servers checked by the egress policy, as a URL an account gives is: a server
    on a private, loopback or link-local address is refused unless the operator's allowlist has it, so that an
    account cannot reach the service's own network through a mail server (nor read its first words back). The
    service's own mail server (BOTYARD_SMTP_*) is the operator's, and trusted."""
    account = Account.of(plain)
    servers = [("imap_host", account.host, account.port)]
    if plain.get("smtp_host"):
        smtp = server_of(settings, plain)
        servers.append(("smtp_host", smtp.host, smtp.port))
    for field, host, port in servers:
        try:
            await egress.check_server(host, port)
        except EgressRefused as error:
            detail = {"field": f"credentials.{field}", "message": error.reason, "type": ErrorCode.URL_REFUSED.value}
            raise AppError(ErrorCode.URL_REFUSED, f"credentials.{field} refused: {error.message}", [detail]) from None
        except EgressError as error:
            raise AppError(
                ErrorCode.CHANNEL_REFUSED, f"credentials.{field} ({host}) could not be reached: {error.message}."
            ) from None
