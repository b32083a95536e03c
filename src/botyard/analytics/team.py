"""The team's figures of one chatbot over one period: of the conversations started in it, those handed to a person
(outcome `handed_off`), how long people took to answer and to resolve them, who was assigned them, and each
channel's conversations split by who dealt with them.

Each conversation is timed from its hand-off: the first time it asked for a person or an operator took it over,
whichever came first (the events `human_requested` and `live_chat_started`; `meta.human_requested_at` when a
conversation has neither), to its first operator reply (first response) and to `chat_session.resolved_at`
(resolution). A conversation without the end of a time is not timed for it, and one whose end comes before its
start (a row written out of order) is not either: a negative wait would pull the median down.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.analytics.period import Period
from botyard.analytics.repository import WEB, AnalyticsRepository, Handed, Scope
from botyard.analytics.schemas import Durations, PersonFigures, Team, TeamChannelFigures
from botyard.analytics.service import checked_scope, places
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.models import ConversationOutcome


def nearest_rank(values: Sequence[int], share: float) -> int | None:
    """The value at the nearest rank ceil(share * n) of the sorted values (as the first-byte percentiles are
    taken); None of none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-round(share * 100) * len(ordered) // 100))
    return ordered[rank - 1]


def durations(values: Sequence[int]) -> Durations:
    return {"count": len(values), "median_seconds": nearest_rank(values, 0.5), "p90_seconds": nearest_rank(values, 0.9)}


def _moment(text: str | None) -> datetime | None:
    """An ISO 8601 time of the session's meta; None when it is missing or unreadable (or has no zone)."""
    try:
        moment = datetime.fromisoformat(text) if text else None
    except ValueError:
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


def _seconds(start: datetime | None, end: datetime | None) -> int | None:
    if start is None or end is None or end < start:
        return None
    return round((end - start).total_seconds())


class Timed:
    """A handed conversation's two times, in seconds (None: not reached, or not measurable)."""

    def __init__(self, row: Handed) -> None:
        # The events are exact and the earliest request of all; the meta holds the last one, to the second.
        start = row.handed_at if row.handed_at is not None else _moment(row.asked_at)
        self.row = row
        self.first_response = _seconds(start, row.first_reply_at)
        self.resolution = _seconds(start, row.resolved_at)
        self.answered = row.first_reply_at is not None
        self.resolved = row.resolved_at is not None


def _firsts(timed: Iterable[Timed]) -> list[int]:
    return [item.first_response for item in timed if item.first_response is not None]


def _resolutions(timed: Iterable[Timed]) -> list[int]:
    return [item.resolution for item in timed if item.resolution is not None]


def people(timed: Sequence[Timed]) -> list[PersonFigures]:
    """Each assignee's conversations, the busiest first (then by name)."""
    assigned: dict[str, list[Timed]] = defaultdict(list)
    names: dict[str, str] = {}
    for item in timed:
        if item.row.assignee_uuid is not None:
            assigned[item.row.assignee_uuid].append(item)
            names[item.row.assignee_uuid] = item.row.assignee_name or ""
    found: list[PersonFigures] = [
        {
            "user_uuid": uuid,
            "name": names[uuid],
            "conversations": len(theirs),
            "resolved": sum(item.resolved for item in theirs),
            "first_response_median_seconds": nearest_rank(_firsts(theirs), 0.5),
            "resolution_median_seconds": nearest_rank(_resolutions(theirs), 0.5),
        }
        for uuid, theirs in assigned.items()
    ]
    return sorted(found, key=lambda person: (-person["conversations"], person["name"], person["user_uuid"]))


def _channel(
    place: tuple[str | None, str, str], outcomes: dict[str, int], timed: Sequence[Timed]
) -> TeamChannelFigures:
    uuid, kind, name = place
    conversations = outcomes.get("conversations", 0)
    decided = sum(outcomes.get(outcome, 0) for outcome in ConversationOutcome)
    return {
        "channel": uuid or WEB,
        "type": kind,
        "name": name,
        "conversations": conversations,
        "resolved_by_bot": outcomes.get(ConversationOutcome.RESOLVED, 0),
        "unresolved_by_bot": outcomes.get(ConversationOutcome.UNRESOLVED, 0),
        "handed_to_person": outcomes.get(ConversationOutcome.HANDED_OFF, 0),
        "no_outcome": conversations - decided,
        "resolved_by_person": sum(item.resolved for item in timed),
        "first_response_median_seconds": nearest_rank(_firsts(timed), 0.5),
    }


async def team(db: AsyncSession, account_uuid: str, chatbot_uuid: str, period: Period, channel: Scope = None) -> Team:
    """The team's figures of the chatbot over the period, of every conversation or of one `channel`'s (`web` or a
    channel's uuid). 404: not the account's chatbot, or not one of its channels; 422: a `channel` that is neither."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    repository = AnalyticsRepository(db, chatbot.uuid, period, await checked_scope(db, chatbot.uuid, period, channel))
    timed = [Timed(row) for row in await repository.handed()]
    outcomes = await repository.outcomes_by_channel()
    on_channel: dict[str | None, list[Timed]] = defaultdict(list)
    for item in timed:
        on_channel[item.row.channel_uuid].append(item)
    return {
        "chatbot_uuid": chatbot.uuid,
        "start": iso(period.start),
        "end": iso(period.end),
        "timezone": period.zone,
        "channel": channel,
        "conversations": sum(counts.get("conversations", 0) for counts in outcomes.values()),
        "handed_to_person": len(timed),
        "answered_by_person": sum(item.answered for item in timed),
        "resolved_by_person": sum(item.resolved for item in timed),
        "unassigned": sum(item.row.assignee_uuid is None for item in timed),
        "first_response": durations(_firsts(timed)),
        "resolution": durations(_resolutions(timed)),
        "people": people(timed),
        "by_channel": [
            _channel(place, outcomes.get(place[0], {}), on_channel.get(place[0], []))
            for place in await places(repository)
        ],
    }
