"""A WhatsApp customer handed to an operator, in Chromium: the customer (a signed delivery as Meta sends it, to the
channel's inbound URL) asks for a person; the conversation appears in the operator's Inbox with its channel and how
long Meta's 24-hour window stays open; the operator takes it over and replies, and the Graph API on loopback
receives the reply on the customer's number. And the Channels page adds a Messenger channel: the steps on Meta's
side, then the URL and the verify token to paste. Screenshot: `tests/artifacts/whatsapp-handoff.png`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from botyard.config import Settings
from tests.support.agents import PERSON
from tests.support.browser import Service
from tests.support.channels import PUBLIC_URL
from tests.support.dashboard import Dashboard, add_member, make_chatbot, sign_in_member
from tests.support.graph_api import (
    APP_SECRET,
    PAGE_ID,
    PAGE_TOKEN,
    PHONE_NUMBER_ID,
    WA_TOKEN,
    GraphApi,
    graph_api,
    signed,
    wa_text,
    whatsapp_delivery,
)
from tests.support.servers import Server
from tests.support.waiting import wait_for

CUSTOMER = "5511987654321"
ASKING = "I want to talk to a human about my parcel"


@pytest.fixture(scope="module")
def graph() -> Iterator[GraphApi]:
    with graph_api() as running:
        yield running


@pytest.fixture(scope="module")
def meta_service(tmp_path_factory: pytest.TempPathFactory, graph: GraphApi) -> Iterator[Service]:
    process = Server(Settings(data_dir=tmp_path_factory.mktemp("whatsapp-data")))
    process.env |= {"BOTYARD_PUBLIC_URL": PUBLIC_URL, "BOTYARD_GRAPH_API_URL": graph.url}
    key = process.key()
    process.start()
    try:
        yield Service(process, key)
    finally:
        process.stop()


@pytest.fixture
def operator(browser: Browser, meta_service: Service) -> Iterator[Dashboard]:
    email = add_member(meta_service, "operator")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        board = sign_in_member(context, meta_service, email)
        yield board
        assert board.problems == []
    finally:
        context.close()


def say(service: Service, channel: dict[str, Any], wamid: str, text: str) -> None:
    raw = json.dumps(whatsapp_delivery([wa_text(wamid, CUSTOMER, text)])).encode()
    answer = httpx.post(
        f"{service.base}/channels/{channel['uuid']}/inbound", content=raw, headers=signed(raw), timeout=30
    )
    assert answer.status_code == 200


def texts(graph: GraphApi, count: int) -> list[str]:
    def sent() -> list[str]:
        return [m["text"]["body"] for m in graph.sent() if m["to"] == CUSTOMER and m["type"] == "text"]

    wait_for(lambda: len(sent()) >= count, what=f"{count} messages on WhatsApp", every=0.1)
    return sent()


def test_a_whatsapp_customer_is_handed_to_an_operator_who_sees_the_window(
    meta_service: Service, operator: Dashboard, graph: GraphApi, artifacts: Path
) -> None:
    bot = make_chatbot(meta_service, "Parcel shop")
    hand_off = {"name": "Hand-off", "type": "human-escalation", "description": PERSON}
    made = meta_service.api("POST", f"/chatbot/{bot}/agent/create", hand_off)
    meta_service.api("POST", f"/agent/{made['uuid']}/update", {"enabled": True})
    credentials = {"access_token": WA_TOKEN, "app_secret": APP_SECRET, "phone_number_id": PHONE_NUMBER_ID}
    body = {"type": "whatsapp", "name": "Shop WhatsApp", "credentials": credentials, "settings": {"burst_seconds": 0}}
    channel = meta_service.api("POST", f"/chatbot/{bot}/channel/create", body)
    page: Page = operator.open(f"/bot/{bot}/inbox", "Inbox: Parcel shop")
    expect(page.get_by_text("Live updates on.")).to_be_visible()

    say(meta_service, channel, "wamid.H1", ASKING)
    [asked] = texts(graph, 1)
    assert "let our team know" in asked
    [session] = meta_service.api("GET", f"/chatbot/{bot}/conversations", params={"channel": channel["uuid"]})
    entry = page.locator(f"button[data-session='{session['uuid']}']")
    expect(entry).to_contain_text(ASKING)
    expect(entry).to_contain_text("Ada")  # who, where, and Meta's 24 hours
    expect(entry).to_contain_text(re.compile(r"Shop WhatsApp \(WhatsApp\) · waiting .* · Unassigned, window open 23 h"))
    entry.click()
    transcript = page.get_by_role("log", name="Transcript")
    expect(transcript).to_contain_text(ASKING)

    page.get_by_role("button", name="Take over").click()
    expect(page.get_by_text("You are chatting live")).to_be_visible()
    assert "You are now chatting with a person." in texts(graph, 2)[1]
    page.get_by_label("Reply").fill("Your parcel leaves today.")
    page.get_by_role("button", name="Send reply").click()
    last = texts(graph, 3)[2]
    assert last.endswith("Your parcel leaves today.") and "Operator" in last  # signed with the operator's name
    page.screenshot(path=artifacts / "whatsapp-handoff.png", full_page=True)


@pytest.fixture
def owner_board(browser: Browser, meta_service: Service) -> Iterator[Dashboard]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        board = Dashboard(context, meta_service)
        board.sign_in()
        yield board
        assert board.problems == []
    finally:
        context.close()


def test_the_channels_page_adds_a_messenger_channel_with_the_steps_and_the_verify_token_to_paste(
    meta_service: Service, owner_board: Dashboard, graph: GraphApi
) -> None:
    bot = make_chatbot(meta_service, "Page shop", with_qa=False)
    page = owner_board.open(f"/bot/{bot}/channels", "Channels: Page shop")
    form = page.get_by_role("form", name="Add a channel")
    form.get_by_label("Type").select_option("messenger")
    group = form.get_by_role("group", name="Messenger")
    expect(group).to_contain_text("Page access token")  # the steps on Meta's side
    form.get_by_label("Name", exact=True).fill("Shop page")
    group.get_by_label("Access token").fill(PAGE_TOKEN)
    group.get_by_label("App secret").fill(APP_SECRET)
    group.get_by_label("Page ID").fill(PAGE_ID)
    form.get_by_role("button", name="Add channel").click()
    expect(form.get_by_role("status")).to_have_text("Channel added: Shop page.")
    [channel] = meta_service.api("GET", f"/chatbot/{bot}/channels")
    found = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name="Shop page"))
    expect(found.get_by_label("Verify token", exact=True)).to_have_value(channel["verify_token"])
    expect(found.get_by_label("Inbound URL", exact=True)).to_have_value(channel["inbound_url"])
    expect(found).to_contain_text("messaging_postbacks")  # the fields to subscribe
    assert PAGE_TOKEN not in found.inner_text() and APP_SECRET not in found.inner_text()
