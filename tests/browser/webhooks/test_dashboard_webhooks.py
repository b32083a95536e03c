"""The chatbot settings page's Webhooks section in Chromium: a refused URL shows the server's reason; a webhook
added with chosen events shows its secret once; "Send test" reaches a real receiver on 127.0.0.1 (which the server's
egress allowlist admits) with a signature that verifies with that secret, and the delivery shows as delivered;
disable, delete. Leaves `tests/artifacts/dashboard-webhooks.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support.browser import Service
from tests.support.dashboard import Dashboard, make_chatbot
from tests.support.waiting import wait_for
from tests.support.webhook_receiver import Receiver, receiver


@pytest.fixture
def hooks() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def test_add_test_disable_and_delete_a_webhook(
    server: Service, board: Dashboard, hooks: Receiver, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Hook bot", with_qa=False)
    page = board.open(f"/chatbot/{bot}/webhooks", "Chatbot: Hook bot")
    section = page.get_by_role("region", name="Webhooks")
    expect(section.get_by_text("No webhooks yet.")).to_be_visible()

    section.get_by_label("URL").fill("http://10.0.0.1/hooks")
    section.get_by_role("button", name="Add webhook").click()
    expect(section.get_by_role("alert")).to_contain_text("private address: 10.0.0.1 (private)")
    hint = "list it or its network in Allowed hosts (dashboard Settings, or BOTYARD_EGRESS_ALLOWLIST)"
    expect(section.get_by_role("alert")).to_contain_text(hint)

    section.get_by_label("URL").fill(hooks.url("/in"))
    section.get_by_label("A data source failed (source_failed)").uncheck()
    section.get_by_role("button", name="Add webhook").click()
    expect(section.get_by_role("status").filter(has_text="Webhook added.")).to_be_visible()
    secret = section.get_by_label("Secret").input_value()
    assert secret.startswith("whsec_")
    [hook] = server.api("GET", f"/chatbot/{bot}/webhooks")
    assert hook["url"] == hooks.url("/in") and "source_failed" not in hook["events"] and len(hook["events"]) == 5

    section.get_by_role("button", name="Send test").click()
    wait_for(lambda: hooks.received, what="the test delivery received", every=0.1)
    [request] = hooks.received
    assert request.event["type"] == "ping" and request.signed_with(secret)
    deliveries = f"/webhook/{hook['uuid']}/deliveries"
    wait_for(lambda: server.api("GET", deliveries)[0]["status"] == "delivered", what="the delivery recorded", every=0.1)
    section.get_by_role("button", name="Deliveries").click()
    expect(section.locator("tbody tr").first).to_contain_text("delivered")
    page.screenshot(path=artifacts / "dashboard-webhooks.png", full_page=True)

    section.get_by_role("button", name="Disable").click()
    expect(section.get_by_text("disabled", exact=True)).to_be_visible()
    assert server.api("GET", f"/webhook/{hook['uuid']}")["enabled"] is False
    section.get_by_role("button", name="Delete").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(section.get_by_text("No webhooks yet.")).to_be_visible()
    assert server.api("GET", f"/chatbot/{bot}/webhooks") == []
