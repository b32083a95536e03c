"""The analytics' answers. Each field's docstring says what it counts, and is its description in OpenAPI
(`use_attribute_docstrings`)."""

from __future__ import annotations

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

_DOCUMENTED = with_config(ConfigDict(use_attribute_docstrings=True))


@_DOCUMENTED
class Figures(TypedDict):
    """The counts of a day, or of the whole period (`totals`)."""

    conversations: int
    """Conversations (sessions) started."""
    messages: int
    """Questions asked: the users' messages (a live chat's too)."""
    answered: int
    """Questions that got a reply that was not a refusal (a canned or hand-off reply counts)."""
    refused: int
    """Questions refused: the no-answer reply, attached documents too long, or a failed answer."""
    handed_off: int
    """Conversations handed to a person: one asked for a person, or an operator took it over (the period's total
    counts a conversation once, a day's counts it on each day it happened)."""
    resolved: int
    """Conversations started that day whose outcome is `resolved` (docs/review.md: the bot's last answer was
    confident and not rated down)."""
    unresolved: int
    """Conversations started that day left `unresolved` (refused, unsure, failed, or rated down)."""
    handed_to_person: int
    """Conversations started that day whose outcome is `handed_off` (a person was asked for, or took it over).
    Unlike `handed_off`, counted on the day the conversation started, as `resolved` and `unresolved` are."""
    no_outcome: int
    """Conversations started that day with no outcome: nothing was asked in them (or the first answer is still
    being written). Every conversation is in one of four buckets: `resolved + unresolved + handed_to_person +
    no_outcome == conversations`."""
    bot_conversations: int
    """`resolved + unresolved`: the conversations the bot took to an outcome alone, no person involved (the
    denominator of `bot_resolution_rate`)."""
    bot_resolution_rate: float | None
    """`resolved / bot_conversations`: of the conversations the bot handled alone, the share it resolved; null
    without any."""
    resolution_rate: float | None
    """`resolved / (resolved + unresolved + handed_to_person)`: over every conversation with an outcome, a hand-off
    counting as not resolved by the bot; null without any."""
    feedback_up: int
    feedback_down: int
    feedback_ratio: float | None
    """`feedback_up / (feedback_up + feedback_down)`; null without feedback."""
    first_byte_p50_ms: int | None
    """The median time from a question's arrival to its answer's first text (null: no answer timed)."""
    first_byte_p95_ms: int | None
    """The 95th percentile of that time (nearest rank)."""


@_DOCUMENTED
class Day(Figures):
    date: str
    """The owner's day (`YYYY-MM-DD` in `timezone`)."""


@_DOCUMENTED
class TopQuestion(TypedDict):
    question: str
    """Its most asked wording."""
    count: int
    """How often it was asked (wordings equal but for case, spacing and punctuation are one question)."""


@_DOCUMENTED
class CitedSource(TypedDict):
    data_source_uuid: str
    title: str
    """The title the answers cited it with."""
    count: int
    """Answers that cited it."""


@_DOCUMENTED
class ChannelFigures(TypedDict):
    """One channel's share of the period: its conversations, questions and the conversations' outcomes (counted as
    `resolved` and `unresolved` are: by `chat_session.outcome`, on the day the conversation started)."""

    channel: str
    """`web` (the widget and the API: conversations on no channel) or the channel's uuid."""
    type: str
    """`web`, `telegram`, `slack` or `generic`."""
    name: str
    """The channel's name ("" for `web` and for a channel given none)."""
    conversations: int
    messages: int
    """Questions asked in the period."""
    resolved: int
    """Answered: the bot's last answer was confident (or the owner's canned reply)."""
    unsure: int
    """Left unresolved on an unsure answer."""
    no_answer: int
    """Left unresolved on the no-answer reply."""
    unresolved: int
    """Every unresolved conversation: unsure, no answer, a failed answer or one rated down."""
    handed_off: int
    """Handed to a person: one was asked for, or an operator took the conversation over (outcome `handed_off`)."""
    no_outcome: int
    """Nothing asked (no outcome): `resolved + unresolved + handed_off + no_outcome == conversations`."""
    bot_resolution_rate: float | None
    """`resolved / (resolved + unresolved)`: the share resolved of the conversations the bot handled alone; null
    without any."""
    resolution_rate: float | None
    """`resolved / (resolved + unresolved + handed_off)`: over the conversations with an outcome; null without any."""


@_DOCUMENTED
class Analytics(TypedDict):
    chatbot_uuid: str
    start: str
    """The period's first second (UTC)."""
    end: str
    """The end of the period (UTC), not included."""
    timezone: str
    channel: str | None
    """The channel the figures are narrowed to (`web` or a channel's uuid); null: every conversation."""
    totals: Figures
    days: list[Day]
    """Every day of the period, oldest first (days without activity have zeros)."""
    top_questions: list[TopQuestion]
    """The 10 most asked questions, the most asked first."""
    top_sources: list[CitedSource]
    """The 10 most cited sources, the most cited first."""
    by_channel: list[ChannelFigures]
    """`web` first, then each of the chatbot's channels, oldest first (with a `channel` filter: that one only)."""


@_DOCUMENTED
class Durations(TypedDict):
    """How long people took, from each conversation's hand-off (the first time it asked for a person or an operator
    took it over, whichever came first), in seconds; nearest-rank percentiles."""

    count: int
    """The conversations timed (those that reached the end of the measured time)."""
    median_seconds: int | None
    """Null when none was timed."""
    p90_seconds: int | None
    """The 90th percentile: nine in ten took at most this long."""


@_DOCUMENTED
class PersonFigures(TypedDict):
    """One person's share of the conversations handed to people (by `assignee_uuid`)."""

    user_uuid: str
    name: str
    """Their name in the account."""
    conversations: int
    """Conversations of the period handed to a person and assigned to them."""
    resolved: int
    """Of their conversations, the ones a person resolved (`resolved_at` set)."""
    first_response_median_seconds: int | None
    """The median first response of their conversations (the first operator reply, whoever of the team wrote it)."""
    resolution_median_seconds: int | None


@_DOCUMENTED
class TeamChannelFigures(TypedDict):
    """One channel's conversations and who dealt with them. The first four counts are buckets:
    `resolved_by_bot + unresolved_by_bot + handed_to_person + no_outcome == conversations`."""

    channel: str
    """`web` (the widget and the API) or the channel's uuid."""
    type: str
    name: str
    conversations: int
    """Conversations started in the period."""
    resolved_by_bot: int
    """Outcome `resolved`: the bot's last answer was confident, no person involved."""
    unresolved_by_bot: int
    """Outcome `unresolved`: the bot alone, and it did not resolve it."""
    handed_to_person: int
    """Outcome `handed_off`: a person was asked for, or an operator took it over."""
    no_outcome: int
    """Nothing asked in it (no outcome)."""
    resolved_by_person: int
    """Of `handed_to_person`, the ones a person resolved."""
    first_response_median_seconds: int | None
    """The median first response of its conversations handed to a person."""


@_DOCUMENTED
class Team(TypedDict):
    """The team's figures over a period: the conversations started in it that were handed to a person, how fast
    people answered and resolved them, who took them, and each channel's share."""

    chatbot_uuid: str
    start: str
    end: str
    timezone: str
    channel: str | None
    """The channel the figures are narrowed to (`web` or a channel's uuid); null: every conversation."""
    conversations: int
    """Every conversation started in the period (the same as the analytics' `totals.conversations`)."""
    handed_to_person: int
    """Of the conversations started in the period, those handed to a person (outcome `handed_off`): what every
    other figure here counts."""
    answered_by_person: int
    """Of `handed_to_person`, the ones an operator replied to."""
    resolved_by_person: int
    """Of `handed_to_person`, the ones a person resolved (`resolved_at` set: resolved now, not reopened)."""
    unassigned: int
    """Of `handed_to_person`, those assigned to nobody: with `people`'s conversations they sum to
    `handed_to_person`."""
    first_response: Durations
    """From the hand-off to the first operator reply (of the conversations answered by a person)."""
    resolution: Durations
    """From the hand-off to the person's resolution (of the conversations resolved by a person)."""
    people: list[PersonFigures]
    """Each person assigned a conversation of the period, the busiest first."""
    by_channel: list[TeamChannelFigures]
    """`web` first, then each of the chatbot's channels, oldest first (with a `channel` filter: that one only)."""
