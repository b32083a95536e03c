"""The dashboard's chrome in Chromium, at 1280 px and on a phone's 360 px: every page of the navigation (and every
section of the chatbot page) measured, its header one line (a Menu button on the phone), no sideways scroll of the
page, each table within the viewport; the header's menus keyboard-operable; an operator's read-only chatbot page;
dialogs that close when the address changes."""

from __future__ import annotations

import contextlib
import secrets
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.browser import Service
from tests.support.dashboard import Dashboard, add_member, header_menu, make_chatbot, sign_in_member

HEADER_MAX = 64  # px: one line of the header at 1280, the brand, badge and Menu button at 360
SECTIONS = ["settings", "embed", "widget", "handoff", "channels", "webhooks", "danger"]
# Pages whose table has a row to measure once loaded (the others may show none).
WITH_ROWS = ("#/chatbots", "/knowledge", "/conversations", "#/keys", "#/audit")

MEASURE = """() => ({
  header: document.getElementById("top").getBoundingClientRect().height,
  scroll: document.documentElement.scrollWidth,
  tables: [...document.querySelectorAll("main table")]
    .filter((table) => table.getClientRects().length)
    .map((table) => [table.closest("[aria-label]")?.getAttribute("aria-label") ?? "",
                     table.getBoundingClientRect().left, table.getBoundingClientRect().right]),
})"""


FITS = f"""(width) => {{
  const found = ({MEASURE})();
  return found.header <= {HEADER_MAX} && found.scroll <= width
    && found.tables.every(([, left, right]) => left >= 0 && right <= width);
}}"""


def measure(page: Page, where: str, width: int) -> None:
    # A page may still be drawing what it fetched (a list's rows) when it says it is loaded: its measure is taken
    # once it settles, within a bound; what does not fit by then is reported below.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(FITS, arg=width, timeout=10_000)
    found: Any = page.evaluate(MEASURE)
    assert found["header"] <= HEADER_MAX, (where, width, found["header"])
    assert found["scroll"] <= width, (where, width, found["scroll"])
    for name, left, right in found["tables"]:
        assert left >= 0 and right <= width, (where, width, name, left, right)


def visit(page: Page, base: str, href: str) -> None:
    page.goto(f"{base}/dashboard{href}")
    expect(page.locator("main h1")).to_be_visible()
    expect(page.locator("main .loading")).to_have_count(0)
    if any(href.startswith(item) or href.endswith(item) for item in WITH_ROWS):
        expect(page.locator("main table tbody tr").first).to_be_visible()


def check_menus(page: Page, nav: Locator, width: int) -> None:
    """The phone's Menu (all links) and the desktop's More menu open by a button, close with Escape, focus back."""
    menu = page.get_by_role("button", name="Menu", exact=True)
    if width == 360:
        expect(nav.get_by_role("link", name="Knowledge")).to_be_hidden()
        menu.focus()
        page.keyboard.press("Enter")
        expect(menu).to_have_attribute("aria-expanded", "true")
        expect(nav.get_by_role("link", name="Audit log")).to_be_visible()  # no menu inside the menu
        page.keyboard.press("Escape")
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(menu).to_be_focused()
        expect(nav.get_by_role("link", name="Audit log")).to_be_hidden()
    else:
        expect(menu).to_be_hidden()
        expect(nav.get_by_role("link", name="Knowledge")).to_be_visible()
        more = page.get_by_role("button", name="More", exact=True)
        more.click()
        expect(more).to_have_attribute("aria-expanded", "true")
        expect(nav.get_by_role("link", name="Audit log")).to_be_visible()
        page.keyboard.press("Escape")
        expect(nav.get_by_role("link", name="Audit log")).to_be_hidden()
        expect(more).to_be_focused()


def a_chatbot_with_a_conversation(server: Service, name: str) -> str:
    bot = make_chatbot(server, name)
    session = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    server.api("POST", f"/session/{session}/message/non-stream", {"query": "What are your opening hours?"})
    return bot


@pytest.mark.timeout(900)
@pytest.mark.parametrize("width", [1280, 360])
def test_every_page_fits_at_1280_and_on_a_phone(browser: Browser, server: Service, artifacts: Path, width: int) -> None:
    bot = a_chatbot_with_a_conversation(server, f"Layout bot with a long name {secrets.token_hex(2)}")
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        board = Dashboard(context, server)
        page = board.sign_in()
        page.goto(f"{server.base}/dashboard#/bot/{bot}/knowledge")
        expect(page.get_by_role("heading", level=1)).to_contain_text("Layout bot")
        nav = page.locator("nav[aria-label='Main']")  # on a phone, out of sight until the Menu opens
        hrefs: Any = nav.evaluate("(nav) => [...nav.querySelectorAll('a')].map((a) => a.getAttribute('href'))")
        assert len(hrefs) >= 14 and f"#/bot/{bot}/review" in hrefs and "#/audit" in hrefs

        check_menus(page, nav, width)

        for href in hrefs:
            visit(page, server.base, href)
            measure(page, href, width)
            if href.endswith("/knowledge"):
                page.screenshot(path=artifacts / f"layout-knowledge-{width}.png", full_page=True)
        header_menu(page, "more")
        page.screenshot(path=artifacts / f"layout-menu-{width}.png")
        nav.get_by_role("link", name="Review", exact=True).click()  # a link of a menu closes it
        expect(page.get_by_role("heading", level=1)).to_contain_text("Review")
        expect(page.locator("header [aria-expanded='true']")).to_have_count(0)

        for section in SECTIONS:
            visit(page, server.base, f"#/chatbot/{bot}/{section}")
            tabs = page.get_by_role("navigation", name="Chatbot sections")
            expect(tabs.locator("[aria-current='page']")).to_have_attribute("data-tab", section)
            measure(page, section, width)
        page.goto(f"{server.base}/dashboard#/chatbot/{bot}")
        expect(page.get_by_role("button", name="Save settings")).to_be_visible()
        measure(page, "chatbot", width)
        page.screenshot(path=artifacts / f"chatbot-{width}.png", full_page=True)
        assert board.problems == []
    finally:
        context.close()


def test_an_operator_sees_the_chatbot_read_only_and_no_delete(browser: Browser, server: Service) -> None:
    bot = make_chatbot(server, "Read-only bot", with_qa=False)
    email = add_member(server, "operator")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        board = sign_in_member(context, server, email)
        page = board.open(f"/chatbot/{bot}", "Chatbot: Read-only bot")
        expect(page.get_by_role("note")).to_have_text(
            "Your role (operator) cannot change settings: an admin or the owner of the account can."
        )
        expect(page.get_by_label("Name")).to_be_disabled()
        measure(page, "a person's header (presence, their name)", 1280)
        expect(page.get_by_role("button", name="Save settings")).to_have_count(0)
        tabs = page.get_by_role("navigation", name="Chatbot sections")
        expect(tabs.get_by_role("link", name="Danger zone")).to_have_count(0)
        tabs.get_by_role("link", name="Widget").click()
        expect(page).to_have_url(f"{server.base}/dashboard#/chatbot/{bot}/widget")
        expect(page.get_by_label("Welcome message")).to_be_disabled()
        tabs.get_by_role("link", name="Embed").click()
        expect(page.get_by_role("button", name="Copy embed code")).to_be_enabled()  # reading is not changing
        page.goto(f"{server.base}/dashboard#/chatbot/{bot}/danger")  # the address of a section not offered
        expect(page.get_by_label("Name")).to_be_visible()
        expect(page.get_by_role("button", name="Delete chatbot")).to_have_count(0)
        page.goto(f"{server.base}/dashboard#/chatbots")
        expect(page.get_by_role("button", name="Delete Read-only bot")).to_have_count(0)
        [agent] = server.api("GET", f"/chatbot/{bot}/agents")
        page = board.open(f"/bot/{bot}/agents/{agent['uuid']}", f"Agent: {agent['name']}")
        expect(page.get_by_role("note")).to_have_text(
            "Your role (operator) cannot change agents: an editor, an admin or the owner of the account can."
        )
        expect(page.get_by_label("Name", exact=True)).to_be_disabled()
        assert board.problems == []
    finally:
        context.close()


def test_dialogs_close_when_the_address_changes(board: Dashboard, server: Service) -> None:
    name = f"Dialog bot {secrets.token_hex(2)}"
    bot = make_chatbot(server, name)
    question = "What are your opening hours?"
    page = board.open(f"/bot/{bot}/knowledge", f"Knowledge: {name}")
    page.get_by_role("button", name=f"View {question}", exact=True).click()
    expect(page.get_by_role("dialog", name=question)).to_be_visible()
    page.evaluate("() => { location.hash = '#/chatbots'; }")  # a navigation while the source's panel is open
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_role("heading", level=1)).to_have_text("Chatbots")

    page.go_back()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Knowledge: {name}")
    page.get_by_role("button", name=f"Delete {question}", exact=True).click()
    expect(page.get_by_role("dialog")).to_be_visible()
    page.go_back()  # Back, with the confirmation open: it closes, answered "no"
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_role("heading", level=1)).to_have_text("Chatbots")
    page.get_by_label("Name", exact=True).fill(f"{name} 2")
    page.get_by_role("button", name="Create chatbot").click(timeout=10_000)  # nothing lies over the page any more
    expect(page.get_by_role("status")).to_contain_text(f"Created {name} 2.")
    assert len(server.api("GET", f"/chatbot/{bot}/data-sources")) == 1
