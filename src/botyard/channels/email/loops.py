"""Mail that is never answered, so that two robots never answer each other forever (RFC 3834): the pure decision,
from the headers alone, in this order:

1. Our own mail (its `Message-ID` is one we make, or it is from the channel's own address).
2. `Auto-Submitted` other than `no` (an out-of-office reply, another robot's answer).
3. `X-Auto-Response-Suppress` (Exchange's mark on what it sent automatically).
4. `Precedence: bulk`, `list` or `junk`.
5. A mailing list's (`List-Id`, `List-Unsubscribe`).
6. A delivery report (`multipart/report`: a bounce, a read receipt).
7. From a robot's address: `MAILER-DAEMON`, `postmaster`, `no-reply` and its spellings, or no sender at all.
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from enum import StrEnum

OUR_ID_PREFIX = "botyard."
"""The start of the local part of every `Message-ID` our replies carry (`<botyard.{reply}@{domain}>`)."""
_ROBOT = re.compile(r"^(mailer-daemon|postmaster|no[-_.]?reply|do[-_.]?not[-_.]?reply|bounces?)([+\-].*)?$")


class Unanswered(StrEnum):
    """Why a mail is stored without an answer."""

    OURS = "ours"
    AUTO_SUBMITTED = "auto_submitted"
    SUPPRESSED = "auto_response_suppressed"
    BULK = "bulk"
    LIST = "mailing_list"
    REPORT = "delivery_report"
    ROBOT = "robot_sender"


def unanswered(message: EmailMessage, sender: str, message_id: str, address: str) -> Unanswered | None:
    """Why `message` (from `sender`, its `message_id`) must not be answered on the channel of `address`; None when
    it may be."""
    domain = address.rpartition("@")[2].lower()
    if sender == address.lower() or (
        message_id.lower().startswith(f"<{OUR_ID_PREFIX}") and f"@{domain}>" in message_id.lower()
    ):
        return Unanswered.OURS
    if str(message.get("Auto-Submitted", "no")).strip().lower().split(";")[0] != "no":
        return Unanswered.AUTO_SUBMITTED
    if message.get("X-Auto-Response-Suppress") is not None:
        return Unanswered.SUPPRESSED
    if str(message.get("Precedence", "")).strip().lower() in ("bulk", "list", "junk"):
        return Unanswered.BULK
    if message.get("List-Id") is not None or message.get("List-Unsubscribe") is not None:
        return Unanswered.LIST
    if message.get_content_type() == "multipart/report":
        return Unanswered.REPORT
    if not sender or _ROBOT.match(sender.partition("@")[0]):
        return Unanswered.ROBOT
    return None
