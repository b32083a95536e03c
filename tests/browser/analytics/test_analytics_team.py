"""The team's figures on the Analytics page in Chromium (issue 51, item 4): yesterday was the support team's day of
`tests/support/team_day.py` (written into the service's database, as its pipeline, live chat and inbox leave it),
and the page says where each of the 11 conversations went in words whose counts add up, shows the team's median
times, and a small table per person and per channel; at 360 px the page does not scroll sideways and the team's
tables fit whole. Screenshots: `tests/artifacts/analytics-team-*.png`."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from botyard.db.base import new_uuid
from botyard.models import Chatbot, Role, User
from tests.support.browser import Service
from tests.support.dashboard import Dashboard, make_chatbot
from tests.support.team_day import day_rows
from tests.support.webhook_receiver import Receiver, receiver

PEOPLE = {"ada": "Ada Lovelace", "grace": "Grace Hopper"}
NONE = "\N{EN DASH}"
"""What a cell shows for nothing to count or time."""
OUTCOMES = (
    "Bot resolved 2 of 3 conversations it handled alone (1 unresolved); 8 more: 6 handed to a person, 2 without a "
    "question. 11 conversations in all."
)


@pytest.fixture
def callback() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


def write_day(server: Service, bot: str, channels: dict[str, str | None], day: datetime) -> None:
    """Two people of the owner's account and the day's conversations, straight into the service's SQLite file."""
    engine = create_engine(f"sqlite:///{Path(server.server.env['BOTYARD_DATA_DIR']) / 'botyard.sqlite3'}")
    try:
        with Session(engine) as session, session.begin():
            account = session.scalars(select(Chatbot.account_uuid).where(Chatbot.uuid == bot)).one()
            people: dict[str, str] = {}
            for key, name in PEOPLE.items():
                email = f"{key}-{secrets.token_hex(4)}@example.com"
                person = User(uuid=new_uuid(), account_uuid=account, email=email, name=name, password_hash="-")
                person.role = Role.OPERATOR.value
                session.add(person)
                people[key] = person.uuid
            session.flush()
            for conversation, following in day_rows(bot, day, channels, people):
                session.add(conversation)
                session.flush()  # the rows that name it come after it
                session.add_all(following)
    finally:
        engine.dispose()


def cells(rows: Locator) -> list[list[str]]:
    """Each row's cells, its name first."""
    return [[cell.strip() for cell in row.locator("th, td").all_inner_texts()] for row in rows.all()]


def tile(page: Page, name: str) -> Locator:
    return page.get_by_role("group", name=name, exact=True).locator(".tile-value")


def open_day(server: Service, context: BrowserContext, bot: str) -> tuple[Dashboard, Page]:
    board = Dashboard(context, server)
    board.sign_in()
    return board, board.open(f"/bot/{bot}/analytics", "Analytics: Team figures bot")


def test_the_analytics_page_shows_the_teams_figures_and_fits_a_phone(
    server: Service, browser: Browser, callback: Receiver, artifacts: Path
) -> None:
    bot = make_chatbot(server, "Team figures bot", with_qa=False)
    channels: dict[str, str | None] = {"web": None}
    for place, name in (("helpdesk", "Helpdesk"), ("shop", "Shop")):
        body = {"type": "generic", "name": name, "credentials": {"callback_url": callback.url("/replies")}}
        channels[place] = server.api("POST", f"/chatbot/{bot}/channel/create", body)["uuid"]
    yesterday = datetime.combine(datetime.now(UTC).date() - timedelta(days=1), time(9), UTC)
    write_day(server, bot, channels, yesterday)

    wide = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC")
    try:
        board, page = open_day(server, wide, bot)
        expect(tile(page, "Conversations")).to_have_text("11")
        expect(tile(page, "Resolution rate")).to_have_text("67%")
        expect(tile(page, "Handed to a person")).to_have_text("6")
        # The request kept only in the meta (an older row) left no event: 5 hand-offs happened by the events.
        expect(page.get_by_role("group", name="Handed to a person")).to_contain_text("(5 hand-offs in the period")
        expect(page.get_by_role("group", name="Resolution rate")).to_contain_text("2 of the 3 the bot handled alone")
        expect(page.locator(".analytics > .outcomes")).to_have_text(OUTCOMES)
        label = f"{yesterday:%b} {yesterday.day}"
        outcomes = page.get_by_role("figure", name="Conversations per day by outcome")
        for title in ("2 resolved by the bot", "1 unresolved", "6 handed to a person", "2 without a question"):
            expect(outcomes.locator("rect title", has_text=f"{label}: {title}")).to_have_count(1)
        by_channel = page.get_by_role("region", name="By channel", exact=True).locator("tbody tr")
        expect(by_channel).to_have_count(3)
        # Channel, conversations, questions, resolved by the bot, unresolved, handed, without a question, rate.
        assert cells(by_channel) == [
            ["Web (widget and API)", "4", "2", "1", "1", "1", "1", "50%"],
            ["Helpdesk (Generic)", "4", "1", "1", "0", "3", "0", "100%"],
            ["Shop (Generic)", "3", "0", "0", "0", "2", "1", NONE],
        ]

        team = page.get_by_role("region", name="The team", exact=True)
        expect(tile(page, "First response (median)")).to_have_text("2 min")
        expect(page.get_by_role("group", name="First response (median)")).to_contain_text("of 5 conversations answered")
        expect(tile(page, "Resolution time (median)")).to_have_text("20 min")
        expect(team.locator(".outcomes")).to_have_text(
            "6 of 11 conversations handed to a person: 5 answered by a person, 4 resolved by a person, 1 assigned to "
            "nobody."
        )
        people = page.get_by_role("region", name="By person", exact=True)
        expect(people.locator("tbody tr")).to_have_count(3)
        assert cells(people.locator("tbody tr")) == [
            ["Ada Lovelace", "3", "3", "1 min 30 s", "29 min"],
            ["Grace Hopper", "2", "1", "2 min", "20 min"],
            ["Nobody", "1", NONE, NONE, NONE],
        ]
        assert cells(people.locator("tfoot tr")) == [["All", "6", "4", "2 min", "20 min"]]
        assert cells(page.get_by_role("region", name="The team by channel").locator("tbody tr")) == [
            ["Web (widget and API)", "4", "1", "1", "1", "4 min"],
            ["Helpdesk (Generic)", "4", "1", "3", "1", "1 min"],
            ["Shop (Generic)", "3", "0", "2", "2", "1 min 30 s"],
        ]
        team.screenshot(path=artifacts / "analytics-team-1280.png")
        page.screenshot(path=artifacts / "analytics-team-page-1280.png", full_page=True)
        assert board.problems == []
    finally:
        wide.close()

    small = browser.new_context(viewport={"width": 360, "height": 740}, timezone_id="UTC")
    try:
        phone, narrow = open_day(server, small, bot)
        expect(narrow.get_by_role("region", name="By person", exact=True).locator("tbody tr")).to_have_count(3)
        width: Any = narrow.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 360  # nothing makes the page scroll sideways
        for name in ("By person", "The team by channel"):
            region = narrow.get_by_role("region", name=name, exact=True)
            sizes: Any = region.evaluate("(element) => [element.scrollWidth, element.clientWidth]")
            assert sizes[0] <= sizes[1], (name, sizes)  # the team's tables fit whole: no scrolling inside them
        narrow.get_by_role("region", name="The team", exact=True).screenshot(path=artifacts / "analytics-team-360.png")
        narrow.screenshot(path=artifacts / "analytics-team-page-360.png", full_page=True)
        assert phone.problems == []
    finally:
        small.close()
