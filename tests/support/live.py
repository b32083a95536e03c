"""The app served over real loopback HTTP inside the test process, for requests that must run at the same moment:
each on a connection of its own, handled concurrently by the server as in production. `live_app` serves it from a
thread, for tests that send from threads (`at_once`); `serving` in the test's own event loop, for async tests.

The socket is bound here and handed to uvicorn, so that its port is the server's from the start (no other process
can take it between a probe and the server's bind); the server's own log goes to the test's output."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx2 as httpx
import uvicorn
from fastapi import FastAPI

from botyard.config import Settings
from botyard.main import create_app
from tests.support.fake_dns import FakeDns
from tests.support.processes import GRACE
from tests.support.waiting import START, until, wait_for


@contextmanager
def live_app(settings: Settings) -> Iterator[str]:
    """The app on `settings`' database, served on a loopback port bound here; its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(settings, resolver=FakeDns()), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()

    def started() -> bool:
        assert thread.is_alive(), "the server's thread ended (its log is in the test's output)"
        return server.started

    try:
        wait_for(started, START, what="the in-process server starting")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(GRACE)
        sock.close()


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


def at_once(count: int, send: Callable[[httpx.Client, int], httpx.Response]) -> list[httpx.Response]:
    """`count` requests sent together: each thread opens its connection first, then all wait at a barrier and send
    (`send(client, number)`), so that the server has them all in hand at the same moment."""
    barrier = threading.Barrier(count)

    def one(number: int) -> httpx.Response:
        with httpx.Client(timeout=START) as client:
            barrier.wait(timeout=START)
            return send(client, number)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(one, range(count)))


def statuses(responses: list[httpx.Response]) -> list[tuple[int, Any]]:
    """Each reply's status and error code (None for a success), sorted."""
    found = [(r.status_code, r.json().get("code") if r.status_code >= 400 else None) for r in responses]
    return sorted(found, key=str)
