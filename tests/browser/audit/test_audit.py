"""The audit log page in Chromium, on a phone's 360 px: an admin filters the account's events and downloads them."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Route, expect

from tests.support.browser import Service
from tests.support.dashboard import add_member, make_chatbot, nav_link, row_of, sign_in_member


def downloaded(page: Page, button: str) -> tuple[str, str]:
    with page.expect_download() as started:
        page.get_by_role("button", name=button, exact=True).click()
    download = started.value
    return download.suggested_filename, Path(download.path()).read_text(encoding="utf-8")


def test_an_admin_filters_and_downloads_the_audit_log(browser: Browser, server: Service) -> None:
    email = add_member(server, "admin")
    name = f"Audited {secrets.token_hex(3)}"
    bot = make_chatbot(server, name, with_qa=False)  # by the service's API key
    phone = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        board = sign_in_member(phone, server, email)
        page = board.page
        expect(nav_link(page, "Audit log")).to_have_count(1)
        held: list[Route] = []  # the page's first load, answered only after the filters are applied
        page.route("**/api/v1/account/audit?*", lambda route: held.append(route) if not held else route.continue_())
        page.goto(f"{server.base}/dashboard#/audit")
        expect(page.get_by_role("heading", name="Audit log", level=1)).to_be_visible()

        page.get_by_label("Object").select_option("chatbot")
        page.get_by_role("button", name="Apply filters").click()
        made = row_of(page, f"chatbot created: {name}")
        expect(made).to_contain_text("API key")
        expect(made).to_contain_text("admin")  # the role a key acts with
        filtered = page.locator("tbody tr").count()
        with page.expect_response(lambda response: "/account/audit?" in response.url):
            held[0].continue_()  # the first load's reply comes late: it must not add its rows to the filtered ones
        page.unroute("**/api/v1/account/audit?*")
        expect(page.locator("tbody tr")).to_have_count(filtered)
        expect(made).to_have_count(1)

        page.get_by_label("Object").select_option("")
        page.get_by_label("Actor").fill(email)
        page.get_by_role("button", name="Apply filters").click()
        rows = page.locator("tbody tr")
        expect(rows).to_have_count(3)  # invitation accepted and signed in (through the API), signed in here
        expect(rows.first).to_contain_text(f"signed in: {email}")
        width: Any = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 360

        filename, text = downloaded(page, "Download CSV")
        assert filename.startswith("audit-") and filename.endswith(".csv")
        assert text.startswith("at,actor_email") and text.count(email) >= 3 and bot not in text
        filename, text = downloaded(page, "Download JSON")
        assert filename.endswith(".json") and "invitation_accepted" in text and bot not in text
        assert board.problems == []
    finally:
        phone.close()
