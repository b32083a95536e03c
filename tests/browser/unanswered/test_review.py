"""The review loop end to end in Chromium: a visitor rates an answer down in the widget (on the customer's site);
the owner, signed in to the dashboard, picks the chatbot and opens Review (two clicks), writes the right answer,
reads the answer of the question's own Q&A pair the item names and ticks replacing it (unticked until then), and
saves (the third click and one tick); the next visitor gets the fix. The Tests page imports a CSV set, runs it,
and after a change to the knowledge shows what the change fixed.
Screenshots: `tests/artifacts/review-*.png`, `tests/artifacts/tests-*.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, FrameLocator, Page, expect

from tests.support.browser import HostSite, Service
from tests.support.dashboard import QUESTION, Dashboard, make_chatbot, wait_for_sources

FRAME = "#botyard-widget iframe"
ANSWERED = "article.msg-assistant[data-state=done]"
FIX = "We are open from 8 to 6, Monday to Saturday."


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
    box = chat.get_by_role("textbox", name="Message")
    box.fill(question)
    box.press("Enter")
    expect(chat.locator(ANSWERED)).to_have_count(answers)


def test_from_a_thumbs_down_to_a_fix_that_answers_the_next_visitor_in_three_clicks(
    server: Service, host_site: HostSite, context: BrowserContext, browser: Browser, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Review bot", visibility="public")
    visitor = context.new_page()
    problems: list[str] = []
    visitor.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    chat = open_widget(visitor, host_site.page_url(bot))
    ask(chat, QUESTION, 1)
    expect(chat.locator(ANSWERED).last).to_contain_text("9 to 5")
    chat.locator(ANSWERED).last.get_by_role("button", name="Not helpful", exact=True).click()
    expect(chat.locator(ANSWERED).last.get_by_role("button", name="Not helpful", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )

    owner = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        dashboard = Dashboard(owner, server)
        page = dashboard.sign_in()
        page.get_by_label("Chatbot", exact=True).select_option(label="Review bot")  # click 1: which chatbot
        page.get_by_role("link", name="Review", exact=True).click()  # click 2
        expect(page.get_by_role("heading", level=1)).to_have_text("Review: Review bot")
        groups = (
            page.get_by_role("list", name="Answers to review")
            .get_by_role("listitem")
            .filter(has=page.get_by_role("heading", level=2))
        )
        expect(groups).to_have_count(1)
        group = groups.first
        expect(group.get_by_role("heading", level=2)).to_have_text(QUESTION)
        expect(group).to_contain_text("1 visitor, 1 answer")
        expect(group).to_contain_text("rated down")
        expect(group).to_contain_text("9 to 5")  # the bot's reply
        expect(group.get_by_role("link", name="Open the conversation")).to_have_attribute(
            "href", f"#/bot/{bot}/conversations/{server.api('GET', f'/chatbot/{bot}/sessions')[0]['uuid']}"
        )
        replace = group.get_by_label(f"Replace the answer of the Q&A pair “{QUESTION}” instead of adding a pair")
        expect(replace).not_to_be_checked()  # never replaced unless the owner says so
        expect(group.locator(".qa-pair")).to_contain_text(f"The Q&A pair “{QUESTION}” answers now:")
        expect(group.locator(".qa-pair blockquote")).to_contain_text("9 to 5")  # its current answer
        expect(group.get_by_label("Right answer")).to_have_value("")
        group.get_by_label("Right answer").fill(FIX)
        replace.check()
        page.screenshot(path=artifacts / "review-dashboard.png", full_page=True)
        group.get_by_role("button", name="Save answer").click()  # click 3
        expect(page.get_by_role("status").filter(has_text=f"Q&A pair updated: “{QUESTION}”")).to_be_visible()
        expect(groups).to_have_count(0)
        expect(page.locator(".summary")).to_contain_text("Nothing to review")
        assert dashboard.problems == []
    finally:
        owner.close()

    [pair] = server.api("GET", f"/chatbot/{bot}/data-sources")  # edited, not added
    assert pair["type"] == "qa"
    wait_for_sources(server, bot)
    ask(chat, QUESTION, 2)
    expect(chat.locator(ANSWERED).last).to_contain_text("8 to 6")
    visitor.screenshot(path=artifacts / "review-widget.png")
    assert problems == []


JO = "Hi, this is Jo at reception: I have booked you in for Tuesday at 10."


def test_a_persons_live_chat_reply_is_shown_as_theirs_and_never_put_in_the_answer_box(
    server: Service, context: BrowserContext
) -> None:
    """The trial's case: the page offered Jo's reply to one visitor as the answer for everyone."""
    bot = make_chatbot(server, "Desk bot")
    session = server.api("POST", f"/chatbot/{bot}/session/create")["uuid"]
    stream = httpx.post(
        f"{server.base}/api/v1/session/{session}/message/stream",
        json={"query": "Do you offer botox injections?"},
        headers={"Authorization": f"Bearer {server.key}"},
        timeout=30,
    )
    assert stream.status_code == 200, stream.text
    server.api("POST", f"/session/{session}/live-chat/start")
    server.api("POST", f"/session/{session}/live-chat/message", {"text": JO})
    dashboard = Dashboard(context, server)
    dashboard.sign_in()
    page = dashboard.open(f"/bot/{bot}/review", "Review: Desk bot")
    group = (
        page.get_by_role("list", name="Answers to review")
        .get_by_role("listitem")
        .filter(has=page.get_by_role("heading", level=2))
    )
    expect(group).to_have_count(1)
    expect(group.locator(".operator")).to_contain_text(f"A person replied to this visitor in live chat: {JO}")
    expect(group.get_by_label("Right answer")).to_have_value("")
    group.get_by_label("Right answer").fill("No, we do not offer botox.")
    group.get_by_role("button", name="Save answer").click()
    expect(
        page.get_by_role("status").filter(has_text="Q&A pair added: “Do you offer botox injections?”")
    ).to_be_visible()
    assert len(server.api("GET", f"/chatbot/{bot}/data-sources")) == 2
    assert dashboard.problems == []


CSV = f"""question,expect_any,expect
{QUESTION},9 to 5,
Do you sell gift vouchers?,50 EUR,
Who won the World Cup in 1954?,,refuse
"""


def test_the_tests_page_runs_a_set_and_shows_what_a_change_fixed(
    server: Service, context: BrowserContext, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Tests bot")
    dashboard = Dashboard(context, server)
    dashboard.sign_in()
    page = dashboard.open(f"/bot/{bot}/tests", "Tests: Tests bot")
    page.get_by_label("CSV file").set_input_files({"name": "smoke.csv", "mimeType": "text/csv", "buffer": CSV.encode()})
    page.get_by_label("Name", exact=True).fill("Smoke")
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_role("status").filter(has_text="Test set “Smoke” imported: 3 questions.")).to_be_visible()
    card = page.locator("li.test-set")
    expect(card).to_have_count(1)
    card.get_by_role("button", name="Run").click()
    expect(card.locator(".summary")).to_contain_text("2 of 3 passed")
    expect(card.locator("tbody tr")).to_have_count(3)
    expect(card.locator("tbody tr.failed")).to_contain_text("Do you sell gift vouchers?")

    vouchers = {"question": "Do you sell gift vouchers?", "answer": "Yes, gift vouchers of **25 and 50 EUR**."}
    server.api("POST", f"/chatbot/{bot}/data-source/qa", vouchers)
    wait_for_sources(server, bot)
    card.get_by_role("button", name="Run").click()
    expect(card.locator(".summary")).to_contain_text("3 of 3 passed")
    expect(card.locator(".summary")).to_contain_text("Since the last run: 1 fixed.")
    expect(card.locator("tbody tr", has_text="gift vouchers").locator(".badge", has_text="fixed")).to_be_visible()
    # The reply reads as the visitor saw it: its Markdown rendered, not shown as asterisks.
    expect(card.locator("tbody tr", has_text="gift vouchers").locator(".reply strong")).to_have_text("25 and 50 EUR")
    page.screenshot(path=artifacts / "tests-dashboard.png", full_page=True)
    assert dashboard.problems == []
