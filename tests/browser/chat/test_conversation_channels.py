"""The Conversations page's channels in Chromium (issue 49, item 4): each conversation shows where it is held (the
web, or the channel's name and type with the external user's display name), and the channel filter picks one
channel's conversations or the web's; at 360 px the page does not scroll sideways. Screenshots:
`tests/artifacts/conversations-channels-*.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.support.browser import Service
from tests.support.channel_visits import OFF_TOPIC, channel_day
from tests.support.dashboard import QUESTION, Dashboard, make_chatbot, row_of
from tests.support.webhook_receiver import Receiver, receiver


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def test_conversations_show_and_filter_their_channel(
    server: Service, board: Dashboard, browser: Browser, callback: Receiver, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Channel history bot")
    channel_day(server, bot, callback.url("/replies"))
    page = board.open(f"/bot/{bot}/conversations", "Conversations: Channel history bot")
    sessions = page.get_by_role("table").locator("tbody tr")
    expect(sessions).to_have_count(4)
    expect(row_of(page, "Ada Lovelace").locator("td.channel")).to_have_text("Helpdesk GenericAda Lovelace")
    expect(row_of(page, "Grace Hopper").locator("td.preview")).to_have_text(OFF_TOPIC)
    expect(row_of(page, "Linus").locator("td.channel")).to_have_text("Shop chat GenericLinus")
    expect(row_of(page, "Web (widget and API)").locator("td.preview")).to_have_text(QUESTION)
    page.screenshot(path=artifacts / "conversations-channels-all.png", full_page=True)

    page.get_by_label("Channel", exact=True).select_option(label="Helpdesk (Generic)")
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(2)
    expect(sessions.filter(has_text="Helpdesk")).to_have_count(2)
    page.get_by_label("Channel", exact=True).select_option(label="Web (widget and API)")
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(1)
    expect(sessions.first.locator("td.channel")).to_have_text("Web (widget and API)")
    page.get_by_label("Channel", exact=True).select_option(label="All channels")
    page.get_by_role("button", name="Apply filters").click()
    expect(sessions).to_have_count(4)

    phone = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        small = Dashboard(phone, server)
        small.sign_in()
        narrow = small.open(f"/bot/{bot}/conversations", "Conversations: Channel history bot")
        expect(narrow.get_by_role("table").locator("tbody tr")).to_have_count(4)
        width: Any = narrow.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 360  # the table scrolls in its region, not the page
        narrow.screenshot(path=artifacts / "conversations-channels-360.png", full_page=True)
        assert small.problems == []
    finally:
        phone.close()
