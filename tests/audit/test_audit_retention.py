"""The audit log keeps an event `BOTYARD_AUDIT_DAYS`: older ones are deleted as new ones are written, at most once
an hour per process. The app's clock is moved by hand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from tests.support.api import Api
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns

MINUTE = 60
DAY = 24 * 60 * MINUTE


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def owner(
    settings: Settings, client: TestClient, fake_dns: FakeDns, issued_keys: list[str], clock: ManualClock
) -> Iterator[Api]:
    """An owner's key on a second app on the test database, which keeps audit events a day and tells time by
    `clock`."""
    app = create_app(settings.model_copy(update={"audit_days": 1}), resolver=fake_dns, clock=clock)
    with TestClient(app, raise_server_exceptions=False) as clocked:
        issued = Db(clocked).run(lambda session: issue_key(session, "clock@example.com"))
        issued_keys.append(issued.key)
        yield Api(clocked, issued.key)


def test_events_past_the_period_are_pruned_once_an_hour(owner: Api, clock: ManualClock) -> None:
    def kept() -> list[str]:
        page = owner.ok(owner.get("/account/audit?limit=200"))
        return [event["summary"].removeprefix("chatbot created: ") for event in reversed(page["events"])]

    def change(name: str) -> None:
        owner.chatbot(name)

    change("a")  # prunes (the process never has): nothing is old yet
    clock.advance(30 * MINUTE)
    change("b")
    clock.advance(DAY)
    change("c")  # prunes: "a" is past the day, "b" (30 minutes younger) is not
    assert kept() == ["b", "c"]
    clock.advance(20 * MINUTE)
    change("d")  # pruned 20 minutes ago: not again, though "b" is now past the day
    assert kept() == ["b", "c", "d"]
    clock.advance(45 * MINUTE)
    change("e")  # an hour and 5 minutes since: "b" goes
    assert kept() == ["c", "d", "e"]


def test_the_period_is_a_setting() -> None:
    assert Settings().audit_days == 365
    assert Settings(audit_days=30).audit_days == 30
    with pytest.raises(ValueError, match="audit_days"):
        Settings(audit_days=0)
