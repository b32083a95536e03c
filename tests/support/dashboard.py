"""The dashboard in a browser tab, and chatbots made for it through the API."""

from __future__ import annotations

import secrets

import httpx
from playwright.sync_api import BrowserContext, ConsoleMessage, Locator, Page, expect

from tests.support.browser import Service
from tests.support.waiting import wait_for

QUESTION = "What are your opening hours?"


ANSWER = "We are open **9 to 5** from Monday to Friday."


SOURCE_LINK = "https://docs.acme.example/opening-hours"


INGESTION = 60_000  # ms: files are parsed in sandboxed child processes, slow to start on a busy machine


def make_chatbot(server: Service, name: str, *, visibility: str = "private", with_qa: bool = True) -> str:
    """A chatbot with citations shown and (by default) one ingested Q&A source."""
    settings = {"name": name, "show_citations": True, "visibility": visibility}
    uuid: str = server.api("POST", "/chatbot/create", settings)["uuid"]
    if with_qa:
        qa = {"question": QUESTION, "answer": ANSWER, "reference_source_link": SOURCE_LINK}
        server.api("POST", f"/chatbot/{uuid}/data-source/qa", qa)
        wait_for_sources(server, uuid)
    return uuid


def wait_for_sources(server: Service, chatbot: str) -> None:
    """Until every source of the chatbot is ingested: that runs in the server's job runner, and its status is all
    there is to wait on. A source that fails fails the test at once."""

    def ingested() -> bool:
        statuses = [source["status"] for source in server.api("GET", f"/chatbot/{chatbot}/data-sources")]
        assert not any(status.startswith("error") for status in statuses), statuses
        return all(status == "success" for status in statuses)

    wait_for(ingested, INGESTION / 1000, what="the sources ingested")


class Dashboard:
    """A dashboard tab and the problems it reports (uncaught errors, CSP violations), which must stay empty."""

    def __init__(self, context: BrowserContext, server: Service) -> None:
        self.server = server
        self.page = context.new_page()
        self.problems: list[str] = []
        self.page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        self.page.on("console", self._console)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            self.problems.append(f"CSP: {message.text}")

    def sign_in(self) -> Page:
        """Signs in with the service's API key (the folded second form of the sign-in page)."""
        self.page.goto(f"{self.server.base}/dashboard")
        self.page.get_by_text("Sign in with an API key instead").click()
        self.page.get_by_label("API key").fill(self.server.key)
        self.page.get_by_role("button", name="Use the key").click()
        expect(self.page.get_by_role("heading", name="Chatbots", level=1)).to_be_visible()
        return self.page

    def open(self, route: str, heading: str) -> Page:
        """Goes to a dashboard route (`/bot/<uuid>/knowledge`...) and waits for its page heading."""
        self.page.goto(f"{self.server.base}/dashboard#{route}")
        expect(self.page.get_by_role("heading", level=1)).to_have_text(heading)
        return self.page


HEADER_MENUS = {"more": "header .more > .menu-button", "account": "header .account > .menu-button"}


def header_menu(page: Page, menu: str) -> None:
    """Opens the header's menu that holds a link or control: on a phone the Menu button's panel (it holds all of
    them), from 641 px the "more" menu (the pages besides the few of the header's line) or the "account" one."""
    phone = page.get_by_role("button", name="Menu", exact=True)
    button = phone if phone.is_visible() else page.locator(HEADER_MENUS[menu])
    if button.get_attribute("aria-expanded") != "true":
        button.click()
    expect(button).to_have_attribute("aria-expanded", "true")


def nav_link(page: Page, name: str) -> Locator:
    """The main navigation's link `name`, in sight: the menu that holds it opened when it is in one."""
    link = page.get_by_role("navigation", name="Main").get_by_role("link", name=name, exact=True)
    if not link.is_visible():
        header_menu(page, "more")
    return link


def row_of(page: Page, text: str) -> Locator:
    return page.locator("tbody tr", has_text=text)


MEMBER_PASSWORD = "a long enough password"


def add_member(server: Service, role: str) -> str:
    """A new member of the service key's account, invited and accepted through the API; their email (unique: the
    service lives for the session, and an email is one person's)."""
    email = f"{role}-{secrets.token_hex(4)}@example.com"
    link = server.api("POST", "/account/invitation/create", {"email": email, "role": role})["link"]
    body = {"token": link.split("#invite=", 1)[1], "name": role.title(), "password": MEMBER_PASSWORD}
    accepted = httpx.post(f"{server.base}/api/v1/auth/invitation/accept", json=body, timeout=30)
    assert accepted.status_code == 200, accepted.text
    return email


def sign_in_member(context: BrowserContext, server: Service, email: str) -> Dashboard:
    """A dashboard tab of `context`, signed in with the member's email and password."""
    board = Dashboard(context, server)
    board.page.goto(f"{server.base}/dashboard")
    board.page.get_by_label("Email").fill(email)
    board.page.get_by_label("Password").fill(MEMBER_PASSWORD)
    board.page.get_by_role("button", name="Sign in", exact=True).click()
    expect(board.page.get_by_role("heading", name="Chatbots", level=1)).to_be_visible()
    return board
