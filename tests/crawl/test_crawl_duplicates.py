"""A crawl stores one source per content: `/` and `/index.html` serving the same bytes (and naming no canonical
URL) are one page, whichever address comes first, in one crawl and across the chatbot's crawls. Loopback site, real
app, both databases."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from tests.support.api import Api
from tests.support.jobs import process
from tests.support.sources import crawl, link, sources_by_url
from tests.support.web_site import Page, WebSite

HOME = b"""<!doctype html><html><head><title>Home</title></head><body><main><h1>Welcome</h1>
<p>The shop sells bicycles and repairs them in Springfield.</p>
<a href="/index.html">Home</a> <a href="/about">About</a></main></body></html>"""
ABOUT = b"""<!doctype html><html><head><title>About</title></head><body><main><h1>About us</h1>
<p>A family business since 1982, run by two brothers.</p><a href="/">Home</a></main></body></html>"""


@pytest.fixture
def web() -> Iterator[WebSite]:
    site = WebSite()
    site.pages["/"] = Page(HOME)
    site.pages["/index.html"] = Page(HOME)
    site.pages["/about"] = Page(ABOUT)
    yield site
    site.close()


def skipped(api: Api, crawl_uuid: str) -> dict[str, str]:
    done = api.ok(api.get(f"/crawl/{crawl_uuid}"))
    assert done["state"] == "done"
    return {failure["url"]: failure["reason"] for failure in done["failures"] if failure["state"] == "skipped"}


def test_the_same_page_at_two_addresses_is_one_source(alice: Api, client: TestClient, web: WebSite) -> None:
    bot = alice.chatbot()["uuid"]
    started = crawl(alice, bot, web.url("/"), mode="links")
    process(client, embedder=None)

    stored = sources_by_url(alice, bot)
    assert set(stored) == {web.url("/"), web.url("/about")}
    assert {source["status"] for source in stored.values()} == {"success"}
    assert skipped(alice, started["uuid"]) == {web.url("/index.html"): f"same content as {web.url('/')}"}
    done = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    assert done["pages_done"] == 2 and done["pages_skipped"] == 1
    assert web.hits["/index.html"] == 1  # fetched once to learn what it serves, never parsed into a source


def test_a_later_crawl_skips_another_address_of_a_page_an_earlier_one_stored(
    alice: Api, client: TestClient, web: WebSite
) -> None:
    bot = alice.chatbot()["uuid"]
    crawl(alice, bot, web.url("/"), mode="links", max_depth=0)
    process(client, embedder=None)
    assert set(sources_by_url(alice, bot)) == {web.url("/")}

    again = crawl(alice, bot, web.url("/index.html"), mode="links")
    process(client, embedder=None)
    # "/" itself, fetched again, keeps its source and is no new one; "/index.html" is skipped as its twin.
    assert set(sources_by_url(alice, bot)) == {web.url("/"), web.url("/about")}
    assert skipped(alice, again["uuid"]) == {
        web.url("/index.html"): f"same content as {web.url('/')}",
        web.url("/"): f"already a source: {web.url('/')}",
    }
    assert alice.ok(alice.get(f"/crawl/{again['uuid']}"))["pages_done"] == 1  # "/about", the one new source


def test_different_bytes_or_a_deleted_twin_are_stored(alice: Api, client: TestClient, web: WebSite) -> None:
    web.pages["/index.html"] = Page(HOME.replace(b"Welcome", b"Welcome again"))
    bot = alice.chatbot()["uuid"]
    crawl(alice, bot, web.url("/"), mode="links", max_depth=1)
    process(client, embedder=None)
    assert set(sources_by_url(alice, bot)) == {web.url("/"), web.url("/index.html"), web.url("/about")}

    web.pages["/index.html"] = Page(ABOUT)  # now serves what "/about" stored, but that source is deleted first
    about = sources_by_url(alice, bot)[web.url("/about")]["uuid"]
    alice.ok(alice.post(f"/data-source/{about}/delete"))
    alice.ok(
        alice.post("/data-sources/delete", {"uuids": [sources_by_url(alice, bot)[web.url("/index.html")]["uuid"]]})
    )
    crawl(alice, bot, web.url("/index.html"), mode="links", max_depth=0)
    process(client, embedder=None)
    assert set(sources_by_url(alice, bot)) == {web.url("/"), web.url("/index.html")}


SHOP = b"""<!doctype html><html><head><title>Shop</title>%s</head><body><main><h1>The bicycle shop</h1>
<p>Bicycles sold and repaired in Springfield.</p><a href="/about">About</a> <a href="/contact">Contact</a>
</main></body></html>"""
CONTACT = b"""<!doctype html><html><head><title>Contact</title></head><body><main><h1>Contact</h1>
<p>Call 555-0100 on weekdays.</p><a href="/">Home</a></main></body></html>"""


@pytest.mark.parametrize("canonical", [False, True], ids=["plain", "canonical"])
def test_a_page_added_by_hand_is_not_stored_again_by_a_crawl(
    alice: Api, client: TestClient, web: WebSite, canonical: bool
) -> None:
    """The owner added the home page by hand (written without its "/"), then crawls the site from it: the home page
    is skipped as already a source, pointing at it, whether the crawl would store it under the same address or under
    the canonical URL the page names; only the new pages count as done."""
    head = b'<link rel="canonical" href="/home">' if canonical else b""
    web.pages["/"] = Page(SHOP % head)
    web.pages["/home"] = Page(SHOP % head)
    web.pages["/contact"] = Page(CONTACT)
    bot = alice.chatbot()["uuid"]
    by_hand = link(alice, bot, web.url(""))
    process(client, embedder=None)

    started = crawl(alice, bot, web.url("/"), mode="links")
    process(client, embedder=None)

    stored = sources_by_url(alice, bot)
    assert sorted(stored) == sorted([web.url(""), web.url("/about"), web.url("/contact")])
    assert stored[web.url("")]["uuid"] == by_hand["uuid"]
    done = alice.ok(alice.get(f"/crawl/{started['uuid']}"))
    assert done["state"] == "done" and done["pages_done"] == 2 and done["pages_skipped"] == 1
    (home,) = done["failures"]
    assert home["url"] == web.url("/") and home["state"] == "skipped"
    assert home["reason"] == f"already a source: {web.url('/')}"
    assert home["data_source_uuid"] == by_hand["uuid"]
