"""What the team's inbox lists: the views (tabs), the status, the channel and the words to search for, as plain
values the listing's query is built from (`live.inbox.repository`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from botyard.models import ChatSession, ConversationStatus


class InboxView(StrEnum):
    """A tab of the inbox: whose conversations."""

    MINE = "mine"
    """Assigned to the caller (an API key is nobody: none)."""
    UNASSIGNED = "unassigned"
    """Handed to people and assigned to nobody."""
    WAITING = "waiting"
    """Asked for a person, and nobody has it (no live chat, no assignee)."""
    ALL = "all"
    """Every conversation of the chatbot, the bot's own too."""
    TEAM = "team"
    """Every conversation handed to people (asked, live, assigned, or given a status): the default."""


class StatusFilter(StrEnum):
    """`status=`: one status (as of now: a snooze that has passed is open), or `all`."""

    OPEN = ConversationStatus.OPEN.value
    PENDING = ConversationStatus.PENDING.value
    SNOOZED = ConversationStatus.SNOOZED.value
    RESOLVED = ConversationStatus.RESOLVED.value
    ALL = "all"


WIDGET = "widget"
"""`channel=` for the conversations of the widget and the API (no channel)."""


@dataclass(frozen=True)
class InboxFilter:
    """Which of a chatbot's conversations the caller lists, as of `now`."""

    now: datetime
    user_uuid: str | None
    """The calling person (their unread counts, `mine`); None for an API key."""
    view: InboxView = InboxView.TEAM
    status: StatusFilter = StatusFilter.OPEN
    channel: str | None = None
    """A channel type (`telegram`, ...) or `widget`; None: every channel."""
    query: str = ""
    """Words to find in the conversation's messages or its contact's name or email (case-insensitive)."""


def current_status(status: str, snoozed_until: datetime | None, now: datetime) -> ConversationStatus:
    """The status as of `now`: a snooze whose time has passed reads as open (no job wakes it)."""
    if status == ConversationStatus.SNOOZED and snoozed_until is not None and snoozed_until <= now:
        return ConversationStatus.OPEN
    return ConversationStatus(status)


def waits_for_a_person(session: ChatSession) -> bool:
    """Asked for a person and nobody has it: no live chat, no assignee (`repository.waiting_for_a_person`)."""
    return session.human_requested and not session.live_chat and session.assignee_uuid is None
