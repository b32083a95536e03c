"""The email channel in Chromium: the owner adds it on the Channels page (the mailbox signed into as it is made);
a customer's mail arrives in the channel's mailbox (a real IMAP server on
loopback, read with IDLE by `botyard serve`'s listener) and asks for a person; the bot's answer goes out in the
thread; the operator takes the conversation over in the Inbox and replies, and the reply arrives as a mail in the
customer's thread (its `In-Reply-To`, its `Re:` subject), signed with the operator's name.
Screenshot: `tests/artifacts/channels-email-handoff.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from botyard.config import Settings
from tests.support.agents import PERSON
from tests.support.browser import Service
from tests.support.dashboard import Dashboard, add_member, make_chatbot, sign_in_member
from tests.support.imap_server import ImapServer, imap_server
from tests.support.mail_channel import CUSTOMER, mail
from tests.support.servers import Server
from tests.support.smtp_server import MailCatcher, Received, smtp_server
from tests.support.waiting import wait_for

ASKING = "I want to talk to a human about my parcel"


@pytest.fixture(scope="module")
def mailbox() -> Iterator[ImapServer]:
    with imap_server() as running:
        yield running


@pytest.fixture(scope="module")
def outbox() -> Iterator[MailCatcher]:
    with smtp_server() as running:
        yield running


@pytest.fixture(scope="module")
def mail_service(tmp_path_factory: pytest.TempPathFactory, outbox: MailCatcher) -> Iterator[Service]:
    """`botyard serve` whose mail goes to the loopback SMTP server (its jobs and listeners run in it)."""
    process = Server(Settings(data_dir=tmp_path_factory.mktemp("email-data")))
    process.env |= {
        "BOTYARD_SMTP_HOST": outbox.host,
        "BOTYARD_SMTP_PORT": str(outbox.port),
        "BOTYARD_SMTP_SECURITY": "none",
    }
    key = process.key()
    process.start()
    try:
        yield Service(process, key)
    finally:
        process.stop()


@pytest.fixture
def owner(browser: Browser, mail_service: Service) -> Iterator[Dashboard]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        board = Dashboard(context, mail_service)
        board.sign_in()
        yield board
        assert board.problems == []
    finally:
        context.close()


def add_on_the_channels_page(owner: Dashboard, bot: str, mailbox: ImapServer) -> None:
    page = owner.open(f"/bot/{bot}/channels", "Channels: Parcel shop")
    form = page.get_by_role("form", name="Add a channel")
    form.get_by_label("Type").select_option("email")
    form.get_by_label("Name", exact=True).fill("Parcel mail")
    given = mailbox.credentials()
    form.get_by_label("Address").fill(str(given["address"]))
    form.get_by_label("IMAP server").fill(str(given["imap_host"]))
    form.get_by_label("IMAP port").fill(str(given["imap_port"]))
    form.get_by_label("IMAP security").select_option("none")
    form.get_by_label("IMAP username").fill(str(given["imap_username"]))
    form.get_by_label("IMAP password").fill(str(given["imap_password"]))
    form.get_by_label("Burst seconds").fill("0")
    form.get_by_role("button", name="Add channel").click()
    expect(form.get_by_text("Channel added: Parcel mail.")).to_be_visible()
    card = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name="Parcel mail"))
    expect(card).to_be_visible()
    expect(card.get_by_label("Inbound URL", exact=True)).to_have_count(0)  # a mailbox is read: nothing posts to it


@pytest.fixture
def operator(browser: Browser, mail_service: Service) -> Iterator[Dashboard]:
    email = add_member(mail_service, "operator")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        board = sign_in_member(context, mail_service, email)
        yield board
        assert board.problems == []
    finally:
        context.close()


def to_customer(outbox: MailCatcher, count: int) -> list[Received]:
    """The mails sent to the customer, once there are `count` (the operators' notices go to the same server)."""

    def sent() -> list[Received]:
        return [one for one in outbox.messages() if one.recipients == [CUSTOMER]]

    return wait_for(lambda: len(sent()) >= count and sent(), 60, f"{count} mails to the customer")


def test_an_email_customer_is_handed_to_an_operator_whose_reply_arrives_in_the_thread(
    mail_service: Service,
    owner: Dashboard,
    operator: Dashboard,
    mailbox: ImapServer,
    outbox: MailCatcher,
    artifacts: Path,
) -> None:
    bot = make_chatbot(mail_service, "Parcel shop")
    hand_off = {"name": "Hand-off", "type": "human-escalation", "description": PERSON}
    made = mail_service.api("POST", f"/chatbot/{bot}/agent/create", hand_off)
    mail_service.api("POST", f"/agent/{made['uuid']}/update", {"enabled": True})
    add_on_the_channels_page(owner, bot, mailbox)
    [channel] = mail_service.api("GET", f"/chatbot/{bot}/channels")
    assert channel["type"] == "email" and channel["settings"]["burst_seconds"] == 0
    page: Page = operator.open(f"/bot/{bot}/inbox", "Inbox: Parcel shop")
    expect(page.get_by_text("Live updates on.")).to_be_visible()

    mailbox.deliver(bytes(mail(ASKING, subject="My parcel", message_id="<parcel1@customer.test>")))
    [asked] = to_customer(outbox, 1)
    assert "let our team know" in asked.text and asked.message["In-Reply-To"] == "<parcel1@customer.test>"
    [session] = mail_service.api("GET", f"/chatbot/{bot}/conversations", params={"channel": channel["uuid"]})
    entry = page.locator(f"button[data-session='{session['uuid']}']")
    expect(entry).to_contain_text(ASKING)
    entry.click()
    transcript = page.get_by_role("log", name="Transcript")
    expect(transcript).to_contain_text(ASKING)

    page.get_by_role("button", name="Take over").click()
    expect(page.get_by_text("You are chatting live")).to_be_visible()
    assert "You are now chatting with a person." in to_customer(outbox, 2)[1].text
    page.get_by_label("Reply").fill("Your parcel leaves today.")
    page.get_by_role("button", name="Send reply").click()
    reply = to_customer(outbox, 3)[2]
    assert "Operator:" in reply.text and "Your parcel leaves today." in reply.text  # signed with the operator's name
    assert reply.message["In-Reply-To"] == "<parcel1@customer.test>"
    assert reply.message["Subject"].startswith("Re: My parcel [#")
    page.screenshot(path=artifacts / "channels-email-handoff.png", full_page=True)
