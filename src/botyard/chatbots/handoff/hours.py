"""Office hours: a week of open intervals read in one time zone, and whether a moment falls in one.

A week maps a weekday (`monday` ... `sunday`) to its intervals, each `[start, end]` as `HH:MM` in the chatbot's time
zone, start before end, `24:00` allowed as an end (midnight after the day). An interval belongs to its day only:
a night shift is two intervals (`friday: 22:00-24:00`, `saturday: 00:00-06:00`). The local time of a moment comes
from the IANA database (`zoneinfo`), so daylight saving moves the hours with the clocks; a day missing from the
week is closed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""In `datetime.weekday()` order."""
MAX_INTERVALS = 6
"""Per day: a morning and an afternoon need two; more than a handful is a mistake."""
_TIME = re.compile(r"^(?:([01]\d|2[0-3]):([0-5]\d)|24:00)$")

Week = dict[str, list[list[str]]]


class ScheduleError(ValueError):
    """A week or a time zone that cannot be used; the message says what to change."""


def minutes(text: str) -> int:
    """`HH:MM` as minutes after midnight (`24:00` is 1440)."""
    match = _TIME.match(text)
    if match is None:
        raise ScheduleError(f"{text!r} is not a time: write HH:MM, from 00:00 to 24:00")
    return 1440 if text == "24:00" else int(match[1]) * 60 + int(match[2])


def zone(name: str) -> ZoneInfo:
    """The IANA time zone of that name (`Europe/Paris`, `UTC`)."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ScheduleError(f"{name!r} is not a time zone: use an IANA name such as Europe/Paris or UTC") from error


def checked_week(week: Mapping[str, Sequence[Sequence[str]]]) -> Week:
    """The week with every day's intervals in order; `ScheduleError` for an unknown day, a malformed time, an end not
    after its start, overlapping intervals or too many of them."""
    unknown = sorted(set(week) - set(DAYS))
    if unknown:
        raise ScheduleError(f"Unknown day {unknown[0]!r}: use {', '.join(DAYS)}")
    checked: Week = {}
    for day in DAYS:
        intervals = sorted(([start, end] for start, end in week.get(day, [])), key=lambda pair: minutes(pair[0]))
        if len(intervals) > MAX_INTERVALS:
            raise ScheduleError(f"{day}: at most {MAX_INTERVALS} intervals a day")
        previous_end = -1
        for start, end in intervals:
            if minutes(end) <= minutes(start):
                raise ScheduleError(f"{day}: {start}-{end} ends before it starts (a night shift is two intervals)")
            if minutes(start) < previous_end:
                raise ScheduleError(f"{day}: {start}-{end} overlaps the interval before it")
            previous_end = minutes(end)
        if intervals:
            checked[day] = intervals
    return checked


def is_open(week: Mapping[str, Sequence[Sequence[str]]], timezone: str, moment: datetime) -> bool:
    """Whether `moment` (aware) falls in one of the week's intervals, in the week's time zone. A stored week that
    no longer reads (a time zone dropped from the database) counts as open: promising a person wrongly is better
    than never offering one."""
    try:
        local = moment.astimezone(zone(timezone))
        intervals = week.get(DAYS[local.weekday()], [])
        now = local.hour * 60 + local.minute
        return any(minutes(start) <= now < minutes(end) for start, end in intervals)
    except (ScheduleError, ValueError, TypeError):
        return True
