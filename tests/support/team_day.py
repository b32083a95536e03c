"""A support team's day made to measure (issue 51, item 4), for the team's figures on the API and in Chromium: eleven
conversations an hour apart on the web and two channels, six handed to two people at known minutes, written as the
answer pipeline, live chat and the inbox leave their rows (`conversation_rows`; the caller adds the session first).

What the day makes, from its first hour (the times from each hand-off):
- 2 resolved by the bot, 1 unresolved, 6 handed to a person, 2 without a question: 11 conversations;
- first responses 240, 60, 120, 600 (a request kept only in the meta), 90 s and one still waiting: median 120,
  90th percentile 600; resolutions 1740, 600, 1200, 3600 s: median 1200, 90th percentile 3600;
- Ada 3 (all resolved; medians 90 s and 1740 s), Grace 2 (1 resolved; 120 s and 1200 s), nobody 1;
- web 4 (1 of each bucket), Helpdesk 4 (1 resolved by the bot, 3 handed), Shop 3 (2 handed, 1 without a question).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from botyard.db.base import Base, iso, new_uuid
from botyard.models import ChatbotEvent, ChatSession, Message

HANDED = "handed_off"


@dataclass(frozen=True)
class Conversation:
    """One conversation of the day: where, how it went and, when handed to a person, the minutes after its start of
    each step (None: it did not happen)."""

    place: str
    outcome: str | None = None
    asked: float | None = None
    """A person asked for (the `human_requested` event, and `meta.human_requested_at`)."""
    taken: float | None = None
    """An operator took it over (`live_chat_started`, and the transcript's start announcement)."""
    replies: tuple[float, ...] = ()
    resolved: float | None = None
    person: str | None = None
    asked_in_meta_only: bool = False
    """The request is only in `meta.human_requested_at` (no event), as an older row may have it."""


DAY_OF = (
    Conversation("web", "resolved"),
    Conversation("web", "unresolved"),
    Conversation("web"),  # nothing asked
    Conversation("web", HANDED, asked=1, taken=3, replies=(5,), resolved=30, person="ada"),  # 240 s, 1740 s
    Conversation("helpdesk", HANDED, asked=1, taken=1.5, replies=(2, 8), resolved=11, person="ada"),  # 60 s, 600 s
    Conversation("helpdesk", HANDED, taken=2, replies=(4,), person="grace"),  # taken unasked: 120 s, open
    Conversation("helpdesk", HANDED, asked=1),  # waiting for a person: assigned to nobody, not timed
    Conversation("helpdesk", "resolved"),
    Conversation("shop", HANDED, asked=1, replies=(11,), resolved=21, person="grace", asked_in_meta_only=True),
    Conversation("shop", HANDED, asked=1, taken=1, replies=(2.5,), resolved=61, person="ada"),  # 90 s, 3600 s
    Conversation("shop"),
)


def conversation_rows(
    bot: str, at: datetime, talk: Conversation, channel: str | None, people: dict[str, str]
) -> tuple[ChatSession, list[Base]]:
    """The conversation's session, and the rows that follow it (events, transcript, a question and its answer)."""

    def minutes(value: float) -> datetime:
        return at + timedelta(minutes=value)

    meta: dict[str, Any] = {"human_requested": talk.asked is not None}
    if talk.asked is not None:
        meta["human_requested_at"] = iso(minutes(talk.asked))
    session = ChatSession(uuid=new_uuid(), chatbot_uuid=bot, meta=meta, created_at=at, outcome=talk.outcome)
    session.channel_uuid, session.channel_user = channel, "customer" if channel else ""
    session.assignee_uuid = people[talk.person] if talk.person else None
    session.resolved_at = minutes(talk.resolved) if talk.resolved is not None else None
    events = [("human_requested", talk.asked)] if talk.asked is not None and not talk.asked_in_meta_only else []
    events += [("live_chat_started", talk.taken)] if talk.taken is not None else []
    rows: list[Base] = [
        ChatbotEvent(chatbot_uuid=bot, session_uuid=session.uuid, kind=kind, created_at=minutes(after))
        for kind, after in events
    ]
    transcript = [("live_chat_start", talk.taken)] if talk.taken is not None else []
    transcript += [("operator", after) for after in talk.replies]
    for kind, after in transcript:
        meta_row = {"kind": kind, "operator_name": talk.person or "someone"}
        rows.append(
            Message(session_uuid=session.uuid, query="", response="Hello.", meta=meta_row, created_at=minutes(after))
        )
    if talk.outcome not in (None, HANDED):
        rows.append(Message(session_uuid=session.uuid, query="A question?", response="An answer.", created_at=at))
    return session, rows


def day_rows(
    bot: str, day: datetime, channels: dict[str, str | None], people: dict[str, str]
) -> list[tuple[ChatSession, list[Base]]]:
    """`DAY_OF`, a conversation an hour from `day`."""
    return [
        conversation_rows(bot, day + timedelta(hours=index), talk, channels[talk.place], people)
        for index, talk in enumerate(DAY_OF)
    ]
