"""Operators in Chromium (issue 40): a visitor who asks for a person is announced on a dashboard page that is not the
Inbox, by a badge and a system notification; after office hours the widget's hand-off offers a form, and the
message left there reaches the owner's inbox. Screenshots: `tests/artifacts/operators-*.png`."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.support.browser import HostSite, Service
from tests.support.dashboard import Dashboard, header_menu
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

    badge = page.get_by_role("link").filter(has_text=re.compile(r"visitors? waiting"))  # another test's may wait too
    expect(badge).to_be_visible()
    expect(page.get_by_role("heading", level=1)).to_have_text("Knowledge: Night desk")  # still where it was
    page.screenshot(path=str(artifacts / "operators-badge.png"))
    # The badge may show another test's visitor first (the service is shared): wait for this one's announcement.
    page.wait_for_function(
        "(title) => window.__notifications.some((note) => note.title === title)", arg="A visitor is waiting: Night desk"
    )
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

    waiting = inbox.get_by_role("list", name="Conversations").locator("li[data-uuid]")
    expect(waiting).to_have_count(1)
    expect(waiting.first).to_contain_text("Please call me back about invoice 77.")
    expect(inbox.get_by_text("A visitor left a message after hours (ann@example.org).")).to_be_visible()


def _operator(browser: Browser, server: Service, name: str) -> tuple[BrowserContext, Dashboard, str]:
    """An operator invited by the service's key, signed in to the dashboard 360 px wide (a phone)."""
    email = f"{name.lower()}-{secrets.token_hex(4)}@example.com"
    link = server.api("POST", "/account/invitation/create", {"email": email, "role": "operator"})["link"]
    body = {"token": link.split("#invite=", 1)[1], "name": name, "password": "a long enough password"}
    assert httpx.post(f"{server.base}/api/v1/auth/invitation/accept", json=body, timeout=30).status_code == 200
    context = browser.new_context(viewport={"width": 360, "height": 800})
    board = Dashboard(context, server)
    board.page.goto(f"{server.base}/dashboard")
    board.page.get_by_label("Email").fill(email)
    board.page.get_by_label("Password").fill("a long enough password")
    board.page.get_by_role("button", name="Sign in", exact=True).click()
    expect(board.page.get_by_role("heading", name="Chatbots", level=1)).to_be_visible()
    return context, board, email


def test_an_operator_says_when_they_are_away_and_signs_their_replies(
    browser: Browser, context: BrowserContext, server: Service, host_site: HostSite, artifacts: Path
) -> None:
    bot = hand_off_bot(server, "Named desk")
    server.api("POST", f"/chatbot/{bot}/update", {"visibility": "public"})
    operator, board, email = _operator(browser, server, "Nadia")
    try:
        page = board.page
        header_menu(page, "account")  # on the phone, the Menu holds it
        presence = page.get_by_role("button", name="Available")
        expect(presence).to_be_visible()
        presence.click()
        away = page.get_by_role("button", name="Away")
        expect(away).to_have_attribute("aria-pressed", "true")
        members = {member["email"]: member["away"] for member in server.api("GET", "/account/members")}
        assert members[email] is True
        page.screenshot(path=str(artifacts / "operators-away-360.png"))
        away.click()  # back: other tests' visitors are promised a person by whoever is there
        expect(page.get_by_role("button", name="Available")).to_have_attribute("aria-pressed", "false")
        assert {m["email"]: m["away"] for m in server.api("GET", "/account/members")}[email] is False

        chat = _frame(context.new_page(), host_site.page_url(bot))
        box = chat.get_by_role("textbox", name="Message")
        box.fill(ASKING)
        box.press("Enter")
        expect(chat.locator("article.msg-assistant").last).to_contain_text("let our team know")
        inbox = board.open(f"/bot/{bot}/inbox", "Inbox: Named desk")
        inbox.get_by_role("list", name="Conversations").locator("button[data-session]").click()
        inbox.get_by_role("button", name="Take over").click()
        inbox.get_by_label("Reply").fill("Hello, I can help with the invoice.")
        inbox.get_by_role("button", name="Send reply").click()
        reply = chat.get_by_role("article", name="Operator: Nadia")
        expect(reply).to_contain_text("Hello, I can help with the invoice.")
        expect(reply.locator(".by")).to_have_text("Nadia")
        expect(inbox.get_by_role("log", name="Transcript")).to_contain_text("Operator Nadia")
        assert board.problems == []
    finally:
        operator.close()
