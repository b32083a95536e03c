"""Browser tests: Debian's Chromium driven by Playwright, against `botyard serve` as a real process on loopback.

- `server`: the service on 127.0.0.1 (SQLite, jobs in process, keyword search, the offline answerer).
- `host_site`: another origin (`localhost` on another port) serving pages that embed the widget with its one line,
  as a customer's website would; `host_site.page_url(chatbot_uuid)`.
- `browser`: one Chromium per test module; each test opens its own contexts (separate storage).
- `artifacts`: `tests/artifacts/`, where screenshots go (not committed).

No browser is downloaded: Playwright launches `/usr/bin/chromium` (`.ci/run` installs it), with the background
networking that this machine's closed network refuses turned off.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from botyard.config import Settings
from tests.test_crash import Server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


class Service:
    """The running service and an owner's key for it."""

    def __init__(self, server: Server, key: str) -> None:
        self.server = server
        self.base = server.base
        self.key = key

    def api(self, method: str, path: str, json: Any = None, **kwargs: Any) -> Any:
        """An owner's API call; asserts a 200 and returns the JSON body."""
        headers = {"Authorization": f"Bearer {self.key}"}
        response = httpx.request(method, f"{self.base}/api/v1{path}", json=json, headers=headers, timeout=30, **kwargs)
        assert response.status_code == 200, (method, path, response.status_code, response.text)
        return response.json()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    process = Server(Settings(data_dir=tmp_path_factory.mktemp("browser-data")))
    key = process.key()
    process.start()
    try:
        yield Service(process, key)
    finally:
        process.stop()


class HostSite:
    """A customer's website on another origin: `/page/<chatbot_uuid>` embeds the widget with the README's one line."""

    def __init__(self, botyard_base: str) -> None:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                chatbot = self.path.removeprefix("/page/").split("?")[0]
                body = site.page(chatbot).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.botyard_base = botyard_base
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://localhost:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def page(self, chatbot_uuid: str) -> str:
        script = (
            f'<script src="{self.botyard_base}/widget.js" data-chatbot="{html.escape(chatbot_uuid)}" async></script>'
        )
        return f"<!doctype html><html><head><title>Acme</title></head><body><h1>Acme docs</h1>{script}</body></html>"

    def page_url(self, chatbot_uuid: str) -> str:
        return f"{self.origin}/page/{chatbot_uuid}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def host_site(server: Service) -> Iterator[HostSite]:
    site = HostSite(server.base)
    yield site
    site.close()


@pytest.fixture(scope="session")
def other_site(server: Service) -> Iterator[HostSite]:
    """A second website, on an origin of its own (for the allowed-origins tests)."""
    site = HostSite(server.base)
    yield site
    site.close()


# Module scope: Playwright's sync API runs an event loop in the main thread while it is started, and the rest of
# the suite calls asyncio.run(), which refuses to run inside it; each browser module starts and stops its own.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)"
    launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
