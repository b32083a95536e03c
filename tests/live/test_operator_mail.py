"""Operators told by email (issue 40): a visitor who asks for a person is announced to the chatbot's notification
addresses within 5 s, through a local SMTP server the tests start, by the app's own in-process job runner; a mail
server that answers "try again later" gets the email again; a message left after hours is emailed with the
visitor's address to reply to; without addresses the account's people who are there are emailed, and without
them nothing is queued; the password reaches the server and no log.
Real app (jobs in process), both databases."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from uuid import uuid4

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.jobs.kinds import JobKind
from botyard.mail import Mail, Mailer, MailRefused
from botyard.main import create_app
from botyard.models import Job, Role
from tests.support.agents import PERSON, agent, disable_default
from tests.support.api import Api
from tests.support.database import Db, backend_params, fresh_settings
from tests.support.fake_dns import FakeDns
from tests.support.people import add_person, person
from tests.support.smtp_server import MailCatcher, smtp_server
from tests.support.widget import open_bot, widget_ask, widget_session

ASKING = "I want to talk to a real person please, my parcel 4471 is lost"
PUBLIC_URL = "https://bots.example.com"


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailCatcher]:
    with smtp_server() as catcher:
        yield catcher


@pytest.fixture(scope="module", params=backend_params())
def mail_client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, smtp: MailCatcher
) -> Iterator[TestClient]:
    """The app with its job runner in process, as `botyard serve` runs, sending mail to `smtp`."""
    overrides = {"jobs_in_process": True, "embedder": "none", "public_url": PUBLIC_URL + "/", **smtp.settings()}
    with (
        fresh_settings(request.param, tmp_path_factory.mktemp("botyard-mail"), **overrides) as settings,
        TestClient(create_app(settings, resolver=FakeDns()), raise_server_exceptions=False) as client,
    ):
        yield client


@pytest.fixture
def owner(mail_client: TestClient, smtp: MailCatcher) -> Api:
    smtp.received.clear()
    smtp.refuse = smtp.refused = 0
    issued = Db(mail_client).run(lambda session: issue_key(session, f"owner-{uuid4().hex[:8]}@example.com"))
    return Api(mail_client, issued.key)


def desk(api: Api, **office_hours: object) -> str:
    """A public chatbot whose only enabled agent hands off to a person, emailing two operators."""
    bot = open_bot(api, name="Acme help")
    disable_default(api, bot)
    agent(api, bot, "human-escalation", "Human hand-off", PERSON)
    emails = {"emails": ["ops@example.com", "lead@example.com"]}
    assert api.ok(api.post(f"/chatbot/{bot}/notifications", emails))["emails"] == emails["emails"]
    if office_hours:
        api.ok(api.post(f"/chatbot/{bot}/office-hours", office_hours))
    return bot


def mail_jobs(client: TestClient, bot: str) -> int:
    statement = select(Job.uuid).where(Job.kind == JobKind.OPERATOR_MAIL, Job.chatbot_uuid == bot)
    return len(Db(client).run(lambda s: s.scalars(statement)).all())


def test_a_visitor_asking_for_a_person_is_emailed_to_the_operators_within_5_seconds(
    owner: Api, mail_client: TestClient, smtp: MailCatcher
) -> None:
    bot = desk(owner)
    chat = widget_session(mail_client, bot)
    asked = time.monotonic()
    assert widget_ask(mail_client, chat, ASKING).status_code == 200
    (mail,) = smtp.wait_for_mail()
    assert mail.arrived - asked < 5.0, f"the email came {mail.arrived - asked:.1f} s after the hand-off"
    assert sorted(mail.recipients) == ["lead@example.com", "ops@example.com"]
    assert mail.message["Subject"] == "A visitor is waiting: Acme help"
    assert ASKING in mail.text
    assert f"{PUBLIC_URL}/dashboard#/bot/{bot}/inbox/{chat}" in mail.text
    assert widget_ask(mail_client, chat, "hello? anyone?").status_code == 200  # still waiting: no second email
    assert mail_jobs(mail_client, bot) == 1


def test_a_mail_server_that_says_try_later_gets_the_email_again(
    owner: Api, mail_client: TestClient, smtp: MailCatcher
) -> None:
    smtp.refuse = 1
    bot = desk(owner)
    assert widget_ask(mail_client, widget_session(mail_client, bot), ASKING).status_code == 200
    (mail,) = smtp.wait_for_mail()
    assert smtp.refused == 1 and ASKING in mail.text


def test_without_addresses_nor_people_nothing_is_queued(owner: Api, mail_client: TestClient) -> None:
    bot = desk(owner)
    owner.ok(owner.post(f"/chatbot/{bot}/notifications", {"emails": []}))
    assert widget_ask(mail_client, widget_session(mail_client, bot), ASKING).status_code == 200
    assert owner.ok(owner.get(f"/chatbot/{bot}/inbox"))["sessions"]  # handed off all the same
    assert mail_jobs(mail_client, bot) == 0


def test_without_addresses_the_people_who_are_there_are_emailed(mail_client: TestClient, smtp: MailCatcher) -> None:
    smtp.received.clear()
    account = f"team-{uuid4().hex[:8]}@example.com"
    db = Db(mail_client)
    team = Api(mail_client, db.run(lambda session: issue_key(session, account)).key)
    bot = desk(team)
    team.ok(team.post(f"/chatbot/{bot}/notifications", {"emails": []}))
    add_person(db, account, f"nina-{account}", Role.OPERATOR)
    add_person(db, account, f"vic-{account}", Role.VIEWER)  # reads only: takes no conversation
    away = person(mail_client, db, account, f"olaf-{account}", Role.OWNER)
    assert away.ok(away.post("/auth/availability", {"away": True}))["user"]["away"] is True
    assert widget_ask(mail_client, widget_session(mail_client, bot), ASKING).status_code == 200
    (mail,) = smtp.wait_for_mail()
    assert mail.recipients == [f"nina-{account}"]  # the operator who is there; not the away owner, not the viewer
    assert ASKING in mail.text


def test_a_message_left_after_hours_is_emailed_with_the_visitors_address(
    owner: Api, mail_client: TestClient, smtp: MailCatcher
) -> None:
    bot = desk(owner, enabled=True, week={})  # no open hour in the week: always after hours
    chat = widget_session(mail_client, bot)
    assert widget_ask(mail_client, chat, ASKING).status_code == 200
    body = {"email": "ann@example.org", "message": "Please call me back about parcel 4471."}
    assert mail_client.post(f"/api/v1/widget/session/{chat}/contact", json=body).status_code == 201
    (mail,) = smtp.wait_for_mail()  # and no "waiting" email: nobody was promised
    assert mail.message["Subject"] == "Message left after hours: Acme help"
    assert mail.message["Reply-To"] == "ann@example.org"
    assert "Please call me back about parcel 4471." in mail.text and "ann@example.org" in mail.text
    assert f"{PUBLIC_URL}/dashboard#/bot/{bot}/inbox/{chat}" in mail.text
    assert mail_jobs(mail_client, bot) == 1


def test_the_notification_settings_say_whether_mail_is_sent(owner: Api, alice: Api) -> None:
    bot = desk(owner)
    sent = owner.ok(owner.get(f"/chatbot/{bot}/notifications"))
    assert sent["mail_configured"] is True and "127.0.0.1" in sent["mail_status"]
    unset = alice.ok(alice.get(f"/chatbot/{alice.chatbot()['uuid']}/notifications"))  # the suite's app: no server
    assert unset == {
        "chatbot_uuid": unset["chatbot_uuid"],
        "emails": [],
        "mail_configured": False,
        "mail_status": "No mail server is set (BOTYARD_SMTP_HOST): nothing is emailed.",
    }


def test_the_password_signs_in_and_is_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    for name in ("botyard", "aiosmtplib"):  # the test server's own log shows what it was sent: not ours
        caplog.set_level(logging.DEBUG, logger=name)
    mail = Mail(("ops@example.com",), "Hello", "A test.")
    with smtp_server(credentials=("botyard", "pa55-w0rd-secret")) as server:
        right = Mailer(Settings(**server.settings(), smtp_username="botyard", smtp_password="pa55-w0rd-secret"))
        wrong = Mailer(Settings(**server.settings(), smtp_username="botyard", smtp_password="not-it-secret"))
        asyncio.run(right.send(mail))
        (received,) = server.wait_for_mail()
        assert received.recipients == ["ops@example.com"]
        with pytest.raises(MailRefused) as refused:
            asyncio.run(wrong.send(mail))
    assert "sign-in" in str(refused.value) and "not-it-secret" not in str(refused.value)
    assert "pa55-w0rd" not in caplog.text and "not-it" not in caplog.text
    assert "pa55-w0rd" not in repr(right.settings)
