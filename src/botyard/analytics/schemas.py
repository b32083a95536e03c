from __future__ import annotations

from typing_extensions import TypedDict


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
    resolution_rate: float | None
    """`resolved` over the conversations with an outcome (resolved, unresolved or handed off); null without any."""
    feedback_up: int
    feedback_down: int
    feedback_ratio: float | None
    """`feedback_up / (feedback_up + feedback_down)`; null without feedback."""
    first_byte_p50_ms: int | None
    """The median time from a question's arrival to its answer's first text (null: no answer timed)."""
    first_byte_p95_ms: int | None
    """The 95th percentile of that time (nearest rank)."""


class Day(Figures):
    date: str
    """The owner's day (`YYYY-MM-DD` in `timezone`)."""


class TopQuestion(TypedDict):
    question: str
    """Its most asked wording."""
    count: int
    """How often it was asked (wordings equal but for case, spacing and punctuation are one question)."""


class CitedSource(TypedDict):
    data_source_uuid: str
    title: str
    """The title the answers cited it with."""
    count: int
    """Answers that cited it."""


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
    """Handed to a person: one was asked for, or an operator took the conversation over."""
    resolution_rate: float | None
    """`resolved` over the conversations with an outcome; null without any."""


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
