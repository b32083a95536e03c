"""Operators in Chromium (issue 40): a visitor who asks for a person is announced on a dashboard page that is not the
Inbox, by a badge and a system notification; after office hours the widget's hand-off offers a form, and the
message left there reaches the owner's inbox. Screenshots: `tests/artifacts/operators-*.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.support.browser import HostSite, Service
from tests.support.dashboard import Dashboard
from tests.support.handoff import ASKING, hand_off_bot, visitor_says

# Records the notifications the page shows (Chromium headless shows none): as the real API, granted.
NOTIFICATION_SPY = """
window.__notifications = [];
window.Notification = class {
  constructor(title, options) { window.__notifications.push({ title, body: options?.body ?? "" }); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
  addEventListener() {}
};
"""


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1280, "height": 900})
    yield opened
    opened.close()


def test_a_waiting_visitor_is_announced_on_every_page(
    context: BrowserContext, server: Service, artifacts: Path
) -> None:
    bot = hand_off_bot(server, "Night desk")
    context.add_init_script(NOTIFICATION_SPY)
    board = Dashboard(context, server)
    page = board.sign_in()  # the Chatbots page: not the Inbox
    page = board.open(f"/bot/{bot}/knowledge", "Knowledge: Night desk")
    expect(page.locator(".waiting[data-checked]")).to_have_count(1)  # the shell has looked once already
    chat = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    visitor_says(server, chat, ASKING)

    badge = page.get_by_role("link").filter(has_text="visitor waiting")
    expect(badge).to_be_visible()
    expect(page.get_by_role("heading", level=1)).to_have_text("Knowledge: Night desk")  # still where it was
    page.screenshot(path=str(artifacts / "operators-badge.png"))
    notes = page.evaluate("window.__notifications")
    assert {"title": "A visitor is waiting: Night desk", "body": ASKING} in notes
    badge.click()  # the badge leads to the longest waiting: this one unless another test's visitor waits
    expect(page.get_by_role("heading", level=1)).to_contain_text("Inbox")
    assert board.problems == []


def _frame(page: Page, url: str):  # type: ignore[no-untyped-def]
    page.goto(url)
    page.get_by_role("button", name="Open chat").click()
    chat = page.frame_locator("#botyard-widget iframe")
    expect(chat.get_by_role("button", name="Send")).to_be_enabled()
    return chat


def test_after_hours_the_widget_offers_a_form_that_reaches_the_inbox(
    context: BrowserContext, board: Dashboard, server: Service, host_site: HostSite, artifacts: Path
) -> None:
    bot = hand_off_bot(server, "Closed desk")
    server.api("POST", f"/chatbot/{bot}/update", {"visibility": "public"})
    server.api(
        "POST", f"/chatbot/{bot}/office-hours", {"enabled": True, "week": {}, "after_hours_message": "We are closed."}
    )
    inbox = board.open(f"/bot/{bot}/inbox", "Inbox: Closed desk")  # open before: it must change without a reload
    expect(inbox.get_by_text("Live updates on.")).to_be_visible()
    page = context.new_page()
    chat = _frame(page, host_site.page_url(bot))
    box = chat.get_by_role("textbox", name="Message")
    box.fill(ASKING)
    box.press("Enter")
    expect(chat.locator("article.msg-assistant").last).to_contain_text("We are closed.")
    form = chat.get_by_role("form", name="Leave us a message")
    expect(form).to_be_visible()
    form.get_by_label("Your email address").fill("not-an-address@")
    form.get_by_label("Your message").fill("Please call me back about invoice 77.")
    form.get_by_role("button", name="Send message").click()
    expect(form.get_by_role("alert")).not_to_be_empty()  # the browser's own check, or the server's 422
    form.get_by_label("Your email address").fill("ann@example.org")
    form.get_by_role("button", name="Send message").click()
    expect(chat.get_by_role("status").filter(has_text="We will write to you by email")).to_be_visible()
    page.screenshot(path=str(artifacts / "operators-after-hours-form.png"))

    waiting = inbox.get_by_role("list", name="Sessions waiting for a person").locator("li[data-uuid]")
    expect(waiting).to_have_count(1)
    expect(waiting.first).to_contain_text("Please call me back about invoice 77.")
    expect(inbox.get_by_text("A visitor left a message after hours (ann@example.org).")).to_be_visible()
