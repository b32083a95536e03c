"""Single sign-on in Chromium, against a real OpenID provider on loopback (`oidc-provider-mock`): the sign-in page
offers "Sign in with <name>", the person signs in at the provider's page and lands in the dashboard signed in (an
invitation accepted the first time, the linked subject after); an email nobody invited comes back to the sign-in
page with what to do."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from botyard.config import Settings
from tests.support.browser import Service
from tests.support.dashboard import Dashboard, header_menu
from tests.support.oidc_provider import MockProvider, mock_provider
from tests.support.servers import Server

SECRET = "browser-test-client-secret-7Hq"
# The provider's page links a stylesheet on a CDN: the browser may reach this machine's loopback only.
OFF_MACHINE = re.compile(r"^https?://(?!127\.0\.0\.1[:/])")


@pytest.fixture(scope="module")
def provider() -> Iterator[MockProvider]:
    with mock_provider() as started:
        yield started


@pytest.fixture(scope="module")
def sso_server(tmp_path_factory: pytest.TempPathFactory, provider: MockProvider) -> Iterator[Service]:
    """`botyard serve` with single sign-on at `provider`."""
    process = Server(Settings(data_dir=tmp_path_factory.mktemp("sso-data")))
    process.env |= {
        "BOTYARD_OIDC_DISCOVERY_URL": provider.discovery_url,
        "BOTYARD_OIDC_CLIENT_ID": "botyard-dashboard",
        "BOTYARD_OIDC_CLIENT_SECRET": SECRET,
        "BOTYARD_OIDC_NAME": "Acme ID",
        "BOTYARD_PUBLIC_URL": process.base,
    }
    key = process.key()
    process.start()
    try:
        yield Service(process, key)
    finally:
        process.stop()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1280, "height": 900})
    opened.route(OFF_MACHINE, lambda route: route.abort())
    yield opened
    opened.close()


def sign_in_at_the_provider(board: Dashboard, server: Service, sub: str) -> Page:
    page = board.page
    page.goto(f"{server.base}/dashboard")
    page.get_by_role("link", name="Sign in with Acme ID").click()
    expect(page.get_by_role("heading", name="Authorize Client")).to_be_visible()
    page.get_by_placeholder("sub").fill(sub)
    page.get_by_role("button", name="Authorize").click()
    return page


def test_an_invited_person_signs_in_with_the_provider(
    context: BrowserContext, sso_server: Service, provider: MockProvider
) -> None:
    email = f"sso-{secrets.token_hex(4)}@example.com"
    sso_server.api("POST", "/account/invitation/create", {"email": email, "role": "editor"})
    sub = f"sub-{secrets.token_hex(4)}"
    provider.user(sub, email=email, email_verified=True, name="Sasha Sso")
    board = Dashboard(context, sso_server)

    page = sign_in_at_the_provider(board, sso_server, sub)
    expect(page.get_by_role("heading", name="Chatbots", level=1)).to_be_visible()
    expect(page.get_by_label("Signed in as")).to_have_text("Sasha Sso · editor")
    assert "botyard_oidc" not in {cookie["name"] for cookie in context.cookies()}  # the sign-in's cookie is gone

    header_menu(page, "account")
    page.get_by_role("button", name="Sign out", exact=True).click()
    expect(page.get_by_role("link", name="Sign in with Acme ID")).to_be_visible()
    # Her email changes at the provider: the linked subject still signs her in.
    provider.user(sub, email=f"renamed-{email}", email_verified=True, name="Sasha Sso")
    page = sign_in_at_the_provider(board, sso_server, sub)
    expect(page.get_by_label("Signed in as")).to_have_text("Sasha Sso · editor")
    assert board.problems == []


def test_an_email_nobody_invited_is_told_to_ask_for_an_invitation(
    context: BrowserContext, sso_server: Service, provider: MockProvider, artifacts: Path
) -> None:
    sub = f"stranger-{secrets.token_hex(4)}"
    provider.user(sub, email=f"{sub}@example.com", email_verified=True)
    board = Dashboard(context, sso_server)

    page = sign_in_at_the_provider(board, sso_server, sub)
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("No member of this service has your email address")
    expect(alert).to_contain_text("ask an owner or admin of your team's account for an invitation")
    expect(page).to_have_url(f"{sso_server.base}/dashboard#/signin")  # the reason leaves the address bar
    expect(page.get_by_role("link", name="Sign in with Acme ID")).to_be_visible()
    page.screenshot(path=str(artifacts / "sso-refused.png"))
    assert board.problems == []
