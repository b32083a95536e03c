"""Unanswered questions end to end in Chromium (issue 20, item 1, "done when"): a visitor asks the widget (on the
customer's site) something the knowledge does not answer, twice; the owner finds the question in the dashboard's
Unanswered page with its count, adds the answer in one step, and the widget then answers it.
Screenshots: `tests/artifacts/unanswered-*.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, FrameLocator, Page, expect

from botyard.answering.supervisor import DEFAULT_NO_ANSWER_MESSAGE
from tests.support.browser import HostSite, Service
from tests.support.dashboard import Dashboard, make_chatbot, wait_for_sources

expect.set_options(timeout=15_000)

FRAME = "#botyard-widget iframe"
ANSWERED = "article.msg-assistant[data-state=done]"
QUESTION = "Do you offer botox injections?"
ANSWER = "Yes: botox injections are given on Tuesdays, by appointment."


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1280, "height": 800})
    yield opened
    opened.close()


def open_widget(page: Page, url: str) -> FrameLocator:
    page.goto(url)
    page.get_by_role("button", name="Open chat").click()
    chat = page.frame_locator(FRAME)
    expect(chat.get_by_role("button", name="Send", exact=True)).to_be_enabled()
    return chat


def ask(chat: FrameLocator, question: str, answers: int) -> None:
    """Send `question`; wait for the conversation's `answers`-th answer."""
    box = chat.get_by_role("textbox", name="Message")
    box.fill(question)
    box.press("Enter")
    expect(chat.locator(ANSWERED)).to_have_count(answers)


def test_an_owner_answers_an_unanswered_question_in_one_step_and_the_widget_then_answers_it(
    server: Service, host_site: HostSite, context: BrowserContext, browser: Browser, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Clinic bot", visibility="public")
    visitor = context.new_page()
    problems: list[str] = []
    visitor.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    chat = open_widget(visitor, host_site.page_url(bot))
    ask(chat, QUESTION.lower().rstrip("?"), 1)
    ask(chat, QUESTION, 2)  # the same question (case and punctuation aside); the newest wording leads
    expect(chat.locator(ANSWERED).last).to_contain_text(DEFAULT_NO_ANSWER_MESSAGE)

    owner = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        dashboard = Dashboard(owner, server)
        dashboard.sign_in()
        page = dashboard.open(f"/bot/{bot}/unanswered", "Unanswered: Clinic bot")
        groups = page.get_by_role("list", name="Unanswered questions").get_by_role("listitem")
        expect(groups).to_have_count(1)
        group = groups.first
        expect(group.get_by_role("heading", level=2)).to_have_text(QUESTION)
        expect(group).to_contain_text("Asked 2 times")
        expect(group).to_contain_text("declined: nothing in the knowledge answers it (2)")
        expect(group.get_by_label("Question")).to_have_value(QUESTION)
        group.get_by_label("Answer").fill(ANSWER)
        page.screenshot(path=artifacts / "unanswered-dashboard.png", full_page=True)

        group.get_by_role("button", name="Add answer").click()
        expect(page.get_by_role("status").first).to_contain_text(f"Answer added to the knowledge for “{QUESTION}”")
        expect(groups).to_have_count(0)
        expect(page.locator(".summary")).to_have_text(
            "No unanswered questions: every question so far found its answer."
        )
        page.screenshot(path=artifacts / "unanswered-answered.png", full_page=True)
        assert dashboard.problems == []
    finally:
        owner.close()

    [qa] = [s for s in server.api("GET", f"/chatbot/{bot}/data-sources") if s["title"] == QUESTION]
    assert qa["type"] == "qa"
    wait_for_sources(server, bot)
    ask(chat, QUESTION, 3)
    expect(chat.locator(ANSWERED).last).to_contain_text("Tuesdays")
    visitor.screenshot(path=artifacts / "unanswered-widget.png")
    assert server.api("GET", f"/chatbot/{bot}/unanswered")["groups"] == [], "answered now: not recorded again"
    assert problems == []
