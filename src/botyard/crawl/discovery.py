"""Reading a site's robots.txt and sitemaps through the egress guard and the per-host gate: shared by crawls and
re-syncs (which compare each page's `<lastmod>` with when it was fetched)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from botyard.crawl.hosts import HostGate
from botyard.crawl.sitemaps import Robots, SitemapError, read_sitemap
from botyard.crawl.urls import host_of, normalise
from botyard.egress import EgressClient, EgressError, EgressHTTPError, EgressNetworkError, EgressTimeout

MAX_SITEMAPS = 100
MAX_SITEMAP_FETCH = 20 * 1024 * 1024


async def read_robots(egress: EgressClient, gate: HostGate, url: str) -> Robots:
    """The robots.txt rules of `url`'s host (RFC 9309: 4xx allows all, 5xx and network failures forbid all)."""
    location = normalise("/robots.txt", url)
    assert location is not None
    try:
        async with gate.slot(host_of(url)):
            result = await egress.fetch(location, max_bytes=512 * 1024)
    except EgressHTTPError as error:
        return Robots(None, reachable=error.result.status < 500)
    except (EgressNetworkError, EgressTimeout):
        return Robots(None, reachable=False)
    return Robots(result.text())


@dataclass
class Listing:
    pages: list[tuple[str, str | None]] = field(default_factory=list)
    """(normalised URL, `<lastmod>` as given), in sitemap order."""
    failures: list[tuple[str, str]] = field(default_factory=list)
    """(sitemap URL, reason) of the sitemaps that could not be read."""
    fetched_bytes: int = 0


async def list_pages(egress: EgressClient, gate: HostGate, start_url: str, robots: Robots) -> Listing:
    """Every page the site's sitemaps list: from `start_url` itself when it is a sitemap, else the ones robots.txt
    names, else `/sitemap.xml`; sitemap indexes are followed (at most 100 sitemaps)."""
    is_sitemap = start_url.lower().split("?")[0].endswith((".xml", ".xml.gz", ".txt"))
    queue = [start_url] if is_sitemap else []
    queue += robots.sitemaps or ([] if queue else [normalise("/sitemap.xml", start_url) or start_url])
    seen: set[str] = set()
    listing = Listing()
    while queue and len(seen) < MAX_SITEMAPS:
        location = queue.pop(0)
        if location in seen:
            continue
        seen.add(location)
        try:
            async with gate.slot(host_of(location)):
                result = await egress.fetch(location, max_bytes=MAX_SITEMAP_FETCH)
            sitemap = read_sitemap(result.body, result.url)
        except EgressHTTPError as error:
            listing.failures.append((location, f"sitemap: http {error.result.status}"))
            continue
        except (EgressError, SitemapError) as error:
            listing.failures.append((location, f"sitemap: {error.reason}"))
            continue
        listing.fetched_bytes += len(result.body)
        queue += [found for found in sitemap.sitemaps if found not in seen]
        listing.pages += sitemap.pages
    return listing


def unchanged_since(lastmod: str | None, fetched_at: str | None) -> bool:
    """Whether a sitemap's `<lastmod>` says the page has not changed since we fetched it. A bare date counts only
    when it is before the day of the fetch (the page may have changed later that day)."""
    if not lastmod or not fetched_at:
        return False
    try:
        fetched = datetime.fromisoformat(fetched_at.replace("Z", "+00:00"))
        modified = datetime.fromisoformat(lastmod.strip().replace("Z", "+00:00"))
    except ValueError:
        return False
    fetched = fetched if fetched.tzinfo else fetched.replace(tzinfo=UTC)
    if len(lastmod.strip()) == 10:  # YYYY-MM-DD
        return modified.date() < fetched.astimezone(UTC).date()
    modified = modified if modified.tzinfo else modified.replace(tzinfo=UTC)
    return modified <= fetched
