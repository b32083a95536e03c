"""A real web server on loopback for ingestion tests: pages a test defines, counted requests; what is POSTed to it
(a callback pointed here) is kept and answered 200."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.webhook_receiver import Received


@dataclass
class Page:
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (a slow origin)."""
    hold: threading.Event | None = None
    """Answered only once this is set (at most 30 s later): a page the test sees being fetched."""


class WebSite:
    """Serves `pages` (path → Page) on 127.0.0.1; unknown paths answer 404. `hits` counts requests per path; `posts`
    holds every POST, in order."""

    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.hits: Counter[str] = Counter()
        self.posts: list[Received] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                site.hits[self.path] += 1
                page = site.pages.get(self.path, Page(b"<h1>Not found</h1>", status=404))
                if page.delay:
                    time.sleep(page.delay)
                if page.hold is not None:
                    page.hold.wait(30)
                self.send_response(page.status)
                self.send_header("Content-Type", page.content_type)
                self.send_header("Content-Length", str(len(page.body)))
                for name, value in page.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(page.body)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {name.lower(): value for name, value in self.headers.items()}
                site.posts.append(Received("POST", self.path, headers, body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        port: int = self.server.server_address[1]
        return port

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
