"""The analytics of one chatbot over one period: the repository's counts per day, put together with the period's
days (zeros where nothing happened), the totals, latency percentiles, the top questions and sources, and each
channel's share; optionally narrowed to one channel (`web`, or one of the chatbot's channels)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.analytics.period import Period
from botyard.analytics.repository import TOP, WEB, AnalyticsRepository, Scope
from botyard.analytics.schemas import Analytics, ChannelFigures, CitedSource, Day, Figures, TopQuestion
from botyard.chat.history.service import preview
from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.errors import not_found, validation_error
from botyard.models import ConversationOutcome
from botyard.unanswered.grouping import normalised

_UUID = re.compile(r"[0-9a-f]{32}")


@dataclass
class _Tally:
    """What one day (or the period) counted."""

    conversations: int = 0
    messages: int = 0
    answered: int = 0
    refused: int = 0
    handed_off: set[str] = field(default_factory=set)
    ratings: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    first_byte: dict[str, int] = field(default_factory=dict)
    """The first-byte times' percentiles (`p50`, `p95`), when any answer was timed."""

    def figures(self) -> Figures:
        up, down = self.ratings["up"], self.ratings["down"]
        decided = sum(self.outcomes.values())
        resolved, unresolved = (
            self.outcomes[ConversationOutcome.RESOLVED],
            self.outcomes[ConversationOutcome.UNRESOLVED],
        )
        return {
            "conversations": self.conversations,
            "messages": self.messages,
            "answered": self.answered,
            "refused": self.refused,
            "handed_off": len(self.handed_off),
            "resolved": resolved,
            "unresolved": unresolved,
            "handed_to_person": self.outcomes[ConversationOutcome.HANDED_OFF],
            "no_outcome": self.conversations - decided,
            "bot_conversations": resolved + unresolved,
            "bot_resolution_rate": ratio(resolved, resolved + unresolved),
            "resolution_rate": ratio(resolved, decided),
            "feedback_up": up,
            "feedback_down": down,
            "feedback_ratio": ratio(up, up + down),
            "first_byte_p50_ms": self.first_byte.get("p50"),
            "first_byte_p95_ms": self.first_byte.get("p95"),
        }


def ratio(part: int, whole: int) -> float | None:
    """`part / whole` to four places; None when `whole` is 0 (nothing to divide by, not 0%)."""
    return round(part / whole, 4) if whole else None


def top_questions(rows: Iterable[tuple[str, int, datetime]]) -> list[TopQuestion]:
    """The most asked questions (equal normalised wordings are one), each shown in its most asked wording; of
    questions asked as often, the most recently asked first."""
    counts: Counter[str] = Counter()
    latest: dict[str, datetime] = {}
    wordings: dict[str, Counter[str]] = {}
    for text, count, last in rows:
        key = normalised(text)
        if not key:
            continue
        counts[key] += count
        latest[key] = max(last, latest.get(key, last))
        wordings.setdefault(key, Counter())[preview(text)] += count
    ranked = sorted(counts, key=lambda key: (-counts[key], -latest[key].timestamp(), key))[:TOP]
    return [{"question": wordings[key].most_common(1)[0][0], "count": counts[key]} for key in ranked]


async def analytics(
    db: AsyncSession, account_uuid: str, chatbot_uuid: str, period: Period, channel: Scope = None
) -> Analytics:
    """The chatbot's figures over the period, per owner's day and in total, of every conversation or of one
    `channel`'s (`web` or a channel's uuid). 404: not the account's chatbot, or not one of its channels; 422: a
    `channel` that is neither."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    repository = AnalyticsRepository(db, chatbot.uuid, period, await checked_scope(db, chatbot.uuid, period, channel))
    days = {day: _Tally() for day in period.days}
    total = _Tally()
    for day, count in (await repository.conversations()).items():
        for tally in _both(days, day, total):
            tally.conversations += count
    for day, (count, answered, refused) in (await repository.messages()).items():
        for tally in _both(days, day, total):
            tally.messages += count
            tally.answered += answered
            tally.refused += refused
    for day, session_uuid in await repository.handed_off():
        for tally in _both(days, day, total):
            tally.handed_off.add(session_uuid)
    for (day, outcome), count in (await repository.outcomes()).items():
        for tally in _both(days, day, total):
            tally.outcomes[outcome] += count
    for (day, rating), count in (await repository.feedback()).items():
        for tally in _both(days, day, total):
            tally.ratings[rating] += count
    by_day, total.first_byte = await repository.first_bytes()
    for day, percentiles in by_day.items():
        if day in days:
            days[day].first_byte = percentiles
    sources: list[CitedSource] = [
        {"data_source_uuid": uuid, "title": title, "count": count}
        for uuid, title, count in await repository.cited_sources()
    ]
    return {
        "chatbot_uuid": chatbot.uuid,
        "start": iso(period.start),
        "end": iso(period.end),
        "timezone": period.zone,
        "channel": channel,
        "totals": total.figures(),
        "days": [_day(day, tally) for day, tally in days.items()],
        "top_questions": top_questions(await repository.questions()),
        "top_sources": sources,
        "by_channel": await by_channel(repository),
    }


async def checked_scope(db: AsyncSession, chatbot_uuid: str, period: Period, channel: str | None) -> Scope:
    """The channel a read is narrowed to, checked: `web`, or the uuid of one of the chatbot's channels."""
    if channel is None or channel == WEB:
        return channel
    if not _UUID.fullmatch(channel):
        raise validation_error(f"channel is `{WEB}` or the uuid of one of this chatbot's channels, not {channel!r}")
    if not await AnalyticsRepository(db, chatbot_uuid, period).channel_of_chatbot(channel):
        raise not_found("Channel")  # another chatbot's or account's channel answers as a missing one
    return channel


async def by_channel(repository: AnalyticsRepository) -> list[ChannelFigures]:
    """`web`, then each of the chatbot's channels (only the one the read is narrowed to, when it is)."""
    outcomes = await repository.outcomes_by_channel()
    questions = await repository.questions_by_channel()
    return [
        _channel(uuid, kind, name, outcomes.get(uuid, {}), questions.get(uuid, 0))
        for uuid, kind, name in await places(repository)
    ]


async def places(repository: AnalyticsRepository) -> list[tuple[str | None, str, str]]:
    """(channel uuid, type, name) of the places a read counts, `web` (None) first, then each of the chatbot's
    channels, oldest first; only the one the read is narrowed to, when it is."""
    found: list[tuple[str | None, str, str]] = [] if repository.scope not in (None, WEB) else [(None, WEB, "")]
    if repository.scope != WEB:
        found += await repository.channels()
    return found


def _channel(uuid: str | None, kind: str, name: str, outcomes: dict[str, int], questions: int) -> ChannelFigures:
    resolved, unresolved = (
        outcomes.get(ConversationOutcome.RESOLVED, 0),
        outcomes.get(ConversationOutcome.UNRESOLVED, 0),
    )
    decided = sum(outcomes.get(outcome, 0) for outcome in ConversationOutcome)
    conversations = outcomes.get("conversations", 0)
    return {
        "channel": uuid or WEB,
        "type": kind,
        "name": name,
        "conversations": conversations,
        "messages": questions,
        "resolved": resolved,
        "unsure": outcomes.get("unsure", 0),
        "no_answer": outcomes.get("no_answer", 0),
        "unresolved": unresolved,
        "handed_off": outcomes.get(ConversationOutcome.HANDED_OFF, 0),
        "no_outcome": conversations - decided,
        "bot_resolution_rate": ratio(resolved, resolved + unresolved),
        "resolution_rate": ratio(resolved, decided),
    }


def _both(days: dict[date, _Tally], day: date, total: _Tally) -> list[_Tally]:
    """The day's tally and the period's (a day outside the period, which the database cannot return, is skipped)."""
    return [days[day], total] if day in days else []


def _day(day: date, tally: _Tally) -> Day:
    return {"date": day.isoformat(), **tally.figures()}
