"""The API documentation pages (`/docs`, `/redoc`) load nothing from another host: every script, style and icon
they reference is served by the service itself, with its type (tests/browser/api_docs/test_api_docs.py renders them)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from starlette.testclient import TestClient

ASSET_TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


class References(HTMLParser):
    """The addresses a page makes the browser load: `<script src>`, `<link href>`, ReDoc's `spec-url`."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"script": "src", "link": "href", "img": "src", "redoc": "spec-url"}.get(tag)
        self.urls += [value for name, value in attrs if name == wanted and value]


def references(html: str) -> list[str]:
    parser = References()
    parser.feed(html)
    return parser.urls


@pytest.mark.parametrize(("page", "script"), [("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")])
def test_the_docs_pages_reference_only_this_service(client: TestClient, page: str, script: str) -> None:
    response = client.get(page)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "http://" not in response.text and "https://" not in response.text  # no CDN, no Google fonts
    urls = references(response.text)
    assert any(url.endswith(script) for url in urls), urls
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), url
        asset = client.get(url)
        assert asset.status_code == 200, url
        expected = next((kind for suffix, kind in ASSET_TYPES.items() if url.endswith(suffix)), None)
        if expected:
            assert asset.headers["content-type"].startswith(expected), (url, asset.headers["content-type"])
            assert len(asset.content) > 1000 or expected == "image/png", url


def test_the_swagger_ui_page_loads_the_openapi_document_and_its_redirect_page(client: TestClient) -> None:
    html = client.get("/docs").text
    assert "url: '/openapi.json'" in html
    assert "'/docs/oauth2-redirect'" in html
    assert client.get("/docs/oauth2-redirect").status_code == 200
    assert client.get("/openapi.json").json()["info"]["title"] == "Botyard"


def test_redoc_allows_images_from_this_service_only(client: TestClient) -> None:
    """ReDoc's sidebar credit would show Redocly's logo from cdn.redoc.ly: the browser is told not to fetch it."""
    assert client.get("/redoc").headers["content-security-policy"] == "img-src 'self' data:"
