"""The hand-off round trip on Telegram, in Chromium: a customer on Telegram (the fake Bot API delivering updates to
the channel's inbound URL) asks for a person; the conversation appears in the operator's Inbox; the operator, signed
in with their password, sees who it is and on which channel, takes it over and replies, and Telegram receives the
reply signed with the operator's name;
while the operator has it the bot says nothing to the customer's next message; the operator hands it back, and the
bot answers the next question from the knowledge. An operator sees the Channels page read-only.
Screenshot: `tests/artifacts/channels-handoff.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.agents import PERSON
from tests.support.browser import Service
from tests.support.dashboard import Dashboard, add_member, make_chatbot, sign_in_member
from tests.support.telegram_api import TOKEN, TelegramApi, update
from tests.support.waiting import wait_for

CUSTOMER = 4242
ASKING = "I want to talk to a human about my parcel"
HOURS = "What are your opening hours from Monday to Friday?"  # a question of its own, not a follow-up


@pytest.fixture
def operator(browser: Browser, shop_service: Service) -> Iterator[Dashboard]:
    """A member with the operator role (who takes conversations), signed in to the shop's dashboard."""
    email = add_member(shop_service, "operator")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        board = sign_in_member(context, shop_service, email)
        yield board
        assert board.problems == []
    finally:
        context.close()


def replies(bot_api: TelegramApi, count: int) -> list[str]:
    """The texts Telegram took for the customer, once there are `count` of them."""
    wait_for(lambda: len(bot_api.sent_to(str(CUSTOMER))) >= count, what=f"{count} replies on Telegram", every=0.1)
    return bot_api.sent_to(str(CUSTOMER))


def test_a_telegram_customer_is_handed_to_an_operator_and_back(
    shop_service: Service, operator: Dashboard, bot_api: TelegramApi, artifacts: Path
) -> None:
    bot = make_chatbot(shop_service, "Parcel shop")
    hand_off = {"name": "Hand-off", "type": "human-escalation", "description": PERSON}
    made = shop_service.api("POST", f"/chatbot/{bot}/agent/create", hand_off)
    shop_service.api("POST", f"/agent/{made['uuid']}/update", {"enabled": True})
    body = {"type": "telegram", "name": "Parcel bot", "credentials": {"bot_token": TOKEN}, "settings": {}}
    body["settings"] = {"mode": "webhook", "burst_seconds": 0}
    channel = shop_service.api("POST", f"/chatbot/{bot}/channel/create", body)
    page: Page = operator.open(f"/bot/{bot}/inbox", "Inbox: Parcel shop")
    expect(page.get_by_text("Live updates on.")).to_be_visible()

    say = iter(range(90_001, 90_100))
    assert bot_api.push(update(next(say), ASKING, user=CUSTOMER), shop_service.base) == 200
    [asked] = replies(bot_api, 1)
    assert "let our team know" in asked
    [session] = shop_service.api("GET", f"/chatbot/{bot}/conversations", params={"channel": channel["uuid"]})
    entry = page.locator(f"button[data-session='{session['uuid']}']")
    expect(entry).to_contain_text(ASKING)
    expect(entry).to_contain_text("Ada Lovelace")  # who, and on which channel
    expect(entry).to_contain_text("Parcel bot (Telegram)")
    entry.click()
    expect(page.get_by_role("heading", name="Ada Lovelace", exact=True)).to_be_visible()
    expect(page.locator(".conversation-facts")).to_contain_text("Parcel bot (Telegram) · since")
    transcript = page.get_by_role("log", name="Transcript")
    expect(transcript).to_contain_text(ASKING)

    page.get_by_role("button", name="Take over").click()
    expect(page.get_by_text("You are chatting live")).to_be_visible()
    assert "You are now chatting with a person." in replies(bot_api, 2)[1]
    page.get_by_label("Reply").fill("Your parcel leaves today.")
    page.get_by_role("button", name="Send reply").click()
    assert replies(bot_api, 3)[2] == "Operator: Your parcel leaves today."  # signed with the operator's name

    # The operator has it: the customer's message reaches the Inbox, and the bot says nothing.
    assert bot_api.push(update(next(say), "Thank you! Which courier?", user=CUSTOMER), shop_service.base) == 200
    expect(transcript).to_contain_text("Thank you! Which courier?")
    page.screenshot(path=artifacts / "channels-handoff.png", full_page=True)
    page.get_by_role("button", name="Hand back to the bot").click()
    expect(page.get_by_text("The AI is answering this conversation.")).to_be_visible()
    assert "The person has left the chat" in replies(bot_api, 4)[3]

    assert bot_api.push(update(next(say), HOURS, user=CUSTOMER), shop_service.base) == 200
    sent = replies(bot_api, 5)
    assert "9 to 5" in sent[4]  # handed back: the bot answers from the knowledge again
    assert len(sent) == 5  # and nothing went out for the message the operator had: replies go in order

    # An operator may not change channels: the page is read-only for them.
    operator.open(f"/bot/{bot}/channels", "Channels: Parcel shop")
    expect(page.get_by_role("note").filter(has_text="an owner or admin adds and changes them")).to_be_visible()
    expect(page.get_by_role("heading", name="Parcel bot")).to_be_visible()
    expect(page.get_by_role("form", name="Add a channel")).to_be_hidden()
    expect(page.get_by_role("button", name="Send test message")).to_be_hidden()
    expect(page.get_by_role("button", name="Delete")).to_be_hidden()
