"""The query parameters that pick a chatbot's sessions, shared by the session list, the conversations overview and
the export: one dependency that reads them into a `SessionFilter`."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated

from fastapi import Depends, Query

from botyard.chat.repository import FeedbackFilter, SessionFilter
from botyard.chat.schemas import TimestampParam

_SECOND = timedelta(seconds=1)


def creation_window(start: datetime | None, end: datetime | None) -> tuple[datetime | None, datetime | None]:
    """Both bounds inclusive at the second precision timestamps are shown with: `start` counts from the beginning of
    its second, `end` up to the end of its second (a session created at 10:00:00.7 shows as 10:00:00 and matches an
    `end` of 10:00:00Z). Returned as [from, before)."""
    created_from = start.replace(microsecond=0) if start is not None else None
    created_before = None
    if end is not None:
        try:
            created_before = end.replace(microsecond=0) + _SECOND
        except OverflowError:  # the last representable second: no upper bound
            created_before = None
    return created_from, created_before


ChannelParam = Annotated[
    str | None,
    Query(
        max_length=32,
        description="Only the conversations of this channel (its uuid: Telegram, Slack, a generic channel), or "
        "`web` (also `none`): only those of the widget and the API.",
    ),
]


def session_filter(
    start_timestamp: Annotated[TimestampParam, Query(description="Created at or after (to the second).")] = None,
    end_timestamp: Annotated[TimestampParam, Query(description="Created at or before (the whole second).")] = None,
    human_requested: Annotated[
        bool | None, Query(description="Only sessions that asked for a person (1) or only the others (0).")
    ] = None,
    tag: Annotated[
        list[str] | None, Query(description="Only sessions with this tag (repeat: with all of them).")
    ] = None,
    refused: Annotated[
        bool | None,
        Query(
            description="Only sessions with at least one refused answer (1: the no-answer reply, attached documents "
            "too long, or a failed answer) or only those with none (0)."
        ),
    ] = None,
    handed_off: Annotated[
        bool | None,
        Query(
            description="Only sessions ever handed to a person (1: asked for one, or an operator took over) or "
            "only the others (0)."
        ),
    ] = None,
    feedback: Annotated[
        FeedbackFilter | None,
        Query(
            description="Only sessions with a rated answer (`any`), one rated `up`, one rated `down`, or with no "
            "rated answer (`none`)."
        ),
    ] = None,
    channel: ChannelParam = None,
) -> SessionFilter:
    """The filter the query parameters describe (each one left out: no condition)."""
    created_from, created_before = creation_window(start_timestamp, end_timestamp)
    return SessionFilter(
        created_from,
        created_before,
        human_requested,
        tags=tuple(dict.fromkeys(tag or [])),
        refused=refused,
        handed_off=handed_off,
        feedback=feedback,
        channel=channel,
    )


SessionQuery = Annotated[SessionFilter, Depends(session_filter)]
"""The sessions the request's query parameters pick."""
