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


class Analytics(TypedDict):
    chatbot_uuid: str
    start: str
    """The period's first second (UTC)."""
    end: str
    """The end of the period (UTC), not included."""
    timezone: str
    totals: Figures
    days: list[Day]
    """Every day of the period, oldest first (days without activity have zeros)."""
    top_questions: list[TopQuestion]
    """The 10 most asked questions, the most asked first."""
    top_sources: list[CitedSource]
    """The 10 most cited sources, the most cited first."""
