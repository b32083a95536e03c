"""A local SMTP server the mail tests start (aiosmtpd, on a loopback port of its own): it keeps every message it
accepts, and can answer `451` (try again later) to the first ones, as a mail server under load does."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.support.waiting import START, wait_for


@dataclass
class Received:
    sender: str
    recipients: list[str]
    message: EmailMessage
    arrived: float
    """`time.monotonic()` when the server accepted it."""

    @property
    def text(self) -> str:
        body = self.message.get_body(("plain",))
        assert body is not None
        return str(body.get_content())


@dataclass
class MailCatcher:
    """The aiosmtpd handler: accepted messages in order; `refuse` answers 451 to that many messages first."""

    host: str = "127.0.0.1"
    port: int = 0
    refuse: int = 0
    refused: int = 0
    received: list[Received] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self._lock:
            if self.refused < self.refuse:
                self.refused += 1
                return "451 4.3.0 Try again later"
            message = message_from_bytes(envelope.content, policy=policy.default)
            assert isinstance(message, EmailMessage)
            self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), message, time.monotonic()))
        return "250 OK"

    def messages(self) -> list[Received]:
        with self._lock:
            return list(self.received)

    def wait_for_mail(self, count: int = 1, seconds: float = 60) -> list[Received]:
        return wait_for(lambda: len(self.messages()) >= count and self.messages(), seconds, f"{count} emails")

    def settings(self) -> dict[str, Any]:
        """The `Settings` fields that send mail here."""
        return {"smtp_host": self.host, "smtp_port": self.port, "smtp_security": "none"}


def _authenticator(login: str, password: str) -> Any:
    """Accepts exactly `login` with `password` (AUTH PLAIN or LOGIN)."""

    def check(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        given = isinstance(data, LoginPassword) and (data.login, data.password) == (login.encode(), password.encode())
        return AuthResult(success=given, handled=False)  # the server answers (235 or 535)

    return check


class _Controller(Controller):
    """aiosmtpd's controller on a port the kernel chooses as it binds (port 0), then set as `port`: a port chosen
    before (found free, let go, given) could be taken by another process of the parallel suite meanwhile."""

    async def _bound(self) -> Any:
        server = await self.loop.create_server(self._factory_invoker, host=self.hostname, port=0, ssl=self.ssl_context)
        self.port = server.sockets[0].getsockname()[1]
        return server

    def _create_server(self) -> Any:
        return self._bound()


@contextmanager
def smtp_server(refuse: int = 0, credentials: tuple[str, str] | None = None) -> Iterator[MailCatcher]:
    """Started on a port of its own; with `credentials`, AUTH is offered over plain text (loopback only) and checked."""
    catcher = MailCatcher(refuse=refuse)
    auth: dict[str, Any] = {}
    if credentials is not None:
        auth = {"authenticator": _authenticator(*credentials), "auth_require_tls": False}
    # A generous bound for the start (aiosmtpd's own is 5 s): a busy machine is slow, and the wait ends when it is up.
    controller = _Controller(catcher, hostname=catcher.host, ready_timeout=START, **auth)
    controller.start()
    catcher.port = controller.port
    try:
        yield catcher
    finally:
        controller.stop()
