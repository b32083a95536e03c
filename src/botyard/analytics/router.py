"""A chatbot's analytics (the owner's key). Not in the hosted interface; designed in its style."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from botyard.analytics import service, team
from botyard.analytics.period import DEFAULT_DAYS, MAX_DAYS, Period, period
from botyard.analytics.schemas import Analytics, Team
from botyard.chat.schemas import TimestampParam
from botyard.deps import AppClock, ReadDbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import requires
from botyard.identity.caller import CurrentAccount
from botyard.models import Permission

router = APIRouter(tags=["analytics"])

_RESPONSES = error_responses(
    {
        ErrorCode.NOT_FOUND: "no such chatbot, or another account's; a `channel` that is not one of this chatbot's.",
        ErrorCode.VALIDATION_ERROR: f"an unknown time zone, `end_timestamp` before `start_timestamp`, over "
        f"{MAX_DAYS} days, or a `channel` that is neither `web` nor a channel's uuid.",
    }
)


ChannelParam = Annotated[
    str | None,
    Query(
        max_length=64,
        description="Only the conversations of this channel: `web` (the widget and the API) or the uuid of one "
        "of the chatbot's channels (default: every conversation).",
    ),
]


def _period(
    clock: AppClock,
    start_timestamp: Annotated[
        TimestampParam, Query(description=f"From (to the second; default: the last {DEFAULT_DAYS} days).")
    ] = None,
    end_timestamp: Annotated[TimestampParam, Query(description="Up to and including (default: now).")] = None,
    timezone: Annotated[
        str, Query(max_length=64, description="The IANA time zone whose days the figures are counted in.")
    ] = "UTC",
) -> Period:
    return period(start_timestamp, end_timestamp, timezone, clock())


@router.get(
    "/chatbot/{uuid}/analytics",
    response_model=Analytics,
    responses=_RESPONSES,
    dependencies=[requires(Permission.READ)],
)
async def get_analytics(
    uuid: str,
    account: CurrentAccount,
    chosen: Annotated[Period, Depends(_period)],
    db: ReadDbSession,
    channel: ChannelParam = None,
) -> Analytics:
    """The chatbot's figures over a period, per day and in total: conversations, questions, answered and refused,
    hand-offs to a person, feedback up and down, first-byte latency (p50, p95), the 10 most asked questions and the
    10 most cited sources; and per channel (`by_channel`: `web`, then each channel) its conversations, questions and
    outcomes. Days are the `timezone`'s; `channel` narrows every figure to one channel's conversations."""
    return await service.analytics(db, account, uuid, chosen, channel)


@router.get(
    "/chatbot/{uuid}/analytics/team",
    response_model=Team,
    responses=_RESPONSES,
    dependencies=[requires(Permission.READ)],
)
async def get_team_analytics(
    uuid: str,
    account: CurrentAccount,
    chosen: Annotated[Period, Depends(_period)],
    db: ReadDbSession,
    channel: ChannelParam = None,
) -> Team:
    """The team's figures over a period, of the conversations started in it that were handed to a person (a person
    asked for, or an operator taking over): first response time (from the hand-off to the first operator reply) and
    resolution time (to a person's resolve), median and 90th percentile in seconds; per person assigned (their
    conversations, resolved, median times); per channel (`web`, then each channel) its conversations split into
    resolved by the bot, unresolved by the bot, handed to a person and without an outcome, which sum to its
    `conversations`, and of those handed, the ones a person resolved. Same period and `channel` as the analytics."""
    return await team.team(db, account, uuid, chosen, channel)
