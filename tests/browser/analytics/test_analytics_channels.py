"""The Analytics page per channel in Chromium (issue 49, item 4): conversations on two generic channels and in the
API, counted per channel in the "By channel" table, and the channel filter narrowing the tiles to one channel's
conversations (or the web's); at 360 px the page does not scroll sideways. Screenshots:
`tests/artifacts/analytics-channels-*.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.support.browser import Service
from tests.support.channel_visits import channel_day
from tests.support.dashboard import Dashboard, make_chatbot
from tests.support.webhook_receiver import Receiver, receiver


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def tile(page: Page, name: str) -> Locator:
    return page.get_by_role("group", name=name, exact=True).locator(".tile-value")


def by_channel(page: Page) -> Locator:
    return page.get_by_role("region", name="By channel", exact=True).locator("tbody tr")


def test_the_analytics_page_counts_and_filters_by_channel(
    server: Service, board: Dashboard, browser: Browser, callback: Receiver, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Channel figures bot")
    channel_day(server, bot, callback.url("/replies"))
    page = board.open(f"/bot/{bot}/analytics", "Analytics: Channel figures bot")
    expect(tile(page, "Conversations")).to_have_text("4")
    rows = by_channel(page)
    # Channel, conversations, questions, resolved by the bot, unresolved (of which unsure, no answer), handed to a
    # person, without a question, resolution rate.
    expect(rows).to_have_text(
        [
            "Web (widget and API)111000100%",
            "Helpdesk (Generic)2211 (1 no answer)0050%",
            "Shop chat (Generic)111000100%",
        ]
    )
    page.screenshot(path=artifacts / "analytics-channels-all.png", full_page=True)

    page.get_by_label("Channel", exact=True).select_option(label="Helpdesk (Generic)")
    expect(tile(page, "Conversations")).to_have_text("2")
    expect(tile(page, "Refused")).to_have_text("1")
    expect(rows).to_have_text(["Helpdesk (Generic)2211 (1 no answer)0050%"])
    page.get_by_label("Channel", exact=True).select_option(label="Web (widget and API)")
    expect(tile(page, "Conversations")).to_have_text("1")
    expect(rows).to_have_text(["Web (widget and API)111000100%"])
    page.screenshot(path=artifacts / "analytics-channels-web.png", full_page=True)

    phone = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        small = Dashboard(phone, server)
        small.sign_in()
        narrow = small.open(f"/bot/{bot}/analytics", "Analytics: Channel figures bot")
        expect(by_channel(narrow)).to_have_count(3)
        width: Any = narrow.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 360  # the table scrolls in its region, not the page
        narrow.screenshot(path=artifacts / "analytics-channels-360.png", full_page=True)
        assert small.problems == []
    finally:
        phone.close()
