"""Analytics end to end in Chromium (issue 20, item 2, "done when"): a scripted day of a public chatbot (three
visitors, four questions of which two are refused, a thumbs up and a thumbs down, a hand-off to an operator), then
the owner's Analytics page shows its counts in the tiles and in the charts' labels, for the default period and for a
custom one. Screenshots: `tests/artifacts/analytics-*.png`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Route, expect

from tests.support.browser import Service
from tests.support.dashboard import QUESTION, Dashboard, make_chatbot

REFUSED = "Do you sell bicycles?"


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC")
    yield opened
    opened.close()


def _widget(server: Service, method: str, path: str, body: dict[str, object]) -> httpx.Response:
    """A widget API call of the visitor's browser (no key: the session is the capability), answered in SSE."""
    url, headers = f"{server.base}/api/v1/widget{path}", {"Accept": "text/event-stream"}
    response = httpx.request(method, url, json={"device_id": "visitor-1", **body}, headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    return response


def visit(server: Service, bot: str, *questions: str) -> tuple[str, list[str]]:
    """A visitor's conversation in the widget: the session and each answer's message uuid."""
    chat = _widget(server, "POST", f"/{bot}/session", {}).json()["session_uuid"]
    answers = []
    for question in questions:
        body = _widget(server, "POST", f"/session/{chat}/message/stream", {"query": question}).text
        end = [json.loads(block.split("data: ", 1)[1]) for block in body.split("\n\n") if "event: end" in block]
        answers.append(end[0]["message_uuid"])
    return chat, answers


def script_day(server: Service, bot: str) -> None:
    """Three visitors: the first asks what the knowledge answers (liked) and what it does not; the second asks the
    first question again; the third asks the second again, dislikes the refusal and is handed to an operator."""
    liked_chat, [liked, _] = visit(server, bot, QUESTION, REFUSED)
    visit(server, bot, QUESTION)
    handed, [disliked] = visit(server, bot, REFUSED)
    _widget(server, "POST", f"/session/{liked_chat}/message/{liked}/feedback", {"rating": "up"})
    _widget(server, "POST", f"/session/{handed}/message/{disliked}/feedback", {"rating": "down"})
    server.api("POST", f"/session/{handed}/live-chat/start")


def tile(page: Page, name: str) -> Locator:
    """A summary tile's value."""
    return page.get_by_role("group", name=name, exact=True).locator(".tile-value")


def day(today: datetime, offset: int) -> str:
    return (today + timedelta(days=offset)).strftime("%Y-%m-%d")


def test_the_analytics_page_shows_the_counts_of_a_scripted_day(
    server: Service, context: BrowserContext, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Analytics bot", visibility="public")
    script_day(server, bot)
    today = datetime.now(UTC)
    label = f"{today:%b} {today.day}"

    dashboard = Dashboard(context, server)
    dashboard.sign_in()
    page = dashboard.open(f"/bot/{bot}/analytics", "Analytics: Analytics bot")
    expect(page.get_by_role("link", name="Analytics")).to_have_attribute("aria-current", "page")
    for name, value in (
        ("Conversations", "3"),
        ("Questions", "4"),
        ("Answered", "2"),
        ("Refused", "2"),
        ("Handed to a person", "1"),
        ("Feedback", "50%"),
    ):
        expect(tile(page, name)).to_have_text(value)
    expect(page.get_by_role("group", name="Feedback", exact=True)).to_contain_text("1 up, 1 down")
    # The first visitor's last answer was the refusal (unresolved), the second's answered (resolved), the third was
    # handed to a person: the bot resolved one of the two it handled alone, and the three add up.
    expect(tile(page, "Resolution rate")).to_have_text("50%")
    rate = page.get_by_role("group", name="Resolution rate", exact=True)
    expect(rate).to_contain_text("1 of the 2 the bot handled alone")
    expect(page.locator(".analytics > .outcomes")).to_have_text(
        "Bot resolved 1 of 2 conversations it handled alone (1 unresolved); 1 more: 1 handed to a person. "
        "3 conversations in all."
    )
    resolved = page.get_by_role("figure", name="Conversations per day by outcome")
    expect(resolved.locator("rect title", has_text=f"{label}: 1 resolved by the bot")).to_have_count(1)
    expect(resolved.locator("rect title", has_text=f"{label}: 1 unresolved")).to_have_count(1)
    expect(resolved.locator("rect title", has_text=f"{label}: 1 handed to a person")).to_have_count(1)
    # The team: the hand-off was an operator's take-over with no reply yet.
    expect(page.get_by_role("region", name="The team", exact=True)).to_contain_text(
        "1 of 3 conversations handed to a person"
    )
    expect(page.locator(".summary")).to_have_text(f"30 days, {day(today, -29)} to {today:%Y-%m-%d}, in UTC.")

    answered = page.get_by_role("figure", name="Answered and refused questions per day")
    expect(answered.get_by_role("img")).to_have_accessible_name(
        "Answered and refused questions per day "
        f"30 days from {day(today, -29)} to {today:%Y-%m-%d}. In all: Answered: 2, Refused: 2."
    )
    expect(answered.locator("rect title", has_text=f"{label}: 2 answered")).to_have_count(1)
    expect(answered.locator("rect title", has_text=f"{label}: 2 refused")).to_have_count(1)
    volume = page.get_by_role("figure", name="Conversations and questions per day")
    expect(volume.locator("rect title", has_text=f"{label}: 3 conversations")).to_have_count(1)
    expect(volume.locator("rect title", has_text=f"{label}: 4 questions")).to_have_count(1)
    expect(volume.locator(".day-label").last).to_have_text(label)
    latency = page.get_by_role("figure", name="Time to the first byte of an answer per day")
    expect(latency.locator("circle")).to_have_count(2)  # one day with answers: a median and a 95th percentile

    questions = page.get_by_role("region", name="Top questions").locator("tbody tr")
    expect(questions).to_have_count(2)
    expect(questions.filter(has_text=QUESTION)).to_contain_text("2")
    expect(questions.filter(has_text=REFUSED)).to_contain_text("2")
    sources = page.get_by_role("region", name="Most cited sources").locator("tbody tr")
    expect(sources).to_have_count(1)
    expect(sources.first).to_have_text(f"{QUESTION}2")
    page.screenshot(path=artifacts / "analytics-dashboard.png", full_page=True)

    page.get_by_label("Period", exact=True).select_option("custom")
    page.get_by_label("From", exact=True).fill(f"{today:%Y-%m-%d}")
    page.get_by_label("To", exact=True).fill(f"{today:%Y-%m-%d}")
    page.get_by_role("button", name="Show").click()
    expect(page.locator(".summary")).to_have_text(f"1 day, {today:%Y-%m-%d} to {today:%Y-%m-%d}, in UTC.")
    expect(tile(page, "Questions")).to_have_text("4")
    page.get_by_role("figure", name="Answered and refused questions per day").get_by_text("Show the numbers").click()
    row = page.get_by_role("figure", name="Answered and refused questions per day").locator("tbody tr")
    expect(row).to_have_text(f"{today:%Y-%m-%d}22")
    page.screenshot(path=artifacts / "analytics-custom-period.png", full_page=True)
    assert dashboard.problems == []


def test_the_charts_y_labels_show_whole(server: Service, board: Dashboard) -> None:
    """A first byte of seconds and a day of many questions: the y labels read "1 s", "2 s" and "10k", each wholly
    inside its chart (a fixed margin once cut "1000 ms" to "000 ms"). The server's figures are replaced on the way
    to the page: no real answer takes seconds here."""
    bot = make_chatbot(server, "Slow bot", with_qa=False)

    def slow_and_busy(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        busiest, slowest = body["days"][-2:]
        busiest["conversations"], busiest["messages"] = 4_000, 17_500
        slowest["first_byte_p50_ms"], slowest["first_byte_p95_ms"] = 640, 1_840
        route.fulfill(response=response, json=body)

    board.page.route("**/api/v1/chatbot/*/analytics?*", slow_and_busy)
    page = board.open(f"/bot/{bot}/analytics", "Analytics: Slow bot")
    latency = page.get_by_role("figure", name="Time to the first byte of an answer per day")
    expect(latency.locator("text.tick:not(.day-label)")).to_have_text(["0 ms", "1 s", "2 s"])
    volume = page.get_by_role("figure", name="Conversations and questions per day")
    expect(volume.locator("text.tick:not(.day-label)")).to_have_text(["0", "10k", "20k"])

    figures = page.locator("figure.chart")
    expect(figures).to_have_count(5)
    for index in range(figures.count()):
        chart = figures.nth(index).locator("svg")
        frame = chart.bounding_box()
        assert frame is not None
        for label in chart.locator("text.tick").all():
            box = label.bounding_box()
            assert box is not None
            name = f"{figures.nth(index).get_attribute('aria-label')}: {label.text_content()}"
            assert box["x"] >= frame["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"], name
