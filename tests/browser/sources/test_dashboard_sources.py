"""One source at a time on the Knowledge page, in Chromium against the real service: "View" shows a source's chunks
(paged), "Edit" changes a Q&A pair's answer (the old one no longer found by search), "Delete" removes one row after a
confirmation; a page added by its URL says when it is ready or why it failed. Leaves
`tests/artifacts/dashboard-source-view.png`, `-source-edit.png` and `-source-delete.png`."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support.browser import Service
from tests.support.dashboard import INGESTION, Dashboard, make_chatbot, row_of, wait_for_sources
from tests.support.sources import ARTICLE
from tests.support.web_site import Page, WebSite

CHAPTERS = "\n\n".join(
    f"# Chapter {n}\n\n"
    + " ".join(f"Step {n}.{i} of assembling the Acme bicycle, explained in detail." for i in range(80))
    for n in range(1, 16)
)


def found(server: Service, bot: str, query: str) -> str:
    result = server.api("POST", f"/chatbot/{bot}/retrieve", {"query": query, "method": "bm25"})
    return " ".join(chunk["text"] for chunk in result["chunks"])


def test_view_edit_and_delete_one_source(server: Service, board: Dashboard, artifacts: Path) -> None:
    bot = make_chatbot(server, "Sources bot", with_qa=False)
    pair = {"question": "Do you ship abroad?", "answer": "Only within Belgium, by bicycle courier."}
    server.api("POST", f"/chatbot/{bot}/data-source/qa", pair)
    server.api("POST", f"/chatbot/{bot}/data-source/qa", {"question": "Do you repair bikes?", "answer": "Yes."})
    manual = server.api(
        "POST", f"/chatbot/{bot}/data-source/upload", files={"file": ("manual.md", CHAPTERS.encode(), "text/markdown")}
    )
    wait_for_sources(server, bot)
    total = server.api("GET", f"/data-source/{manual['uuid']}/chunks", params={"limit": 1})["total"]
    assert total > 50
    title = server.api("GET", f"/data-source/{manual['uuid']}")["title"]  # the document's own title
    page = board.open(f"/bot/{bot}/knowledge", "Knowledge: Sources bot")

    # View: a document's chunks, 50 at a time, in order, with their headings.
    page.get_by_role("button", name=f"View {title}", exact=True).click()
    panel = page.get_by_role("dialog", name=title)
    chunks = panel.get_by_role("list", name=f"Chunks of {title}").get_by_role("listitem")
    expect(chunks).to_have_count(50)
    expect(panel.get_by_role("status").first).to_contain_text(f"{total} chunks, showing 50")
    expect(panel).to_contain_text("The extracted text is not kept")
    expect(chunks.first).to_contain_text("Chapter 1")
    expect(chunks.first).to_contain_text("Step 1.0 of assembling")
    page.screenshot(path=artifacts / "dashboard-source-view.png")
    panel.get_by_role("button", name="Show more chunks").click()
    expect(chunks).to_have_count(total)
    expect(panel.get_by_role("button", name="Show more chunks")).to_be_hidden()
    panel.get_by_role("button", name="Close").click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_role("button", name=f"Edit {title}", exact=True)).to_be_hidden()  # only Q&A pairs are edited

    # Edit: a Q&A pair's answer; the panel shows the new chunk, search no longer finds the old answer.
    assert "Belgium" in found(server, bot, "ship abroad Belgium courier")
    page.get_by_role("button", name="Edit Do you ship abroad?").click()
    panel = page.get_by_role("dialog", name="Do you ship abroad?")
    answer = panel.get_by_label("Answer")
    expect(panel.get_by_label("Question")).to_be_focused()
    expect(answer).to_have_value(pair["answer"])
    answer.fill("Yes, to every country of the European Union, by post.")
    panel.get_by_role("button", name="Save Q&A").click()
    expect(panel.get_by_role("status").filter(has_text="Saved")).to_be_visible()
    expect(panel.get_by_role("listitem")).to_have_count(1)
    expect(panel.get_by_role("listitem")).to_contain_text("European Union, by post.")
    page.screenshot(path=artifacts / "dashboard-source-edit.png")
    panel.get_by_role("button", name="Close").click()
    status = row_of(page, "Do you ship abroad?").locator("[data-status]")
    expect(status).to_have_attribute("data-status", "success", timeout=INGESTION)
    assert "Belgium" not in found(server, bot, "ship abroad Belgium courier")
    assert "European Union" in found(server, bot, "ship abroad European Union")

    # Delete one row, after a confirmation; cancelling keeps it.
    page.get_by_role("button", name="Delete Do you repair bikes?").click()
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    expect(row_of(page, "Do you repair bikes?")).to_have_count(1)
    page.get_by_role("button", name="Delete Do you repair bikes?").click()
    expect(page.get_by_role("dialog")).to_contain_text("Delete “Do you repair bikes?” and its chunks?")
    page.screenshot(path=artifacts / "dashboard-source-delete.png")
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(row_of(page, "Do you repair bikes?")).to_have_count(0)
    expect(page.get_by_role("status").filter(has_text="Deleted “Do you repair bikes?”")).to_be_visible()
    titles = sorted(s["title"] for s in server.api("GET", f"/chatbot/{bot}/data-sources"))
    assert titles == sorted(["Do you ship abroad?", title])


@pytest.fixture
def web() -> Iterator[WebSite]:
    """A website on loopback (the server's egress allowlist admits 127.0.0.1, any port)."""
    site = WebSite()
    yield site
    for page in site.pages.values():
        if page.hold is not None:
            page.hold.set()
    site.close()


def test_a_page_added_by_url_says_when_it_is_ready_or_failed(server: Service, board: Dashboard, web: WebSite) -> None:
    released = threading.Event()
    web.pages["/hours"] = Page(ARTICLE, hold=released)
    bot = make_chatbot(server, "Pages bot", with_qa=False)
    page = board.open(f"/bot/{bot}/knowledge", "Knowledge: Pages bot")
    form = page.locator("form").filter(has=page.get_by_role("heading", name="Web page"))

    # While the site holds the page, the message says it is being fetched; once it is ready, it says so.
    form.get_by_label("Page URL").fill(web.url("/hours"))
    form.get_by_role("button", name="Add URL").click()
    expect(form.get_by_role("status")).to_have_text("Page added: it is being fetched.")
    row = row_of(page, web.url("/hours")).locator("[data-status]")
    expect(row).not_to_have_attribute("data-status", "success")
    released.set()
    ready = "Page ready: “Opening hours” is in the knowledge."
    expect(form.get_by_role("status")).to_have_text(ready, timeout=INGESTION)
    expect(row_of(page, "Opening hours").locator("[data-status]")).to_have_attribute("data-status", "success")

    # A page the site does not have: the message turns into an alert with the reason.
    form.get_by_label("Page URL").fill(web.url("/closed"))
    form.get_by_role("button", name="Add URL").click()
    expect(form.get_by_role("alert")).to_contain_text("The page could not be read: ", timeout=INGESTION)
    expect(form.locator("[role=status]")).to_have_text("")  # no longer "being fetched"
    (failed,) = [s for s in server.api("GET", f"/chatbot/{bot}/data-sources") if s["file_name"].endswith("/closed")]
    assert failed["status"].startswith("error")
    expect(form.get_by_role("alert")).to_contain_text(failed["status"].removeprefix("error:").strip())
