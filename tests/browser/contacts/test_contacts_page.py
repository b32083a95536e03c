"""The Contacts page in Chromium (issue 51, item 1): a visitor who wrote from the widget with their email and then on
a generic channel is found by search, the two contacts are merged from the contact's page, which then shows both
conversations (each a link to its transcript), and the name is edited; at 360 px neither the list nor the contact
scrolls sideways. And a site that tells the widget who the visitor is (`window.BotyardContact`) makes them a contact
with the page they were on. Screenshots: `tests/artifacts/contact-1280.png`, `contact-360.png`."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.browser import HostSite, Service
from tests.support.channel_visits import generic, say
from tests.support.dashboard import Dashboard, make_chatbot, nav_link
from tests.support.waiting import wait_for
from tests.support.webhook_receiver import Receiver, receiver

PAGE = "https://shop.example/pricing"


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def from_the_widget(server: Service, bot: str, name: str, email: str) -> str:
    """A widget conversation whose site passed the visitor's name and email in, with one question asked."""
    body = {"device_id": f"device-{secrets.token_hex(6)}", "name": name, "email": email, "page": PAGE}
    opened = httpx.post(f"{server.base}/api/v1/widget/{bot}/session", json=body, timeout=30)
    assert opened.status_code == 200, opened.text
    chat: str = opened.json()["session_uuid"]
    server.api("POST", f"/session/{chat}/message/non-stream", {"query": "Do you ship to Lisbon?"})
    return chat


def no_sideways_scroll(page: Page) -> None:
    width: Any = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 360


def test_a_contact_of_two_channels_is_merged_shows_both_conversations_and_is_renamed(
    server: Service, board: Dashboard, browser: Browser, callback: Receiver, artifacts: Path
) -> None:
    tag = secrets.token_hex(3)
    bot = make_chatbot(server, f"Contacts bot {tag}", visibility="public", with_qa=False)
    email = f"ada-{tag}@example.com"
    chat = from_the_widget(server, bot, f"Ada {tag}", email)
    channel = generic(server, bot, "Helpdesk", callback.url("/replies"))
    say(server, channel, f"u-{tag}", f"Ada on the helpdesk {tag}", "Where is my parcel?")
    wait_for(lambda: server.api("GET", "/contacts", params={"q": tag})["total"] == 2, 60, what="both contacts made")

    page = board.open("/contacts", "Contacts")
    expect(nav_link(page, "Contacts")).to_have_count(1)  # in the header's More menu
    page.keyboard.press("Escape")
    page.get_by_role("search", name="Search contacts").get_by_label("Search").fill(tag)
    page.get_by_role("button", name="Search", exact=True).click()
    rows = page.locator("table.contacts tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text=email)).to_contain_text("Widget")
    expect(rows.filter(has_text="helpdesk")).to_contain_text("Generic")
    rows.filter(has_text=email).get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Ada {tag}")
    conversations = page.locator("table.contacts tbody tr")
    expect(conversations).to_have_count(1)

    merge = page.get_by_role("search", name="Merge with another contact")
    merge.get_by_label("Find the other contact").fill(f"helpdesk {tag}")
    merge.get_by_role("button", name="Find").click()
    merge.get_by_role("button", name="Merge into this contact").click()
    page.get_by_role("dialog").get_by_role("button", name="Merge").click()
    expect(page.get_by_text(f"Merged “Ada on the helpdesk {tag}”.")).to_be_visible()
    expect(conversations).to_have_count(2)
    expect(conversations.filter(has_text="Generic")).to_contain_text("Where is my parcel?")
    widget_row = conversations.filter(has_text="Widget")
    expect(widget_row).to_contain_text("Do you ship to Lisbon?")
    expect(widget_row).to_contain_text(f"On {PAGE}")
    link = widget_row.get_by_role("link")
    assert link.get_attribute("href") == f"#/bot/{bot}/conversations/{chat}"
    expect(page.locator(".identities li")).to_have_count(3)  # the widget's visitor, the email, the channel's user

    edit = page.get_by_role("form", name="Edit the contact")
    edit.get_by_label("Name").fill(f"Ada King {tag}")
    edit.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Ada King {tag}")
    (found,) = server.api("GET", "/contacts", params={"q": tag})["contacts"]
    assert found["name"] == f"Ada King {tag}" and found["conversation_count"] == 2
    page.screenshot(path=artifacts / "contact-1280.png", full_page=True)

    phone = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        small = Dashboard(phone, server)
        small.sign_in()
        listed = small.open("/contacts", "Contacts")
        expect(listed.locator("table.contacts tbody tr").first).to_be_visible()
        no_sideways_scroll(listed)
        narrow = small.open(f"/contacts/{found['uuid']}", f"Ada King {tag}")
        expect(narrow.locator("table.contacts tbody tr")).to_have_count(2)
        no_sideways_scroll(narrow)
        narrow.screenshot(path=artifacts / "contact-360.png", full_page=True)
        assert small.problems == []
    finally:
        phone.close()


def test_a_site_tells_the_widget_who_the_visitor_is(server: Service, host_site: HostSite, browser: Browser) -> None:
    tag = secrets.token_hex(3)
    bot = make_chatbot(server, f"Site bot {tag}", visibility="public", with_qa=False)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        told = {"name": f"Grace {tag}", "email": f"grace-{tag}@navy.example", "attributes": {"plan": "pro"}}
        context.add_init_script(f"window.BotyardContact = {json.dumps(told)};")  # as the site sets it
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(host_site.page_url(bot))
        page.get_by_role("button", name="Open chat").click()
        chat = page.frame_locator("#botyard-widget iframe")
        expect(chat.get_by_role("button", name="Send")).to_be_enabled()
        chat.get_by_role("textbox", name="Message").fill("Is there a student discount?")
        chat.get_by_role("textbox", name="Message").press("Enter")
        found = wait_for(lambda: server.api("GET", "/contacts", params={"q": tag})["contacts"], 60, what="a contact")
        (contact,) = found
        assert contact["name"] == f"Grace {tag}" and contact["email"] == f"grace-{tag}@navy.example"
        assert contact["attributes"] == {"plan": "pro"}
        (conversation,) = server.api("GET", f"/contact/{contact['uuid']}")["conversations"]
        assert conversation["visitor_page"] == host_site.page_url(bot) and conversation["channel"] == "widget"
        assert errors == []
    finally:
        context.close()
