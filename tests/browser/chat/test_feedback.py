"""Answer feedback end to end in Chromium: a widget user (on the customer's site) gives an answer a thumbs down
with a comment, by mouse and keyboard; the owner finds the verdict next to the answer in the dashboard's transcript
and in the API. Screenshots: `tests/artifacts/feedback-*.png`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, FrameLocator, Page, expect

from tests.support.browser import HostSite, Service
from tests.support.dashboard import QUESTION, Dashboard, make_chatbot

FRAME = "#botyard-widget iframe"
ANSWERED = "article.msg-assistant[data-state=done]"
COMMENT = "I asked about Sundays, and it told me weekdays."


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1280, "height": 800})
    yield opened
    opened.close()


def watched_page(context: BrowserContext) -> tuple[Page, list[str]]:
    """A new page and the problems of its frames (uncaught errors, CSP violations), which must stay empty."""
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))

    def console(message: ConsoleMessage) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            problems.append(f"CSP: {message.text}")

    page.on("console", console)
    return page, problems


def open_widget(page: Page, url: str) -> FrameLocator:
    page.goto(url)
    page.get_by_role("button", name="Open chat").click()
    chat = page.frame_locator(FRAME)
    expect(chat.get_by_role("button", name="Send", exact=True)).to_be_enabled()  # ready (and restored)
    return chat


def test_a_thumbs_down_with_a_comment_reaches_the_owner(
    server: Service, host_site: HostSite, context: BrowserContext, browser: Browser, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Feedback bot", visibility="public")
    page, problems = watched_page(context)
    chat = open_widget(page, host_site.page_url(bot))
    box = chat.get_by_role("textbox", name="Message")
    box.fill(QUESTION)
    box.press("Enter")
    answer = chat.locator(ANSWERED)
    expect(answer).to_contain_text("9 to 5")

    rating = answer.get_by_role("group", name="Was this answer helpful?")
    helpful = rating.get_by_role("button", name="Helpful", exact=True)
    not_helpful = rating.get_by_role("button", name="Not helpful", exact=True)
    expect(helpful).to_have_attribute("aria-pressed", "false")
    expect(not_helpful).to_have_attribute("aria-pressed", "false")
    not_helpful.click()
    expect(not_helpful).to_have_attribute("aria-pressed", "true")
    comment = answer.get_by_role("textbox", name="What was wrong? (optional)")
    expect(comment).to_be_focused()  # straight into the optional comment
    [session] = [s["uuid"] for s in server.api("GET", f"/chatbot/{bot}/sessions")]
    [message] = server.api("GET", f"/session/{session}/messages")
    assert json.loads(message["feedback_json"])["rating"] == "down"  # stored before any comment

    comment.press_sequentially(COMMENT)
    page.keyboard.press("Tab")  # the keyboard reaches the send button, and Enter sends
    expect(answer.get_by_role("button", name="Send feedback")).to_be_focused()
    page.keyboard.press("Enter")
    expect(answer.get_by_role("status")).to_have_text("Thank you for your feedback.")
    expect(comment).to_have_count(0)
    page.screenshot(path=artifacts / "feedback-widget.png")

    [entry] = server.api("GET", f"/chatbot/{bot}/feedback")
    assert (entry["session_uuid"], entry["message_uuid"]) == (session, message["uuid"])
    assert (entry["rating"], entry["comment"], entry["query"]) == ("down", COMMENT, QUESTION)
    verdict = json.loads(server.api("GET", f"/message/{message['uuid']}")["feedback_json"])
    assert (verdict["rating"], verdict["comment"]) == ("down", COMMENT)

    # A reload shows the verdict that was given.
    chat = open_widget(page, host_site.page_url(bot))
    restored = chat.locator(ANSWERED).get_by_role("button", name="Not helpful", exact=True)
    expect(restored).to_have_attribute("aria-pressed", "true")
    assert problems == []

    owner = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        dashboard = Dashboard(owner, server)
        dashboard.sign_in()
        board = dashboard.open(f"/bot/{bot}/conversations", "Conversations: Feedback bot")
        board.get_by_role("button", name=re.compile("^Open conversation")).click()
        transcript = board.get_by_role("log", name="Transcript")
        shown = transcript.locator("article.msg-assistant")
        expect(shown).to_contain_text("9 to 5")
        line = shown.locator(".feedback-line")
        expect(line).to_have_attribute("data-rating", "down")
        expect(line).to_contain_text("Visitor's rating: Not helpful (thumbs down)")
        expect(line.locator("blockquote")).to_have_text(COMMENT)
        board.screenshot(path=artifacts / "feedback-dashboard.png", full_page=True)
        assert dashboard.problems == []
    finally:
        owner.close()
