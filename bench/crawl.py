"""Crawl benchmark: how fast `botyard serve` crawls a 1,000-page loopback site into sources, and how cheap a re-sync
of the unchanged site is.

What one run measures (a fresh database and server per backend, embeddings off):

- The site: `--pages` generated articles (600-1000 words each), `index.html` linking 20 section pages that link
  the articles (depth 2), a `sitemap.xml` listing every page with its `<lastmod>`, and a robots.txt naming it.
  Served by the standard library's `http.server` in its own process (it answers `If-Modified-Since` with 304).
- For each mode (`sitemap`, `links`): from the POST that starts the crawl until the crawl is `done` (pages fetched
  and stored), and until every source is `success` (parsed, chunked, indexed): pages per second for both.
- Re-sync: `POST /chatbot/{uuid}/sync/run` on the crawled (unchanged) site, until the run is recorded: its time
  against the first crawl's end-to-end time. Target: under a tenth.

Run from the repository root, in its virtualenv:

    python bench/crawl.py                       # 1,000 pages, SQLite
    python bench/crawl.py --pages 300 --backend postgres --postgres-url postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from _content import write_site
from _harness import Server, loopback_site, postgres_database

SECTIONS = 20
DONE_STATES = {"done", "cancelled", "failed"}


def build_site(directory: Path, pages: int, lastmod: bool) -> None:
    """Articles, section pages linking them, an index linking the sections, a sitemap and robots.txt."""
    articles = write_site(directory, pages, seed=7)
    per_section = -(-len(articles) // SECTIONS)
    sections = []
    for number in range(SECTIONS):
        links = "".join(
            f'<li><a href="{path}">{path}</a></li>' for path in articles[number * per_section :][:per_section]
        )
        name = f"/section-{number:02d}.html"
        (directory / name[1:]).write_text(
            f"<html><head><title>Section {number}</title></head><body><ul>{links}</ul></body></html>"
        )
        sections.append(name)
    index = "".join(f'<li><a href="{path}">{path}</a></li>' for path in sections)
    (directory / "index.html").write_text(f"<html><head><title>Home</title></head><body><ul>{index}</ul></body></html>")
    listed = ["/index.html", *sections, *articles]
    stamp = f"<lastmod>{datetime.now(UTC).isoformat(timespec='seconds')}</lastmod>" if lastmod else ""
    (directory / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + "".join(f"<url><loc>BASE{path}</loc>{stamp}</url>" for path in listed)
        + "</urlset>"
    )
    (directory / "robots.txt").write_text("User-agent: *\nAllow: /\nSitemap: BASE/sitemap.xml\n")


def wait_for(condition: Callable[[], bool], seconds: float = 1800) -> float:
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > seconds:
            raise TimeoutError("gave up waiting")
        time.sleep(0.1)
    return time.monotonic() - started


def run(backend: str, pages: int, postgres_url: str | None, delay: str, lastmod: bool) -> None:
    with tempfile.TemporaryDirectory() as temp:
        site_dir, data_dir = Path(temp, "site"), Path(temp, "data")
        site_dir.mkdir()
        data_dir.mkdir()
        build_site(site_dir, pages, lastmod)
        with contextlib.ExitStack() as stack:
            base = stack.enter_context(loopback_site(site_dir))
            for name in ("sitemap.xml", "robots.txt"):
                path = site_dir / name
                path.write_text(path.read_text().replace("BASE", base))
            settings = {"BOTYARD_EMBEDDER": "none", "BOTYARD_CRAWL_DELAY": delay}
            if backend == "postgres":
                assert postgres_url, "--postgres-url is needed for PostgreSQL"
                database = stack.enter_context(postgres_database(postgres_url))
                settings["BOTYARD_DATABASE_URL"] = database.url
            server = Server(data_dir, settings)
            key = server.create_key()
            stack.enter_context(server.running())
            client = stack.enter_context(
                httpx.Client(base_url=f"{server.base}/api/v1", headers={"Authorization": f"Bearer {key}"}, timeout=60)
            )
            total = pages + SECTIONS + 1
            print(f"\n{backend}: {total} pages, crawl delay {delay} s")
            for mode in ("sitemap", "links"):
                crawl_mode(client, base, mode, total)


def crawl_mode(client: httpx.Client, base: str, mode: str, total: int) -> None:
    bot = client.post("/chatbot/create", json={"name": f"crawl {mode}"}).json()["uuid"]
    start = f"{base}/index.html" if mode == "links" else f"{base}/"
    started = time.monotonic()
    crawl = client.post(f"/chatbot/{bot}/data-source/crawl", json={"url": start, "mode": mode, "max_pages": 10_000})
    crawl.raise_for_status()
    uuid = crawl.json()["uuid"]
    state: dict[str, Any] = {}

    def crawl_done() -> bool:
        state.update(client.get(f"/crawl/{uuid}").json())
        return state["state"] in DONE_STATES

    crawled = wait_for(crawl_done)

    def all_indexed() -> bool:
        listed = client.get(f"/chatbot/{bot}/data-sources").json()
        return len(listed) >= state["pages_done"] and all(
            s["status"] in ("success",) or s["status"].startswith("error") for s in listed
        )

    wait_for(all_indexed)
    indexed = time.monotonic() - started
    found = state["pages_done"]
    print(
        f"  {mode:8s} crawl: {found}/{total} pages in {crawled:6.1f} s = {found / crawled:6.1f} pages/s; "
        f"indexed: {indexed:6.1f} s = {found / indexed:6.1f} pages/s; failed {state['pages_failed']}"
    )
    before = client.get(f"/chatbot/{bot}/sync").json()["last_run_at"]
    resync_started = time.monotonic()
    client.post(f"/chatbot/{bot}/sync/run").raise_for_status()
    wait_for(lambda: client.get(f"/chatbot/{bot}/sync").json()["last_run_at"] != before)
    resync = time.monotonic() - resync_started
    summary = client.get(f"/chatbot/{bot}/sync").json()["last_summary"]
    verdict = "met" if resync < indexed / 10 else "MISSED"
    print(
        f"  {mode:8s} re-sync (unchanged): {resync:5.1f} s = {resync / indexed:.3f} of the first crawl "
        f"(target < 0.1: {verdict}); {summary}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=1000, help="articles on the site (default 1000)")
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--postgres-url", help="an admin URL; a database is created for the run and dropped")
    parser.add_argument("--delay", default="0.05", help="BOTYARD_CRAWL_DELAY, seconds between request starts per host")
    parser.add_argument(
        "--no-lastmod", action="store_true", help="a sitemap without <lastmod>: the re-sync asks every page (304s)"
    )
    args = parser.parse_args()
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    for backend in backends:
        run(backend, args.pages, args.postgres_url, args.delay, not args.no_lastmod)


if __name__ == "__main__":
    main()
