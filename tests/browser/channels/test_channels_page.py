"""The Channels page in Chromium, 1280 and 360 px wide: an owner adds a Telegram channel against the fake Bot API
(the token checked, the webhook set), sees its status follow a customer's message and the reply, sends a test
message the fake receives (and sees Telegram's refusal of a chat that is none), disables and deletes it; at 360 px
the page never scrolls sideways. On the suite's shared service, whose public address is plain http, the webhook
mode says Telegram cannot deliver there and offers polling. Screenshots: `tests/artifacts/channels-*.png`."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.support.browser import Service
from tests.support.dashboard import Dashboard, make_chatbot
from tests.support.telegram_api import TOKEN, TelegramApi, update
from tests.support.waiting import wait_for

DEFAULT_TEST = "This is a test message from Botyard: the channel {name} works."


def card(page: Page, name: str) -> Locator:
    return page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=name, exact=True))


def no_sideways_scroll(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", [1280, 360])
def test_add_follow_test_disable_and_delete_a_telegram_channel(
    shop_service: Service, shop_board: Dashboard, bot_api: TelegramApi, artifacts: Path, width: int
) -> None:
    name, chat = f"Shop bot {width}", str(width)
    bot = make_chatbot(shop_service, f"Channel shop {width}", with_qa=False)
    page = shop_board.page
    page.set_viewport_size({"width": width, "height": 900})
    shop_board.open(f"/bot/{bot}/channels", f"Channels: Channel shop {width}")
    expect(page.get_by_text("No channels yet")).to_be_visible()

    form = page.get_by_role("form", name="Add a channel")
    form.get_by_label("Name", exact=True).fill(name)
    form.get_by_label("Bot token").fill(TOKEN)
    expect(form.get_by_label("Mode")).to_have_value("webhook")
    expect(form.get_by_text("Telegram delivers webhooks only")).to_have_count(0)  # this service's address is https
    form.get_by_label("Burst seconds").fill("0")
    form.get_by_role("button", name="Add channel").click()
    expect(form.get_by_role("status")).to_have_text(f"Channel added: {name}.")
    [channel] = shop_service.api("GET", f"/chatbot/{bot}/channels")
    assert bot_api.webhook["url"] == channel["inbound_url"]
    found = card(page, name)
    expect(found).to_contain_text("enabled")
    expect(found).to_contain_text("bot token ••••" + TOKEN[-4:])
    assert TOKEN not in found.inner_text()  # never shown back
    expect(found.get_by_label("Inbound URL", exact=True)).to_have_value(channel["inbound_url"])
    status = found.get_by_role("definition")
    expect(status.nth(0)).to_have_text("never")  # last message received
    no_sideways_scroll(page, width)

    # A customer writes: the status shows it came and that the reply went out.
    assert bot_api.push(update(70_000 + width, "Hello there", user=width), shop_service.base) == 200
    wait_for(lambda: bot_api.sent_to(chat), what="the reply on Telegram", every=0.1)
    wait_for(
        lambda: shop_service.api("GET", f"/channel/{channel['uuid']}")["status"]["last_sent_at"],
        what="the reply recorded",
        every=0.1,
    )
    page.reload()  # the page reads the status when it opens
    expect(status.nth(0)).not_to_have_text("never")
    expect(status.nth(1)).not_to_have_text("never")
    expect(status.nth(2)).to_have_text("none")

    # A test message, and one Telegram refuses.
    found.get_by_label("Send to").fill(chat)
    found.get_by_role("button", name="Send test message").click()
    expect(found.get_by_role("status").filter(has_text="Test message sent")).to_have_text(
        f"Test message sent to {chat}."
    )
    assert bot_api.sent_to(chat)[-1] == DEFAULT_TEST.format(name=name)
    found.get_by_label("Send to").fill("nobody")
    found.get_by_role("button", name="Send test message").click()
    expect(found.get_by_role("alert").filter(has_text="chat not found")).to_contain_text("check the chat id")
    page.screenshot(path=artifacts / f"channels-{width}.png", full_page=True)
    no_sideways_scroll(page, width)

    found.get_by_role("button", name="Disable").click()
    expect(found.get_by_text("disabled", exact=True)).to_be_visible()
    assert shop_service.api("GET", f"/channel/{channel['uuid']}")["enabled"] is False
    found.get_by_role("button", name="Delete").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(page.get_by_text("No channels yet")).to_be_visible()
    assert shop_service.api("GET", f"/chatbot/{bot}/channels") == []


def test_without_a_public_https_address_webhook_mode_says_so_and_offers_polling(
    server: Service, board: Dashboard
) -> None:
    bot = make_chatbot(server, "Laptop shop", with_qa=False)
    page = board.open(f"/bot/{bot}/channels", "Channels: Laptop shop")
    form = page.get_by_role("form", name="Add a channel")
    note = form.get_by_role("note")
    expect(note).to_contain_text("BOTYARD_PUBLIC_URL) is http://localhost:8000")
    note.get_by_role("button", name="Use polling instead").click()
    expect(form.get_by_label("Mode")).to_have_value("polling")
    expect(note).to_be_empty()
