"""Sending one email with aiosmtplib, and the errors a job tells apart:

    MailError          the server could not be reached or failed for now (a timeout, a 4xx): try again later
     └ MailRefused     the server refused for good (a 5xx, bad credentials): trying again sends nothing

The password is handed to the library and appears in no message, log line or reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

import aiosmtplib

from botyard.config import Settings


class MailError(Exception):
    """Nothing was sent; it may work next time. The message says why, without any secret."""


class MailRefused(MailError):
    """The server refused the mail or the sign-in for good."""


@dataclass(frozen=True)
class Mail:
    to: tuple[str, ...]
    subject: str
    text: str
    reply_to: str | None = None


def mail_status(settings: Settings) -> tuple[bool, str]:
    """Whether mail is sent, and in words what the owner should know about it."""
    if not settings.smtp_host:
        return False, "No mail server is set (BOTYARD_SMTP_HOST): nothing is emailed."
    return True, f"Mail is sent through {settings.smtp_host}:{settings.smtp_port} from {settings.smtp_from}."


class Mailer:
    """Sends through the configured server; `configured` is false (and `send` refuses) without one."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def configured(self) -> bool:
        return bool(self.settings.smtp_host)

    def message(self, mail: Mail) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.settings.smtp_from
        message["To"] = ", ".join(mail.to)
        message["Subject"] = mail.subject
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain=self.settings.smtp_from.rpartition("@")[2].strip("> ") or None)
        if mail.reply_to:
            message["Reply-To"] = mail.reply_to
        message.set_content(mail.text)
        return message

    async def send(self, mail: Mail) -> None:
        """Send `mail` to all its recipients in one transaction; `MailError`/`MailRefused` when nothing was sent."""
        settings = self.settings
        if not settings.smtp_host:
            raise MailRefused("no mail server is set (BOTYARD_SMTP_HOST)")
        password = settings.smtp_password.get_secret_value() if settings.smtp_password else None
        try:
            await aiosmtplib.send(
                self.message(mail),
                hostname=settings.smtp_host,
                port=settings.smtp_port,
                username=settings.smtp_username or None,
                password=password if settings.smtp_username else None,
                use_tls=settings.smtp_security == "tls",
                start_tls=settings.smtp_security == "starttls",
                timeout=settings.smtp_timeout,
            )
        except aiosmtplib.SMTPAuthenticationError as error:
            raise MailRefused(f"the mail server refused the sign-in ({error.code})") from None
        except aiosmtplib.SMTPResponseException as error:
            reason = f"the mail server answered {error.code}: {error.message[:200]}"
            raise (MailRefused(reason) if error.code >= 500 else MailError(reason)) from None
        except aiosmtplib.SMTPRecipientsRefused as error:
            raise MailRefused(f"the mail server refused every recipient ({len(error.recipients)})") from None
        except (aiosmtplib.SMTPException, OSError) as error:
            raise MailError(f"the mail server could not be reached: {type(error).__name__}: {error}"[:300]) from None
