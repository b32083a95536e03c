"""The Channels page's SMS card in Chromium, 1280 and 360 px wide: an owner adds an SMS channel against the fake
Twilio API (the credentials checked), sees its credentials only as hints and the inbound URL to paste into Twilio,
sends a test message the fake receives, and deletes it; at 360 px the page never scrolls sideways."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from botyard.config import Settings
from tests.support.browser import Service
from tests.support.channels import PUBLIC_URL
from tests.support.dashboard import Dashboard, make_chatbot
from tests.support.servers import Server
from tests.support.twilio_api import ACCOUNT_SID, AUTH_TOKEN, NUMBER, TwilioApi, twilio_api

CUSTOMER = "+14155550100"


@pytest.fixture(scope="module")
def sms_api() -> Iterator[TwilioApi]:
    with twilio_api() as running:
        yield running


@pytest.fixture(scope="module")
def sms_service(tmp_path_factory: pytest.TempPathFactory, sms_api: TwilioApi) -> Iterator[Service]:
    process = Server(Settings(data_dir=tmp_path_factory.mktemp("sms-data")))
    process.env |= {"BOTYARD_PUBLIC_URL": PUBLIC_URL, "BOTYARD_TWILIO_API_URL": sms_api.url}
    key = process.key()
    process.start()
    try:
        yield Service(process, key)
    finally:
        process.stop()


@pytest.fixture
def sms_board(browser: Browser, sms_service: Service) -> Iterator[Dashboard]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        opened = Dashboard(context, sms_service)
        opened.sign_in()
        yield opened
        assert opened.problems == []
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 360])
def test_add_an_sms_channel_see_its_inbound_url_and_send_a_test_message(
    sms_service: Service, sms_board: Dashboard, sms_api: TwilioApi, artifacts: Path, width: int
) -> None:
    name = f"Shop SMS {width}"
    bot = make_chatbot(sms_service, f"SMS shop {width}", with_qa=False)
    page = sms_board.page
    page.set_viewport_size({"width": width, "height": 900})
    sms_board.open(f"/bot/{bot}/channels", f"Channels: SMS shop {width}")
    form = page.get_by_role("form", name="Add a channel")
    form.get_by_label("Type").select_option("sms")
    expect(form.get_by_text("Messaging Configuration")).to_be_visible()
    form.get_by_label("Name", exact=True).fill(name)
    form.get_by_label("Account SID").fill(ACCOUNT_SID)
    form.get_by_role("button", name="Add channel").click()
    expect(form.get_by_role("alert")).to_contain_text("Fill in the auth token")
    form.get_by_label("Auth token", exact=True).fill(AUTH_TOKEN)
    form.get_by_label("Sends from").fill(NUMBER)
    form.get_by_role("button", name="Add channel").click()
    expect(form.get_by_role("status")).to_have_text(f"Channel added: {name}.")
    [channel] = sms_service.api("GET", f"/chatbot/{bot}/channels")
    assert channel["type"] == "sms"
    found = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=name, exact=True))
    expect(found).to_contain_text("auth token ••••" + AUTH_TOKEN[-4:])
    assert AUTH_TOKEN not in found.inner_text()
    expect(found.get_by_label("Inbound URL", exact=True)).to_have_value(channel["inbound_url"])
    found.get_by_label("Send to").fill(CUSTOMER)
    found.get_by_role("button", name="Send test message").click()
    expect(found.get_by_role("status").filter(has_text="Test message sent")).to_have_text(
        f"Test message sent to {CUSTOMER}."
    )
    assert sms_api.sent_to(CUSTOMER)[-1] == f"This is a test message from Botyard: the channel {name} works."
    page.screenshot(path=artifacts / f"channels-sms-{width}.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    found.get_by_role("button", name="Delete").click()  # one channel per number: the next test adds it again
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(page.get_by_text("No channels yet")).to_be_visible()
