"""First run without a terminal: the setup link `botyard serve` prints opens the dashboard, which creates the first
account and its owner (email and password), shows its key once and signs the owner in by a session cookie; the link
works once. A fresh service with no account, in Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from botyard.config import Settings
from botyard.identity.accounts import setup
from tests.support.servers import Server


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    settings = Settings(data_dir=tmp_path)
    token = setup.offer(settings)  # what `botyard serve` prints, made here so the test knows it
    server = Server(settings)
    server.start()
    try:
        yield server, token
    finally:
        server.stop()


def test_the_setup_link_creates_the_first_account(browser: Browser, fresh_server: tuple[Server, str]) -> None:
    server, token = fresh_server
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{server.base}/dashboard#setup={token}")
        expect(page.get_by_role("heading", name="Create your account")).to_be_visible()
        assert token not in page.url  # taken out of the address bar (and the history)
        page.get_by_label("Your email address").fill("owner@example.com")
        page.get_by_label("Your name").fill("Olive")
        page.get_by_label("Choose a password").fill("a long enough password")
        page.get_by_role("button", name="Create account").click()
        key = page.get_by_label("Your API key").input_value(timeout=15_000)
        assert key.startswith("by_")
        assert page.evaluate("sessionStorage.getItem('botyard.key')") is None  # the cookie signs in, not the key
        assert page.evaluate("localStorage.length") == 0
        assert "botyard_session" not in page.evaluate("document.cookie")  # HttpOnly
        page.get_by_role("button", name="Continue to the dashboard").click()
        expect(page.get_by_role("heading", name="Chatbots", exact=True)).to_be_visible()
        expect(page.get_by_label("Signed in as")).to_have_text("Olive · owner")

        again = context.new_page()  # another tab: signed in already, and the link is used up
        again.goto(f"{server.base}/dashboard#setup={token}")
        again.get_by_label("Your email address").fill("intruder@example.com")
        again.get_by_label("Choose a password").fill("another long password")
        again.get_by_role("button", name="Create account").click()
        expect(again.get_by_role("alert")).to_contain_text("has an account already")
        again.goto(f"{server.base}/dashboard#/chatbots")
        expect(again.get_by_role("heading", name="Chatbots", exact=True)).to_be_visible()
    finally:
        context.close()
    assert not setup.token_path(Settings(data_dir=server_data_dir(server))).exists()


def server_data_dir(server: Server) -> Path:
    return Path(server.env["BOTYARD_DATA_DIR"])
