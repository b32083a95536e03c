"""What a crawler reads in a page: its links, its canonical URL, and whether it may follow or keep it.

Parsed with lxml in a worker thread, from at most the first 2 MB of the page (links sit in the markup; a page
larger than that is still stored whole by the ingestion, which parses it in its sandbox).
"""

from __future__ import annotations

from dataclasses import dataclass

import lxml.etree
import lxml.html

from botyard.crawl.urls import normalise

MAX_LINK_BYTES = 2 * 1024 * 1024
MAX_LINKS = 5000


@dataclass(frozen=True)
class PageLinks:
    links: list[str]
    """Normalised absolute http(s) URLs, in page order, each once."""
    canonical: str | None
    follow: bool
    """False under `<meta name="robots" content="nofollow">`."""
    index: bool
    """False under `<meta name="robots" content="noindex">`: the page is not kept as a source."""


def read_links(body: bytes, page_url: str) -> PageLinks:
    try:
        document = lxml.html.document_fromstring(body[:MAX_LINK_BYTES])
    except (lxml.etree.ParserError, ValueError):
        return PageLinks([], None, True, True)
    base = page_url
    for href in document.xpath("//base/@href")[:1]:
        base = normalise(str(href), page_url) or page_url
    directives = " ".join(
        str(content).lower()
        for meta in document.xpath("//meta[@name]")
        if str(meta.get("name", "")).lower() in ("robots", "botyard")
        for content in [meta.get("content", "")]
    )
    canonical = None
    for link in document.xpath("//link[@rel][@href]"):
        if "canonical" in str(link.get("rel", "")).lower().split():
            canonical = normalise(str(link.get("href")), base)
            break
    found: dict[str, None] = {}
    for href in document.xpath("//a/@href"):
        url = normalise(str(href), base)
        if url is not None:
            found.setdefault(url)
            if len(found) >= MAX_LINKS:
                break
    return PageLinks(list(found), canonical, "nofollow" not in directives, "noindex" not in directives)
