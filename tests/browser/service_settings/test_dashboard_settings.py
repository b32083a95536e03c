"""The Settings page (issue 40 item 5), in Chromium: the environment's setting shown read-only with its variable,
a change saved and in use without a restart, the model's connection tested with its reply shown (and a clear error
when the server is down), the key never shown again; usable at 360 px. Screenshots: `tests/artifacts/settings-*.png`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.support.browser import Service
from tests.support.dashboard import Dashboard
from tests.support.fake_llm import FakeLlm, Reply

KEY = "sk-browser-0123456789WXYZ"


@pytest.fixture
def restored(server: Service) -> Iterator[Service]:
    """The session's service, given back with the settings it had (other browser tests answer offline)."""
    yield server
    server.api("POST", "/service/settings", {"llm_base_url": None, "llm_api_key": "", "egress_allowed_ports": None})


def test_the_settings_page_changes_and_tests_without_a_restart(
    restored: Service, board: Dashboard, artifacts: Path
) -> None:
    server = restored
    page = board.open("/settings", "Settings")
    fetching = page.get_by_role("form", name="Fetching")
    hosts = fetching.get_by_label("Allowed hosts")
    expect(hosts).to_have_attribute("readonly", "")
    expect(hosts).to_have_accessible_description(re.compile(r"Set by the environment \(BOTYARD_EGRESS_ALLOWLIST\)"))
    fetching.get_by_label("Allowed ports").fill("80, 443, 8080")
    fetching.get_by_role("button", name="Save fetching settings").click()
    expect(page.get_by_role("form", name="Fetching").get_by_role("status")).to_have_text("Fetching saved: in use now.")
    ports = [s for s in server.api("GET", "/service/settings")["settings"] if s["name"] == "egress_allowed_ports"]
    assert ports[0]["value"] == [80, 443, 8080] and ports[0]["source"] == "dashboard"

    with FakeLlm(Reply(tokens=("The model", " is here."))) as llm:
        model = page.get_by_role("form", name="Language model")
        model.get_by_label("Base URL").fill(llm.url)
        model.get_by_label("API key").fill(KEY)
        model.get_by_role("button", name="Test connection").click()
        expect(model.locator(".model-reply")).to_have_text("The model is here.")
        assert llm.requests[-1].headers["authorization"] == f"Bearer {KEY}"
        model.get_by_role("button", name="Save language settings").click()
        model = page.get_by_role("form", name="Language model")
        expect(model.get_by_role("status")).to_have_text("Language model saved: in use now.")
        expect(model.get_by_label("API key")).to_have_attribute("placeholder", "saved (ends in WXYZ)")
        expect(page.get_by_label("Service")).to_contain_text("language model at 127.0.0.1")
        page.screenshot(path=artifacts / "settings-saved.png", full_page=True)
        assert KEY not in page.content()

    model.get_by_role("button", name="Test connection").click()
    expect(model.get_by_role("alert")).to_contain_text("Could not reach 127.0.0.1")
    expect(model.get_by_role("alert")).to_contain_text("Base URL (dashboard Settings, or BOTYARD_LLM_BASE_URL)")


def test_the_settings_page_fits_a_phone(browser: Browser, server: Service, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 800})
    try:
        phone = Dashboard(context, server)
        phone.sign_in()
        page = phone.open("/settings", "Settings")
        expect(page.get_by_role("button", name="Test connection")).to_be_visible()
        for name in ("Language model", "Fetching", "Browser access (CORS)"):
            expect(page.get_by_role("form", name=name)).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.screenshot(path=artifacts / "settings-phone.png", full_page=True)
        assert phone.problems == []
    finally:
        context.close()
