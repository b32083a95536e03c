"""The inbox a team works in, in Chromium: two operators of one account at once, Ann at 1280 px and Ben on a phone
(360 px), while a visitor asks for a person in the widget. Ann writes a canned reply, assigns the conversation to
herself by key, replies with the canned reply typed as `/`, adds a private note and hands back and resolves it by
key; Ben sees it assigned to Ann, its unread count his own, the notes as they come, without a reload; the note never
reaches the widget nor the hosted messages; the list's filters and search find it. Screenshots:
`tests/artifacts/inbox-1280.png`, `tests/artifacts/inbox-360.png` (and the list on the phone, `inbox-360-list.png`)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FrameLocator, Locator, Page, expect

from tests.support.browser import HostSite, Service
from tests.support.dashboard import Dashboard, add_member, sign_in_member
from tests.support.handoff import ASKING, hand_off_bot, visitor_says
from tests.support.layout import assert_no_sideways_scroll

NOTE = "Gold customer: refund without asking for the receipt."
CANNED = "Thanks for waiting: I am looking into your invoice now."
PRIVATE = "Private note: the customer does not see this"


@pytest.fixture
def team(browser: Browser, server: Service) -> Iterator[tuple[Dashboard, Dashboard]]:
    """Ann at 1280 px and Ben at 360 px, two operators of the service key's account, signed in."""
    people = [(add_member(server, "operator", "Ann"), 1280, 900), (add_member(server, "operator", "Ben"), 360, 800)]
    # A colleague with a long name, as the service's other tests leave: the assignee list must still fit a phone.
    add_member(server, "operator", "Maximiliane Alexandra von Featherstonehaugh-Worthington")
    contexts = [browser.new_context(viewport={"width": width, "height": height}) for _, width, height in people]
    boards = [sign_in_member(context, server, email) for context, (email, _, _) in zip(contexts, people, strict=True)]
    yield boards[0], boards[1]
    for context in contexts:
        context.close()
    assert [problem for board in boards for problem in board.problems] == []


def rows(page: Page) -> Locator:
    return page.get_by_role("list", name="Conversations").locator("li[data-uuid]")


def widget(page: Page, url: str) -> FrameLocator:
    page.goto(url)
    page.get_by_role("button", name="Open chat").click()
    chat = page.frame_locator("#botyard-widget iframe")
    expect(chat.get_by_role("button", name="Close chat")).to_be_visible()  # chat.js has bound the form
    return chat


def write_canned_reply(page: Page) -> None:
    page.locator("summary", has_text="Canned replies").click()
    manager = page.locator(".canned-manager")
    manager.get_by_label("Shortcut").fill("thanks")
    manager.get_by_label("Canned text").fill(CANNED)
    manager.get_by_role("button", name="Add canned reply").click()
    expect(manager.get_by_role("list", name="The team's canned replies")).to_contain_text("/thanks")


@pytest.mark.timeout(420)
def test_two_operators_work_the_inbox_at_once(
    browser: Browser, server: Service, host_site: HostSite, team: tuple[Dashboard, Dashboard], artifacts: Path
) -> None:
    bot = hand_off_bot(server, "Team desk")
    server.api("POST", f"/chatbot/{bot}/update", {"visibility": "public"})
    ann, ben = (board.open(f"/bot/{bot}/inbox", "Inbox: Team desk") for board in team)
    for page in (ann, ben):
        expect(page.get_by_text("Live updates on.")).to_be_visible()
    write_canned_reply(ann)

    visitor = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        chat = widget(visitor.new_page(), host_site.page_url(bot))
        box = chat.get_by_role("textbox", name="Message")
        box.fill(ASKING)
        box.press("Enter")
        expect(chat.locator("article.msg-assistant[data-state=done]")).to_contain_text("let our team know")

        # Both see who waits, on which channel, for how long, nobody's yet, unread for each.
        for page in (ann, ben):
            expect(rows(page)).to_have_count(1)
            row = rows(page).first
            for text in (ASKING, "Web", "waiting", "Unassigned"):
                expect(row).to_contain_text(text)
            expect(row).not_to_contain_text("Visitor of")
            expect(row.get_by_label("1 unread")).to_be_visible()
        session = rows(ann).first.get_attribute("data-uuid")
        assert session
        # A visitor who gave no name is told apart by their conversation's handle and the page they were on.
        expect(rows(ann).first).to_contain_text(f"Visitor #{session[:4]} on localhost")

        # Ann opens it (read for her only) and takes it by key: Ben sees it is Ann's.
        rows(ann).first.locator("button[data-session]").click()
        expect(ann.get_by_role("log", name="Transcript")).to_contain_text(ASKING)
        expect(rows(ann).first.locator(".unread")).to_have_count(0)
        ann.keyboard.press("a")
        expect(ann.get_by_role("tab", name="Mine, 1")).to_be_visible()
        expect(ann.get_by_role("tab", name="Unassigned, 0")).to_be_visible()
        expect(ben.get_by_role("tab", name="Mine, 0")).to_be_visible()
        expect(rows(ben)).to_have_count(0)  # no longer unassigned: under All, with its assignee
        ben.get_by_role("tab", name="All").click()
        expect(rows(ben).first).to_contain_text("Ann")
        expect(rows(ben).first.get_by_label("1 unread")).to_be_visible()  # Ben has not read it
        ann.get_by_role("tab", name="Mine").click()
        expect(rows(ann).first).to_contain_text("Ann")

        # A reply from the canned replies (typed as /), which takes the conversation over; then a private note.
        ann.keyboard.press("r")
        reply = ann.get_by_label("Reply", exact=True)
        expect(reply).to_be_focused()
        reply.press_sequentially("/tha")
        expect(ann.get_by_role("option", name="/thanks")).to_be_visible()
        reply.press("Enter")
        expect(reply).to_have_value(CANNED)
        reply.press("Enter")
        expect(chat.locator("article.msg-operator")).to_contain_text(CANNED)
        expect(ann.get_by_text("You are chatting live")).to_be_visible()
        reply.press("Escape")
        ann.keyboard.press("n")
        note = ann.get_by_label("Private note", exact=True)
        expect(note).to_be_focused()
        note.fill(NOTE)
        note.press("Enter")
        transcript = ann.get_by_role("log", name="Transcript")
        expect(transcript.get_by_role("article", name=PRIVATE)).to_contain_text(NOTE)
        assert_no_sideways_scroll(ann)
        ann.screenshot(path=artifacts / "inbox-1280.png", full_page=True)

        # Ben, on his phone: the list, then the conversation alone, with Ann's note; its context folds.
        assert_no_sideways_scroll(ben)
        ben.screenshot(path=artifacts / "inbox-360-list.png", full_page=True)
        rows(ben).first.locator("button[data-session]").click()
        expect(ben.get_by_role("list", name="Conversations")).to_be_hidden()
        expect(ben.get_by_role("log", name="Transcript").get_by_role("article", name=PRIVATE)).to_contain_text(NOTE)
        expect(ben.locator(".conversation-facts")).to_contain_text("assigned to Ann")
        ben.locator(".inbox-context summary").click()
        expect(ben.locator(".inbox-context")).to_contain_text("Earlier conversations")
        assert_no_sideways_scroll(ben)
        ben.screenshot(path=artifacts / "inbox-360.png", full_page=True)

        # A second note by Ann shows on Ben's phone as it is written; none reaches the visitor.
        note.fill("Refund sent.")
        note.press("Enter")
        expect(ben.get_by_role("log", name="Transcript")).to_contain_text("Refund sent.")
        box.fill("Thank you!")
        box.press("Enter")
        expect(transcript).to_contain_text("Thank you!")
        expect(chat.locator("body")).not_to_contain_text("Refund sent.")
        expect(chat.locator("body")).not_to_contain_text(NOTE)
        hosted = json.dumps(server.api("GET", f"/session/{session}/messages"))
        assert NOTE not in hosted and "Refund sent." not in hosted

        # Hand back (the bot answers again, still open), then resolve: it leaves the open list, on both.
        note.press("Escape")
        ann.keyboard.press("h")
        expect(ann.get_by_text("The AI is answering this conversation.")).to_be_visible()
        expect(ann.locator(".conversation-facts")).to_contain_text("Open")
        ann.keyboard.press("e")
        expect(ann.locator(".conversation-facts")).to_contain_text("Resolved")
        expect(ben.locator(".conversation-facts")).to_contain_text("Resolved")
        expect(rows(ann)).to_have_count(0)
        ben.get_by_role("button", name="Back to the list").click()
        expect(rows(ben)).to_have_count(0)
        assert_no_sideways_scroll(ben)
    finally:
        visitor.close()

    # The filters: resolved ones by status, the web by channel, a word of the conversation by search.
    ann.get_by_label("Status").select_option("resolved")
    expect(rows(ann)).to_have_count(1)
    ann.get_by_label("Channel").select_option("widget")
    expect(rows(ann)).to_have_count(1)
    ann.get_by_label("Search").fill("invoice")
    expect(rows(ann)).to_have_count(1)
    ann.get_by_label("Search").fill("parcel")
    expect(rows(ann)).to_have_count(0)
    ann.get_by_label("Search").fill("")
    ann.get_by_label("Status").select_option("open")
    ann.get_by_role("heading", level=1).click()  # out of the fields: the keys are the inbox's again
    ann.keyboard.press("?")
    expect(ann.get_by_role("dialog", name="Keyboard shortcuts")).to_contain_text("Hand back to the bot")


@pytest.mark.timeout(300)
def test_keys_move_through_the_list_and_a_snooze_takes_one_out(server: Service, board: Dashboard) -> None:
    """`j` and `k` open the next and the previous conversation of the list, in its order; in the search box they
    are letters. A snooze takes the conversation out of the open ones until it is reopened."""
    bot = hand_off_bot(server, "Key desk")
    for text in (ASKING, "Can a person call me back?"):
        visitor_says(server, server.api("POST", f"/chatbot/{bot}/session/create", {})["uuid"], text)
        time.sleep(1.1)  # the waiting times are to the second: the first waits longer, whatever is read meanwhile
    page = board.open(f"/bot/{bot}/inbox", "Inbox: Key desk")
    expect(rows(page)).to_have_count(2)
    listed = [rows(page).nth(index).get_attribute("data-uuid") for index in range(2)]
    at = f"{board.server.base}/dashboard#/bot/{bot}/inbox"
    page.get_by_label("Search").fill("jk")
    expect(rows(page)).to_have_count(0)
    expect(page).to_have_url(at)  # typed into the field: no conversation opened
    page.get_by_label("Search").fill("")
    expect(rows(page)).to_have_count(2)
    page.get_by_role("heading", level=1).click()  # out of the field
    page.keyboard.press("j")
    expect(page).to_have_url(f"{at}/{listed[0]}")
    page.keyboard.press("j")
    expect(page).to_have_url(f"{at}/{listed[1]}")
    second = rows(page).nth(1).locator(".preview").inner_text()
    expect(page.get_by_role("log", name="Transcript")).to_contain_text(second)
    page.keyboard.press("k")
    expect(page).to_have_url(f"{at}/{listed[0]}")

    # Snoozed (four hours from now unless changed): out of the open list, under Snoozed until it is reopened.
    page.get_by_role("button", name="Snooze…").click()
    page.get_by_role("button", name="Snooze", exact=True).click()
    expect(page.locator(".conversation-facts")).to_contain_text("Snoozed")
    expect(rows(page)).to_have_count(1)
    page.get_by_label("Status").select_option("snoozed")
    expect(rows(page)).to_have_count(1)
    page.get_by_role("button", name="Reopen").click()
    expect(rows(page)).to_have_count(0)
    expect(page.locator(".conversation-facts")).to_contain_text("Open")
