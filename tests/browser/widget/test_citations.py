"""One citation rule from server to browser: the page's `shared/citations.js` links a citation exactly where the
server's `citation_link` does (the widget's messages API), for every shape a citation arrives in: whole (the SSE
events) and as a message shows it (the SDK's five keys, the link in `meta_json.citation_links`)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser

from botyard.chat.wire import citation_link, citation_links, public_citations
from tests.support.browser import Service

ENTRIES: list[dict[str, Any]] = [
    {"type": "qa", "title": "Hours", "reference_source_link": "https://example.com/hours"},
    {"type": "link", "title": "FAQ", "file_name": "https://example.com/faq"},
    {
        "type": "link",
        "title": "FAQ",
        "file_name": "https://example.com/faq",
        "reference_source_link": "http://a.example/x",
    },
    {"type": "file", "title": "Manual", "file_name": "manual.pdf"},
    {"type": "file", "title": "Manual", "file_name": "manual.pdf", "reference_source_link": "javascript:alert(1)"},
    {"type": "link", "title": "Odd", "file_name": "ftp://example.com/file"},
    {"type": "qa", "title": "Nothing"},
]


def test_the_browser_links_citations_where_the_server_does(browser: Browser, server: Service) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{server.base}/dashboard")
        found = page.evaluate(
            """async (entries) => {
                const { citationOf } = await import("/static/shared/citations.js");
                return entries.map((entry) => citationOf(entry).url);
            }""",
            ENTRIES,
        )
        stored = {str(index): entry for index, entry in enumerate(ENTRIES)}
        on_message = page.evaluate(
            """async ([cites, links]) => {
                const { citationOf } = await import("/static/shared/citations.js");
                return Object.keys(cites).map((marker) => citationOf(cites[marker], marker, links[marker]).url);
            }""",
            [public_citations(stored), citation_links(stored)],
        )
    finally:
        page.close()
    assert found == [citation_link(entry) for entry in ENTRIES]
    assert on_message == found
    assert found[0] == "https://example.com/hours" and found[3] is None and found[4] is None
