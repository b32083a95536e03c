"""Browser tests: Debian's Chromium driven by Playwright, against `botyard serve` as a real process on loopback.

- `server`: the service on 127.0.0.1 (SQLite, jobs in process, keyword search, the offline answerer).
- `host_site`: another origin (`localhost` on another port) serving pages that embed the widget with its one line,
  as a customer's website would; `host_site.page_url(chatbot_uuid)`.
- `browser`: one Chromium per test module; each test opens its own contexts (separate storage).
- `artifacts`: `tests/artifacts/`, where screenshots go (not committed).
- `board`: a signed-in dashboard tab of its own (1280 x 900, downloads accepted); it must report no uncaught error
  and no CSP violation.
- The channels' tests: `bot_api`, the fake Telegram Bot API on loopback (tests/support/telegram_api.py), one per
  module; `shop_service`, a service of the module whose Telegram it is and whose public address is https (the
  webhook needs one; the fake delivers to the service as a TLS proxy in front of it would pass updates on);
  `shop_board`, a dashboard tab signed in to it.

No browser is downloaded: Playwright launches `/usr/bin/chromium` (`.ci/run` installs it), with the background
networking that this machine's closed network refuses turned off.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, expect, sync_playwright

from botyard.config import Settings
from tests.support.browser import HostSite, Service
from tests.support.channels import PUBLIC_URL
from tests.support.dashboard import Dashboard
from tests.support.servers import Server
from tests.support.telegram_api import TelegramApi, telegram_api

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"

# How long an `expect` waits for a page to show what it asserts, for every browser test (the setting is global): a
# bound, not a measure, since it returns as soon as the page shows it. ReDoc lays out the whole API in JavaScript, and
# a machine busy with the parallel suite, or with anything else, is slow.
expect.set_options(timeout=60_000)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests run on one xdist worker: one service and one Chromium at a time, not one per worker."""
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    process = Server(Settings(data_dir=tmp_path_factory.mktemp("browser-data")))
    key = process.key()
    process.start()
    try:
        yield Service(process, key)
    finally:
        process.stop()


@pytest.fixture(scope="session")
def host_site(server: Service) -> Iterator[HostSite]:
    site = HostSite(server.base)
    yield site
    site.close()


@pytest.fixture(scope="session")
def other_site(server: Service) -> Iterator[HostSite]:
    """A second website, on an origin of its own (for the allowed-origins tests)."""
    site = HostSite(server.base)
    yield site
    site.close()


# Module scope: Playwright's sync API runs an event loop in the main thread while it is started, and the rest of
# the suite calls asyncio.run(), which refuses to run inside it; each browser module starts and stops its own.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)"
    launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def board(browser: Browser, server: Service) -> Iterator[Dashboard]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    try:
        opened = Dashboard(context, server)
        opened.sign_in()
        yield opened
        assert opened.problems == []
    finally:
        context.close()


@pytest.fixture(scope="module")
def bot_api() -> Iterator[TelegramApi]:
    with telegram_api() as running:
        yield running


@pytest.fixture(scope="module")
def shop_service(tmp_path_factory: pytest.TempPathFactory, bot_api: TelegramApi) -> Iterator[Service]:
    process = Server(Settings(data_dir=tmp_path_factory.mktemp("channels-data")))
    process.env |= {"BOTYARD_PUBLIC_URL": PUBLIC_URL, "BOTYARD_TELEGRAM_API_URL": bot_api.url}
    key = process.key()
    process.start()
    try:
        yield Service(process, key)
    finally:
        process.stop()


@pytest.fixture
def shop_board(browser: Browser, shop_service: Service) -> Iterator[Dashboard]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        opened = Dashboard(context, shop_service)
        opened.sign_in()
        yield opened
        assert opened.problems == []
    finally:
        context.close()
