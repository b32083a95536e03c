"""The Knowledge page's "Whole website" section in Chromium: a crawl of a small site on loopback started from the form,
followed live to the end, its pages in the sources table, the page robots.txt forbids among the failures; the
re-sync schedule and "Check now"; cancelling a crawl. Leaves `tests/artifacts/dashboard-crawl.png`.

The site is served by the test on 127.0.0.1, which the server's egress allowlist admits (any port).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.support.browser import Service
from tests.support.dashboard import INGESTION, Dashboard, make_chatbot, row_of

GUIDES = 7
HELD = f"/guide/{GUIDES}"
"""Answered only once the test lets it go, so the crawl is seen running."""
ROBOTS = "User-agent: *\nDisallow: /private/\n"


class SmallSite:
    """`/` links `/guide/1`…`/guide/7` and `/private/secret` (robots.txt forbids `/private/`); `/slow/` is held
    until `release_slow` is set (the crawl to cancel)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.release_slow = threading.Event()
        self.texts = {f"/guide/{n}": f"Guide {n}: setting up part {n} of the Acme kit." for n in range(1, GUIDES + 1)}
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == HELD:
                    site.release.wait(30)
                if self.path.startswith("/slow/"):
                    site.release_slow.wait(30)
                status, kind, body = site.respond(self.path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def respond(self, path: str) -> tuple[int, str, bytes]:
        if path == "/robots.txt":
            return 200, "text/plain", ROBOTS.encode()
        if path == "/":
            links = [f"/guide/{n}" for n in range(1, GUIDES + 1)] + ["/private/secret"]
            return 200, "text/html", page("Acme kit", "Every guide to the Acme kit.", links)
        if path in self.texts:
            return 200, "text/html", page(f"Acme {path[1:]}", self.texts[path], ["/"])
        if path in ("/private/secret", "/slow/"):
            return 200, "text/html", page("Elsewhere", "Not for the crawler.", [])
        return 404, "text/plain", b"not found"

    def close(self) -> None:
        self.release.set()
        self.release_slow.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def page(title: str, text: str, links: list[str]) -> bytes:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    head = f"<!doctype html><html><head><title>{title}</title></head>"
    return f"{head}<body><h1>{title}</h1><p>{text}</p><ul>{anchors}</ul></body></html>".encode()


@pytest.fixture
def site() -> Iterator[SmallSite]:
    served = SmallSite()
    yield served
    served.close()


def crawl_of(page: Page, url: str) -> Locator:
    """The crawl of `url` in the list of crawls."""
    head = page.locator(".crawl-head .crawl-url").filter(has_text=re.compile(f"^{re.escape(url)}$"))
    return page.get_by_role("list", name="Crawls").locator("> li").filter(has=head)


def test_crawl_a_site_keep_it_fresh_and_cancel(
    server: Service, board: Dashboard, site: SmallSite, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Crawl bot", with_qa=False)
    page = board.open(f"/bot/{bot}/knowledge", "Knowledge: Crawl bot")
    section = page.get_by_role("region", name="Whole website")
    expect(section.get_by_text("No crawls yet.")).to_be_visible()
    expect(section.get_by_label("Same host only")).to_be_checked()

    # A refused start URL: the server's message, in an alert.
    section.get_by_label("Start URL").fill("ftp://example.com/")
    section.get_by_role("button", name="Start crawl").click()
    expect(section.get_by_role("alert")).to_contain_text("not an http or https URL")

    start = f"{site.base}/"
    section.get_by_label("Start URL").fill(start)
    section.get_by_label("Mode").select_option("links")
    section.get_by_label("Exclude patterns").fill("/nothing/*, /archive/*")
    section.get_by_role("button", name="Start crawl").click()
    expect(section.get_by_role("status").filter(has_text="started")).to_be_visible()
    (crawl,) = server.api("GET", f"/chatbot/{bot}/crawls")
    assert crawl["mode"] == "links" and crawl["scope"]["exclude"] == ["/nothing/*", "/archive/*"]
    assert crawl["scope"]["same_host"] is True and crawl["max_pages"] == 500 and crawl["max_depth"] == 5

    # Live: while the last guide is held, the crawl is running, and its first pages are already sources.
    item = crawl_of(page, start)
    expect(item).to_have_attribute("data-state", "running")
    expect(item.locator(".crawl-counts")).to_have_text("Found 9 · Added 7 · Failed 1 · Skipped 0")
    expect(item.get_by_role("button", name="Cancel crawl")).to_be_visible()
    expect(row_of(page, f"{site.base}/guide/1")).to_have_count(1)
    site.release.set()
    expect(item).to_have_attribute("data-state", "done")
    expect(item.locator(".crawl-counts")).to_have_text("Found 9 · Added 8 · Failed 1 · Skipped 0")
    expect(item.get_by_role("button", name="Cancel crawl")).to_be_hidden()
    expect(section.get_by_role("status").filter(has_text="8 new pages added, 1 failed")).to_be_visible()

    # Every page fetched is a source that reaches success; the forbidden one is a failure, with its reason.
    done = page.locator('table.sources tbody [data-status="success"]')
    expect(done).to_have_count(GUIDES + 1, timeout=INGESTION)
    sources = server.api("GET", f"/chatbot/{bot}/data-sources")
    expected = {f"{site.base}/", *(f"{site.base}{path}" for path in site.texts)}
    assert {s["file_name"] for s in sources} == expected and {s["status"] for s in sources} == {"success"}
    expect(row_of(page, "Acme kit")).to_contain_text(f"{site.base}/")
    failures = item.locator("details")
    failures.locator("summary").click()
    expect(failures.locator("summary")).to_have_text("1 page not added")
    expect(failures.get_by_role("listitem")).to_have_text(f"{site.base}/private/secret robots.txt forbids")

    # Keep fresh: a daily schedule, saved on the server, its next run shown.
    fresh = page.get_by_role("region", name="Keep fresh")
    expect(fresh.locator(".next-run")).to_have_text("Not scheduled")
    expect(fresh.locator(".last-summary")).to_have_text("No run yet")
    fresh.get_by_label("Schedule").select_option(label="Daily")
    fresh.get_by_role("button", name="Save schedule").click()
    expect(fresh.get_by_role("status")).to_have_text("Schedule: Daily.")
    sync = server.api("GET", f"/chatbot/{bot}/sync")
    assert sync["schedule"] == "daily" and sync["next_run_at"] and sync["last_run_at"] is None
    expect(fresh.locator(".next-run time")).to_have_attribute("datetime", sync["next_run_at"])

    # Check now, with one page changed meanwhile: the run's counts appear, and the schedule goes on from it.
    site.texts["/guide/2"] = "Guide 2, revised: part 2 now ships with a spare battery."
    fresh.get_by_role("button", name="Check now").click()
    expect(fresh.get_by_role("status")).to_have_text("Checking every web page now…")
    expect(fresh.get_by_role("status")).to_have_text("Check finished: 8 pages checked.", timeout=INGESTION)
    summary = "Checked 8 · Unchanged 7 · Changed 1 · Gone 0 · Failed 0 · Skipped 0"
    expect(fresh.locator(".last-summary")).to_have_text(summary)
    sync = server.api("GET", f"/chatbot/{bot}/sync")
    assert (
        sync["last_summary"] == {"checked": 8, "unchanged": 7, "changed": 1, "gone": 0, "failed": 0, "skipped": 0}
        and sync["schedule"] == "daily"
    )
    expect(fresh.locator(".last-run time")).to_have_attribute("datetime", sync["last_run_at"])
    expect(fresh.locator(".next-run time")).to_have_attribute("datetime", sync["next_run_at"])
    # The changed page is re-indexed, and the sources table shows it (its token count moves).
    changed = row_of(page, f"{site.base}/guide/2")
    tokens_before = next(s["tokens"] for s in sources if s["file_name"] == f"{site.base}/guide/2")
    expect(changed.locator("td.num")).not_to_have_text(str(tokens_before), timeout=INGESTION)
    expect(changed.locator("[data-status]")).to_have_attribute("data-status", "success", timeout=INGESTION)

    # A crawl cancelled while its first page is held: it stops, and says so.
    slow = f"{site.base}/slow/"
    section.get_by_label("Start URL").fill(slow)
    section.get_by_role("button", name="Start crawl").click()
    held = crawl_of(page, slow)
    expect(held).to_have_attribute("data-state", "running")
    held.get_by_role("button", name="Cancel crawl").click()
    expect(held).to_have_attribute("data-state", "cancelled")
    expect(section.get_by_role("status").filter(has_text="cancelled: the pages already added stay")).to_be_visible()
    expect(held.get_by_role("button", name="Cancel crawl")).to_be_hidden()
    states = {c["url"]: c["state"] for c in server.api("GET", f"/chatbot/{bot}/crawls")}
    assert states == {start: "done", slow: "cancelled"}
    site.release_slow.set()
    expect(crawl_of(page, start)).to_have_attribute("data-state", "done")
    page.screenshot(path=artifacts / "dashboard-crawl.png", full_page=True)

    # The section fits a phone, long addresses and all.
    page.set_viewport_size({"width": 360, "height": 740})
    width: Any = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 360
