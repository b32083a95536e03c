"""The app served over real HTTP on loopback, in the test's own event loop: uvicorn on a socket the test binds
itself (port 0, so no other process can take the port between choosing and binding it), for tests that send
requests truly at once."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from fastapi import FastAPI

from tests.support.waiting import START, until


@asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[str]:
    """The app's base URL while uvicorn serves it (its lifespan run), as `botyard serve` would (no proxy headers)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, proxy_headers=False, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await until(lambda: server.started or task.done(), START, what="uvicorn serving the app")
        if task.done():
            task.result()  # it failed to start: say why
        assert server.started, "uvicorn exited before serving"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()
