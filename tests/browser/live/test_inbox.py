"""The inbox's triage in Chromium: two operators' dashboards on one chatbot while a visitor (the API) asks for a
person. Each waiting conversation shows what it asked, how long it waits and its unread messages (and the Inbox link
their total); opening it marks it read on both dashboards; ending a live chat and dismissing a request empty both
lists without a reload. Screenshots: `tests/artifacts/inbox-*.png`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.support.browser import Service
from tests.support.dashboard import Dashboard
from tests.support.handoff import ASKING, hand_off_bot, visitor_says


@pytest.fixture
def operators(browser: Browser, server: Service) -> Iterator[tuple[Dashboard, Dashboard]]:
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(2)]
    boards = [Dashboard(context, server) for context in contexts]
    for board in boards:
        board.sign_in()
    yield boards[0], boards[1]
    for context in contexts:
        context.close()
    assert [problem for board in boards for problem in board.problems] == []


def waiting_list(page: Page) -> tuple[Locator, Locator]:
    listed = page.get_by_role("list", name="Sessions waiting for a person")
    return listed, listed.locator("li[data-uuid]")


def test_two_operators_see_every_change_without_a_reload(
    server: Service, operators: tuple[Dashboard, Dashboard], artifacts: Path
) -> None:
    bot = hand_off_bot(server, "Triage bot")
    first, second = operators
    pages = [board.open(f"/bot/{bot}/inbox", "Inbox: Triage bot") for board in operators]
    for page in pages:
        expect(page.get_by_text("Live updates on.")).to_be_visible()
        expect(page.get_by_role("status", name="Inbox summary")).to_have_text("Nobody is waiting.")

    chat = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    visitor_says(server, chat, ASKING)
    for page in pages:
        _, items = waiting_list(page)
        expect(items).to_have_count(1)
        expect(items.first).to_contain_text(ASKING)
        expect(items.first).to_contain_text(re.compile(r"waiting \d+ (s|min)"))
        expect(items.first.get_by_label("1 unread")).to_be_visible()
        inbox_link = page.get_by_role("navigation", name="Main").get_by_role("link", name=re.compile("^Inbox"))
        expect(inbox_link.get_by_label("1 unread")).to_be_visible()
        expect(page.get_by_role("status", name="Inbox summary")).to_contain_text("1 visitor waiting for a person")
    pages[1].screenshot(path=artifacts / "inbox-waiting.png", full_page=True)

    # The first operator opens it: read on both dashboards.
    pages[0].locator(f"button[data-session='{chat}']").click()
    expect(pages[0].get_by_role("log", name="Transcript")).to_contain_text(ASKING)
    for page in pages:
        expect(waiting_list(page)[1].first.locator(".unread")).to_have_count(0)
        expect(page.get_by_role("navigation", name="Main").get_by_label("1 unread")).to_have_count(0)

    # A live chat: the second dashboard follows it, and empties when it ends.
    pages[0].get_by_role("button", name="Take over").click()
    expect(pages[0].get_by_text("You are chatting live")).to_be_visible()
    expect(waiting_list(pages[1])[1].first).to_contain_text("live chat")
    visitor_says(server, chat, "Invoice 2024-17 is wrong")
    expect(pages[0].get_by_role("log", name="Transcript")).to_contain_text("Invoice 2024-17 is wrong")
    expect(waiting_list(pages[1])[1].first.get_by_label("1 unread")).to_have_count(0)  # open on the first: read
    server.api("POST", f"/session/{chat}/live-chat/end")  # ended elsewhere (another tab, the API)
    for page in pages:
        expect(waiting_list(page)[0]).to_contain_text("Nobody is waiting for a person.")
        expect(page.get_by_role("status", name="Inbox summary")).to_have_text("Nobody is waiting.")
    expect(pages[0].get_by_role("button", name="Take over")).to_be_visible()  # the open pane followed too
    expect(pages[0].get_by_text("The AI is answering this conversation.")).to_be_visible()

    # A dismissal on one dashboard empties the other's list.
    other = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    visitor_says(server, other, "Can a person call me back?")
    for page in pages:
        expect(waiting_list(page)[1]).to_have_count(1)
        expect(waiting_list(page)[1].first).to_contain_text("Can a person call me back?")
    first.page.screenshot(path=artifacts / "inbox-second-request.png", full_page=True)
    waiting_list(pages[1])[1].first.get_by_role("button", name="Dismiss request").click()
    for page in pages:
        expect(waiting_list(page)[0]).to_contain_text("Nobody is waiting for a person.")
        expect(page.get_by_role("log", name="Activity")).to_contain_text("dismissed a request")
    assert server.api("GET", f"/session/{other}")["meta"]["human_requested"] is False
    second.page.screenshot(path=artifacts / "inbox-after-dismiss.png", full_page=True)


def test_the_pane_dismisses_the_open_request(server: Service, operators: tuple[Dashboard, Dashboard]) -> None:
    bot = hand_off_bot(server, "Pane bot")
    chat = server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"]
    visitor_says(server, chat, ASKING)
    page = operators[0].open(f"/bot/{bot}/inbox/{chat}", "Inbox: Pane bot")
    expect(page.get_by_text("The visitor asked for a person.")).to_be_visible()
    pane = page.get_by_role("region", name=re.compile("A visitor on the web, since"))
    pane.get_by_role("button", name="Dismiss request").click()
    expect(page.get_by_text("Request dismissed")).to_be_visible()
    expect(page.get_by_text("The AI is answering this conversation.")).to_be_visible()
    expect(waiting_list(page)[0]).to_contain_text("Nobody is waiting for a person.")
