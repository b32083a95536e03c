"""The period an analytics read covers, cut into the owner's days.

A day is a calendar day in the owner's time zone (an IANA name, read with `zoneinfo`), so an evening question in
New York counts on the day it was asked there. The zone's UTC offset over the period is a few constant pieces
(`Shift`; two or three around a daylight-saving change), so the database can turn each stored UTC time into its
local day with a plain `CASE` on both SQLite and PostgreSQL, and count per day itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from botyard.errors import validation_error

DEFAULT_DAYS = 30
"""Without a start: the last 30 of the owner's days, today included."""
MAX_DAYS = 366
"""The longest period one read covers."""
_STEP = timedelta(hours=1)
"""Offsets are sampled hourly; a change between two samples is then found to the second."""


@dataclass(frozen=True)
class Shift:
    """The zone's offset from UTC (`seconds`: local = UTC + seconds) for the stored times before `until`
    (None: to the period's end)."""

    seconds: int
    until: datetime | None


@dataclass(frozen=True)
class Period:
    """[start, end) in UTC, the owner's days it touches (oldest first) and the zone's offsets over it."""

    start: datetime
    end: datetime
    zone: str
    days: tuple[date, ...]
    shifts: tuple[Shift, ...]


def zone_of(name: str) -> ZoneInfo:
    """The IANA time zone `name`, or the 422 an unknown name gets."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise validation_error(f"Unknown time zone: {name[:64]!r} (an IANA name such as 'Europe/Paris')") from None


def period(start: datetime | None, end: datetime | None, zone_name: str, now: datetime) -> Period:
    """The period from `start` to `end`, both inclusive to the second (as the conversations' filters read them);
    without `end`, up to `now`; without `start`, from the beginning of the 30th day before `end`, in `zone_name`.
    422 when `end` is before `start`, the period is longer than 366 days or out of the calendar's range."""
    zone = zone_of(zone_name)
    try:
        before = end.replace(microsecond=0) + timedelta(seconds=1) if end is not None else now
        if start is None:
            first_day = (before - timedelta(microseconds=1)).astimezone(zone).date() - timedelta(days=DEFAULT_DAYS - 1)
            start = datetime.combine(first_day, time(), zone).astimezone(UTC)
        start = start.replace(microsecond=0)
        if before <= start:
            raise validation_error("end_timestamp is before start_timestamp")
        if before - start > timedelta(days=MAX_DAYS):
            raise validation_error(f"The period is longer than {MAX_DAYS} days")
        return Period(start, before, zone_name, _days(start, before, zone), _shifts(start, before, zone))
    except (OverflowError, ValueError):
        raise validation_error("The period is out of range") from None


def _days(start: datetime, before: datetime, zone: ZoneInfo) -> tuple[date, ...]:
    first = start.astimezone(zone).date()
    last = (before - timedelta(microseconds=1)).astimezone(zone).date()
    return tuple(first + timedelta(days=index) for index in range((last - first).days + 1))


def _offset(moment: datetime, zone: ZoneInfo) -> int:
    offset = moment.astimezone(zone).utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def _shifts(start: datetime, before: datetime, zone: ZoneInfo) -> tuple[Shift, ...]:
    """The zone's offsets over [start, before): each piece with the instant the next begins."""
    shifts: list[Shift] = []
    current, moment = _offset(start, zone), start
    while moment < before:
        following = min(moment + _STEP, before)
        if _offset(following, zone) != current:
            change = _change(moment, following, zone, current)
            if change < before:
                shifts.append(Shift(current, change))
                current = _offset(change, zone)
        moment = following
    shifts.append(Shift(current, None))
    return tuple(shifts)


def _change(low: datetime, high: datetime, zone: ZoneInfo, offset: int) -> datetime:
    """The first second in (low, high] whose offset is not `offset` (the offset at `low`)."""
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        middle = middle.replace(microsecond=0)
        if middle <= low:
            middle = low + timedelta(seconds=1)
        if _offset(middle, zone) == offset:
            low = middle
        else:
            high = middle
    return high
