"""bench/channels.py's `mail` phase: how long from a mail's arrival in the mailbox to the reply at the SMTP server,
with the email channel's listener waiting in IDLE (a real IMAP server on loopback, pymap, and aiosmtpd: the test
suite's, in this process). Goal: a mail answered within 5 s of its arrival."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.imap_server import ImapServer, imap_server  # noqa: E402 (after the repository is on the path)
from tests.support.mail_channel import mail  # noqa: E402
from tests.support.smtp_server import MailCatcher, smtp_server  # noqa: E402

GOAL_SECONDS = 5.0


@contextmanager
def mail_servers() -> Iterator[tuple[ImapServer, MailCatcher]]:
    with imap_server() as imap, smtp_server() as outbox:
        yield imap, outbox


def mail_env(outbox: MailCatcher) -> dict[str, str]:
    """The service's settings that send its mail to the loopback SMTP server."""
    return {"BOTYARD_SMTP_HOST": outbox.host, "BOTYARD_SMTP_PORT": str(outbox.port), "BOTYARD_SMTP_SECURITY": "none"}


def _answered(outbox: MailCatcher, sender: str, seconds: float) -> float | None:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if any(one.recipients == [sender] for one in outbox.messages()):
            return time.perf_counter()
        time.sleep(0.01)
    return None


def mail_phase(client: httpx.Client, bot: str, imap: ImapServer, outbox: MailCatcher, count: int, text: str) -> None:
    """`count` mails one after another, each from a new sender; prints the arrival-to-reply figures."""
    body = {"type": "email", "name": "bench mail", "credentials": imap.credentials(), "settings": {"burst_seconds": 0}}
    client.post(f"/api/v1/chatbot/{bot}/channel/create", json=body).raise_for_status()
    imap.deliver(bytes(mail(text, sender="warm@bench.test", message_id="<warm@bench.test>")))
    if _answered(outbox, "warm@bench.test", 60) is None:  # the listener takes the mailbox within its first look
        print("mail: the first mail was not answered within 60 s", flush=True)
        return
    seconds = []
    for number in range(count):
        sender = f"customer{number}@bench.test"
        started = time.perf_counter()
        imap.deliver(
            bytes(mail(text, sender=sender, message_id=f"<m{number}@bench.test>", subject=f"Question {number}"))
        )
        arrived = _answered(outbox, sender, 60)
        seconds.append(float("inf") if arrived is None else arrived - started)
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(f"mail, {count} mails one after another (IDLE, burst_seconds 0):")
    print(
        f"  arrival in the mailbox to the reply at the SMTP server: p50 {statistics.median(seconds):.2f} s, "
        f"p95 {p95:.2f} s, max {ordered[-1]:.2f} s   goal p95 < {GOAL_SECONDS:g} s: {p95 < GOAL_SECONDS}",
        flush=True,
    )
