"""A 200-page website on loopback for the crawl tests, counting every request and the most it served at once.

- `/robots.txt` forbids `/private/` and names the sitemap index.
- `/sitemap_index.xml` → `/sitemaps/docs.xml` (plain) and `/sitemaps/blog.xml.gz` (gzip, with `<lastmod>`).
- Pages: `/`, `/docs/` (links every doc), `/docs/0`…`/docs/125`, `/docs/0/details`…`/docs/9/details` (nested),
  `/blog/` (links every post), `/blog/0`…`/blog/59`, `/about` (canonical), and `/private/0`…`/private/9` (forbidden).
- Traps: `/old-docs` redirects to `/docs/0`; `/about?print=1` names `/about` as canonical; links that differ only by a
  fragment or tracking parameters; a link to `intranet.test` (a private address through the fake DNS); an image;
  `mailto:`; the sitemap lists a forbidden page and a fragment variant.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DOCS, DETAILS, POSTS, PRIVATE = 126, 10, 60, 10


class CrawlSite:
    def __init__(self, delay: float = 0.005) -> None:
        self.delay = delay
        self.hits: Counter[str] = Counter()
        self.in_flight = 0
        self.most_in_flight = 0
        self.changed: dict[str, str] = {}
        """Path → replacement text, for pages that change between crawls."""
        self.gone: set[str] = set()
        self.not_modified = 0
        """Conditional requests answered 304."""
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with site._lock:
                    site.hits[self.path] += 1
                    site.in_flight += 1
                    site.most_in_flight = max(site.most_in_flight, site.in_flight)
                try:
                    time.sleep(site.delay)
                    status, headers, body = site.respond(self.path)
                    if status == 200 and "ETag" in headers and headers["ETag"] == self.headers.get("If-None-Match"):
                        status, body = 304, b""
                        with site._lock:
                            site.not_modified += 1
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                finally:
                    with site._lock:
                        site.in_flight -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def url(self, path: str) -> str:
        return self.base + path

    # --- what the site holds --------------------------------------------------------------------------------------

    @staticmethod
    def pages() -> list[str]:
        """Every page path a crawl of the whole site should store (200)."""
        paths = ["/", "/docs/", "/blog/", "/about"]
        paths += [f"/docs/{i}" for i in range(DOCS)] + [f"/docs/{i}/details" for i in range(DETAILS)]
        return paths + [f"/blog/{i}" for i in range(POSTS)]

    def respond(self, path: str) -> tuple[int, dict[str, str], bytes]:
        html = {"Content-Type": "text/html; charset=utf-8"}
        if path in self.gone:
            return 404, html, b"<h1>Gone</h1>"
        if path == "/robots.txt":
            body = f"User-agent: *\nDisallow: /private/\n\nSitemap: {self.base}/sitemap_index.xml\n"
            return 200, {"Content-Type": "text/plain"}, body.encode()
        if path == "/sitemap_index.xml":
            return 200, {"Content-Type": "application/xml"}, self._index()
        if path == "/sitemaps/docs.xml":
            return 200, {"Content-Type": "application/xml"}, self._docs_sitemap()
        if path == "/sitemaps/blog.xml.gz":
            return 200, {"Content-Type": "application/gzip"}, gzip.compress(self._blog_sitemap())
        if path == "/old-docs":
            return 301, {"Location": "/docs/0"}, b""
        page = self._page(path)
        if page is None:
            return 404, html, b"<h1>Not found</h1>"
        etag = '"' + hashlib.sha256(page.encode()).hexdigest()[:16] + '"'
        return 200, html | {"ETag": etag}, page.encode()

    def _page(self, path: str) -> str | None:
        clean = path.split("?", 1)[0]
        links: list[str] = []
        head = ""
        if clean == "/":
            links = [
                "/docs/", "/blog/", "/private/0", "/old-docs", "/docs/1#intro",
                "/docs/2?utm_source=newsletter&utm_medium=email", "/about?print=1", "/assets/logo.png",
                "mailto:help@example.com", "http://intranet.test/secret",
            ]  # fmt: skip
        elif clean == "/docs/":
            links = [f"/docs/{i}" for i in range(DOCS)]
        elif clean == "/blog/":
            links = [f"/blog/{i}" for i in range(POSTS)]
        elif clean == "/about":
            head = f'<link rel="canonical" href="{self.base}/about">'
        elif clean.startswith("/docs/") and clean.endswith("/details"):
            number = clean.split("/")[2]
            if not number.isdigit() or int(number) >= DETAILS:
                return None
        elif clean.startswith("/docs/") or clean.startswith("/blog/") or clean.startswith("/private/"):
            section, number = clean.split("/")[1:3]
            limit = {"docs": DOCS, "blog": POSTS, "private": PRIVATE}[section]
            if not number.isdigit() or int(number) >= limit:
                return None
            if section == "docs" and int(number) < DETAILS:
                links = [f"/docs/{number}/details", "/docs/"]
        else:
            return None
        text = self.changed.get(clean, f"This is the page at {clean}. It explains topic {clean.strip('/') or 'home'}.")
        anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
        body = f"<h1>{clean}</h1><p>{text}</p><ul>{anchors}</ul>"
        return f"<!doctype html><html><head><title>Acme {clean}</title>{head}</head><body>{body}</body></html>"

    def _index(self) -> bytes:
        entries = "".join(
            f"<sitemap><loc>{self.base}{path}</loc></sitemap>"
            for path in ("/sitemaps/docs.xml", "/sitemaps/blog.xml.gz")
        )
        return f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</sitemapindex>'.encode()

    def _docs_sitemap(self) -> bytes:
        paths = ["/", "/docs/", "/about", "/private/0", "/docs/3#top"]
        paths += [f"/docs/{i}" for i in range(DOCS)] + [f"/docs/{i}/details" for i in range(DETAILS)]
        return _urlset((self.base + path, None) for path in paths)

    def _blog_sitemap(self) -> bytes:
        pages = [(f"{self.base}/blog/", None)] + [(f"{self.base}/blog/{i}", "2026-11-01") for i in range(POSTS)]
        return _urlset(pages)


def _urlset(pages: Any) -> bytes:
    entries = "".join(
        f"<url><loc>{url}</loc>" + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "") + "</url>"
        for url, lastmod in pages
    )
    return (
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode()
    )
