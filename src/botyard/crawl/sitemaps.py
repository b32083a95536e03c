"""Sitemaps (`urlset` and `sitemapindex`, plain or gzipped, or plain-text lists) and robots.txt rules.

Both are untrusted input: XML goes through defusedxml (no entities, no external references), gzip is inflated
with a cap, and the number of URLs taken from one file is capped.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from urllib.robotparser import RobotFileParser

import defusedxml.ElementTree
from defusedxml import DefusedXmlException

from botyard.crawl.urls import normalise

AGENT = "Botyard"
MAX_SITEMAP_BYTES = 50 * 1024 * 1024
"""The sitemaps protocol's own limit for one uncompressed file."""
MAX_URLS_PER_SITEMAP = 50_000


class SitemapError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Sitemap:
    pages: list[tuple[str, str | None]] = field(default_factory=list)
    """(normalised URL, `<lastmod>` as given or None)."""
    sitemaps: list[str] = field(default_factory=list)
    """Further sitemaps, when this one is an index."""


def inflate(body: bytes) -> bytes:
    if not body.startswith(b"\x1f\x8b"):
        return body
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        data = inflater.decompress(body, MAX_SITEMAP_BYTES)
    except zlib.error as error:
        raise SitemapError("bad gzip") from error
    if inflater.unconsumed_tail:
        raise SitemapError("sitemap too large")
    return data


def _local(tag: object) -> str:
    return str(tag).rsplit("}", 1)[-1].lower()


def read_sitemap(body: bytes, url: str) -> Sitemap:
    data = inflate(body)
    found = Sitemap()
    if not data.lstrip().startswith(b"<"):  # a plain-text sitemap: one URL per line
        for line in data.decode("utf-8", "replace").splitlines()[:MAX_URLS_PER_SITEMAP]:
            page = normalise(line, url)
            if page is not None:
                found.pages.append((page, None))
        return found
    try:
        root = defusedxml.ElementTree.fromstring(data)
    except (DefusedXmlException, SyntaxError) as error:  # ParseError is a SyntaxError
        raise SitemapError("bad sitemap xml") from error
    kind = _local(root.tag)
    for entry in list(root)[:MAX_URLS_PER_SITEMAP]:
        values = {_local(child.tag): (child.text or "").strip() for child in entry}
        location = normalise(values.get("loc", ""), url) if values.get("loc") else None
        if location is None:
            continue
        if kind == "sitemapindex":
            found.sitemaps.append(location)
        elif kind == "urlset":
            found.pages.append((location, values.get("lastmod") or None))
    return found


class Robots:
    """One host's robots.txt rules (RFC 9309): a missing file (4xx) allows everything; an unreachable one (5xx,
    network) forbids everything, as the RFC asks."""

    def __init__(self, text: str | None, *, reachable: bool = True) -> None:
        self._parser = RobotFileParser()
        self._parser.parse((text or "").splitlines())
        self.reachable = reachable

    def allows(self, url: str) -> bool:
        return self.reachable and self._parser.can_fetch(AGENT, url)

    @property
    def sitemaps(self) -> list[str]:
        return list(self._parser.site_maps() or [])

    @property
    def delay(self) -> float | None:
        value = self._parser.crawl_delay(AGENT)
        return float(value) if value is not None else None
