"""The anchor of bench/chat.py's ratios: a bare FastAPI app on uvicorn, doing the least a chat endpoint does.

`POST /api/v1/session/{uuid}/message/stream` with `{"query": ...}` (the path and body the service takes; no key,
session, database, retrieval or storage):
- with `--llm-url`: opens a streaming chat completion to that OpenAI-compatible server with one httpx client (a
  pool as large as the service's default, `llm_max_connections`), reads its server-sent events and relays each
  delta's text as a plain-text streaming response;
- without: answers a fixed text (`FIXED_ANSWER`, about as long as an offline answer).

Run as a child process, like `botyard serve`: `python bench/_bare_stream.py --port P [--workers N] [--llm-url U]`.
With several workers each has a listening socket of its own with SO_REUSEPORT, as `botyard serve --workers` does,
so the kernel spreads the connections the same way. uvicorn runs with the same loop and HTTP implementation as the
service (the environment's: asyncio and h11 here); no access log (the service writes a line per request: part of
what the ratio counts).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import signal
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from _harness import Server
from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, StreamingResponse

MAX_CONNECTIONS = 1000
"""The service's default `llm_max_connections`."""
FIXED_ANSWER = (
    "Here is what the documentation says about that. " * 6
).strip() + " [1]\n\nSources: [1] Bench handbook > Answers"


def create_app(llm_url: str | None) -> FastAPI:
    state: dict[str, httpx.AsyncClient] = {}

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if llm_url:
            limits = httpx.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS)
            state["llm"] = httpx.AsyncClient(base_url=llm_url, limits=limits, timeout=30, trust_env=False)
        yield
        if "llm" in state:
            await state["llm"].aclose()

    app = FastAPI(lifespan=lifespan)

    @app.post("/api/v1/session/{uuid}/message/stream", response_model=None)
    async def stream(uuid: str, request: Request) -> StreamingResponse | PlainTextResponse:
        body = await request.json()
        if not llm_url:
            return PlainTextResponse(FIXED_ANSWER)
        completion = {
            "model": "bench",
            "stream": True,
            "messages": [{"role": "user", "content": str(body.get("query", ""))}],
        }
        return StreamingResponse(relay(state["llm"], completion), media_type="text/plain; charset=utf-8")

    return app


async def relay(client: httpx.AsyncClient, completion: dict[str, Any]) -> AsyncIterator[str]:
    """The text of each delta of a streamed completion, as it comes."""
    async with client.stream("POST", "chat/completions", json=completion) as response:
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            for choice in json.loads(data).get("choices", []):
                text = choice.get("delta", {}).get("content")
                if text:
                    yield text


def _worker(port: int, llm_url: str | None) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # asyncio then sets TCP_NODELAY
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(2048)
    config = uvicorn.Config(create_app(llm_url), access_log=False, log_level="warning", backlog=2048)
    uvicorn.Server(config).run(sockets=[sock])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--llm-url", default=None)
    args = parser.parse_args(argv)
    if args.workers == 1:
        _worker(args.port, args.llm_url)
        return
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_worker, args=(args.port, args.llm_url)) for _ in range(args.workers)]

    def stop(*_: object) -> None:
        for worker in workers:
            worker.terminate()  # SIGTERM: uvicorn finishes open requests, then exits

    signal.signal(signal.SIGTERM, stop)
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


class BareServer(Server):
    """This module as a child process, with `Server`'s interface (pid, service_pids, base, log)."""

    name = "the bare app"

    def __init__(self, data_dir: Path, workers: int = 1, llm_url: str | None = None) -> None:
        super().__init__(data_dir, {}, workers)
        self.llm_url = llm_url

    def own_socket(self) -> socket.socket | None:
        return None  # each of its processes binds the held port itself, with SO_REUSEPORT

    def command(self, fd: int | None) -> list[str]:
        command = [sys.executable, __file__, "--port", str(self.port), "--workers", str(self.workers)]
        return command + (["--llm-url", self.llm_url] if self.llm_url else [])


if __name__ == "__main__":
    main()
