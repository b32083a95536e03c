"""A local IMAP server the email channel's tests start: pymap's in-memory backend, in a thread of its own with its
own event loop, on a loopback port the kernel chooses as it binds. One mailbox (`USER`'s INBOX); mail arrives in it
by IMAP `APPEND` (`deliver`), as a mail server's delivery would put it there. With `idle=False` the server does not
offer `IDLE`, as some servers do not."""

from __future__ import annotations

import asyncio
import imaplib
import threading
from argparse import Namespace
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass

from proxyprotocol.reader import ProxyProtocolReader
from pymap.backend.dict import Config, DictBackend
from pymap.config import BackendCapability
from pymap.imap import IMAPServer

from tests.support.waiting import START

USER = "shop@example.test"
PASSWORD = "app-password-1234"
HOST = "127.0.0.1"


@dataclass
class ImapServer:
    port: int
    loop: asyncio.AbstractEventLoop

    def deliver(self, raw: bytes) -> None:
        """Put one mail into the INBOX (with the standard library's client, as another program would)."""
        with imaplib.IMAP4(HOST, self.port, timeout=START) as client:
            client.login(USER, PASSWORD)
            status, _ = client.append("INBOX", None, None, raw)
            assert status == "OK"

    def credentials(self) -> dict[str, object]:
        """The channel's IMAP credentials for this server (plain IMAP on loopback)."""
        return {
            "imap_host": HOST,
            "imap_port": self.port,
            "imap_security": "none",
            "imap_username": USER,
            "imap_password": PASSWORD,
            "address": USER,
        }


class _WithoutIdle(Config):
    """The in-memory backend's settings, without `IDLE` among its capabilities."""

    @property
    def backend_capability(self) -> BackendCapability:
        return BackendCapability(idle=False, object_id=True, multi_append=True)


@contextmanager
def imap_server(*, idle: bool = True) -> Iterator[ImapServer]:
    ready = threading.Event()
    found: dict[str, object] = {}

    async def serve() -> None:
        args = Namespace(
            demo_data=False,
            demo_user=USER,
            demo_password=PASSWORD,
            debug=False,
            tls=False,
            cert=None,
            key=None,
            host=None,
            port="0",
            inherited_sockets=None,
            proxy_protocol=None,
            passlib_cfg=None,
        )
        backend, config = await DictBackend.init(args)
        if not idle:
            config.__class__ = _WithoutIdle
        config.apply_context()
        async with AsyncExitStack() as stack:
            await backend.start(stack)
            callback = ProxyProtocolReader(config.proxy_protocol).get_callback(IMAPServer(backend.login, config))
            server = await asyncio.start_server(callback, host=HOST, port=0)
            async with server:
                found["port"] = server.sockets[0].getsockname()[1]
                stop = asyncio.Event()
                found["loop"], found["stop"] = asyncio.get_running_loop(), stop
                ready.set()
                await stop.wait()

    thread = threading.Thread(target=lambda: asyncio.run(serve()), name="imap-server", daemon=True)
    thread.start()
    assert ready.wait(START), "the IMAP server did not start"
    port, loop = found["port"], found["loop"]
    assert isinstance(port, int) and isinstance(loop, asyncio.AbstractEventLoop)
    try:
        yield ImapServer(port, loop)
    finally:
        loop.call_soon_threadsafe(found["stop"].set)  # type: ignore[attr-defined]
        thread.join(START)
