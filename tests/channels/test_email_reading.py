"""The email channel's pure parts, as tables: which mail is never answered (and why), what a mail asks, a reply's
subject, and a reply's mail (its headers, its text and HTML, its choices as numbered lines)."""

from __future__ import annotations

import pytest

from botyard.channels.email import loops, outgoing, reading, threads
from botyard.channels.email.outgoing import Thread
from botyard.channels.render import Reply
from tests.support.mail_channel import mail

ADDRESS = "shop@example.test"


@pytest.mark.parametrize(
    ("headers", "sender", "reason"),
    [
        ({}, "Ann <ann@customer.test>", None),
        ({"Auto-Submitted": "no"}, "ann@customer.test", None),
        ({"Auto-Submitted": "auto-replied"}, "ann@customer.test", loops.Unanswered.AUTO_SUBMITTED),
        ({"Auto-Submitted": "auto-generated; owner-email=x@y"}, "ann@customer.test", loops.Unanswered.AUTO_SUBMITTED),
        ({"X-Auto-Response-Suppress": "All"}, "ann@customer.test", loops.Unanswered.SUPPRESSED),
        ({"Precedence": "bulk"}, "ann@customer.test", loops.Unanswered.BULK),
        ({"Precedence": "Junk"}, "ann@customer.test", loops.Unanswered.BULK),
        ({"List-Unsubscribe": "<mailto:u@list.test>"}, "ann@customer.test", loops.Unanswered.LIST),
        ({}, "MAILER-DAEMON@mx.customer.test", loops.Unanswered.ROBOT),
        ({}, "postmaster@customer.test", loops.Unanswered.ROBOT),
        ({}, "no-reply@customer.test", loops.Unanswered.ROBOT),
        ({}, "noreply+abc@customer.test", loops.Unanswered.ROBOT),
        ({}, "Shop <SHOP@example.test>", loops.Unanswered.OURS),
        ({}, "replyguy@customer.test", None),
    ],
)
def test_which_mail_is_never_answered(headers: dict[str, str], sender: str, reason: loops.Unanswered | None) -> None:
    raw = bytes(mail("When is the shop open?", sender=sender, headers=headers))
    assert reading.read(raw, ADDRESS).unanswered == reason


def test_our_own_message_id_is_known_as_ours_whoever_it_seems_from() -> None:
    ours = outgoing.message_id("0" * 32, ADDRESS)
    raw = bytes(mail("hello", sender="ann@customer.test", message_id=ours))
    assert reading.read(raw, ADDRESS).unanswered == loops.Unanswered.OURS


def test_a_mail_without_message_id_is_known_by_its_bytes_and_a_long_one_by_its_hash() -> None:
    raw = bytes(mail("hello", message_id=""))
    read = reading.read(raw, ADDRESS)
    assert read.external_id == read.message_id == f"<{reading.digest(raw)}>"
    long_id = "<" + "x" * 200 + "@customer.test>"
    assert reading.read(bytes(mail("hello", message_id=long_id)), ADDRESS).external_id == reading.digest(long_id)


@pytest.mark.parametrize(
    ("subject", "reply"),
    [
        ("Opening hours", "Re: Opening hours [#t0123456789abcdef]"),
        ("Re: RE: Opening hours", "Re: Opening hours [#t0123456789abcdef]"),
        ("Re: Opening hours [#t0123456789abcdef]", "Re: Opening hours [#t0123456789abcdef]"),
        ("", "Re: (no subject) [#t0123456789abcdef]"),
    ],
)
def test_a_replys_subject(subject: str, reply: str) -> None:
    assert threads.subject_of_reply(subject, "t0123456789abcdef") == reply


def test_a_thread_token_is_read_from_the_subject_and_from_a_plus_address() -> None:
    raw = bytes(mail("hi", subject="Re: x [#t0123456789abcdef]", to="shop+tfedcba9876543210@example.test"))
    assert threads.tokens(reading.read(raw, ADDRESS)) == ["tfedcba9876543210", "t0123456789abcdef"]


def test_a_replys_mail_carries_its_thread_its_text_its_html_and_its_choices_numbered() -> None:
    answer = Reply("We are open **nine to five** [1].", {"[1]": "https://shop.example/hours"})
    thread = Thread("ann@customer.test", "<q2@customer.test>", ("<q1@customer.test>",), "Re: Hours [#t1]")
    message = outgoing.composed("a" * 32, ADDRESS, "Shop", thread, answer, ("Opening hours", "Delivery"))
    assert message["From"] == "Shop <shop@example.test>" and message["To"] == "ann@customer.test"
    assert message["Message-ID"] == f"<botyard.{'a' * 32}@example.test>"
    assert message["References"] == "<q1@customer.test> <q2@customer.test>"
    assert message["In-Reply-To"] == "<q2@customer.test>" and message["Auto-Submitted"] == "auto-replied"
    plain, html = message.get_body(("plain",)), message.get_body(("html",))
    assert plain is not None and html is not None
    text = plain.get_content()
    assert "1. Opening hours\n2. Delivery" in text and "[1] https://shop.example/hours" in text
    assert '<a href="https://shop.example/hours">[1]</a>' in html.get_content()
    assert "<b>nine to five</b>" in html.get_content()


def test_reply_to_is_kept_only_when_it_is_another_address() -> None:
    other = reading.read(bytes(mail("hi", headers={"Reply-To": "Orders <orders@customer.test>"})), ADDRESS)
    same = reading.read(bytes(mail("hi", headers={"Reply-To": "ann@customer.test"})), ADDRESS)
    assert other.details()["reply_to"] == "orders@customer.test" and "reply_to" not in same.details()
