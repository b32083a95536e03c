"""The API documentation renders in Chromium with no network: every request to a host other than the service is
aborted, as on a machine without internet, and Swagger UI (`/docs`) and ReDoc (`/redoc`) still show the API.
Screenshots: `tests/artifacts/api-docs-*.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Route, expect

from tests.support.browser import Service


class Offline:
    """A browser context whose requests reach only the service; the others are aborted and listed."""

    def __init__(self, browser: Browser, server: Service) -> None:
        self.local = urlsplit(server.base).netloc
        self.refused: list[str] = []
        self.context: BrowserContext = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.route("**/*", self._route)

    def _route(self, route: Route) -> None:
        url = route.request.url
        if urlsplit(url).netloc == self.local:
            route.continue_()
        else:
            self.refused.append(url)
            route.abort("internetdisconnected")


@pytest.fixture
def offline(browser: Browser, server: Service) -> Iterator[Offline]:
    opened = Offline(browser, server)
    yield opened
    opened.context.close()


def test_swagger_ui_renders_the_api_with_no_network(offline: Offline, server: Service, artifacts: Path) -> None:
    page = offline.context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.base}/docs")
    ui = page.locator(".swagger-ui")
    expect(ui.locator(".info .title")).to_contain_text("Botyard")
    expect(ui.locator(".opblock-summary-path", has_text="/api/v1/chatbot/create").first).to_be_visible()
    page.screenshot(path=str(artifacts / "api-docs-swagger-ui.png"))
    assert errors == []
    assert offline.refused == []  # nothing even tried to leave: no CDN, no validator badge


def test_redoc_renders_the_api_with_no_network(offline: Offline, server: Service, artifacts: Path) -> None:
    page = offline.context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.base}/redoc")
    expect(page.locator("redoc h1").first).to_contain_text("Botyard")
    expect(page.get_by_text("/api/v1/chatbot/create").first).to_be_attached()
    page.screenshot(path=str(artifacts / "api-docs-redoc.png"))
    assert errors == []
    assert offline.refused == []  # no CDN, no Google fonts, no Redocly logo
