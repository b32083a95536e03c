"""The browser tests' service and the customer websites that embed its widget."""

from __future__ import annotations

import html
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from tests.support.servers import Server


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


class HostSite:
    """A customer's website on another origin: `/page/<chatbot_uuid>` embeds the widget with docs/web.md's one line."""

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
