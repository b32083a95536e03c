from __future__ import annotations

from typing import Annotated

from pydantic import Field
from typing_extensions import TypedDict

from botyard.schemas import RequestModel, Uuid
from botyard.sources.schemas import DataSource, NonBlankText, ReferenceLink

MAX_QUESTIONS = 2000
"""The open questions one listing groups (the newest); `capped` says when a chatbot has more. Grouping compares
each with the questions before it: 2,000 all different take about 0.4 s of a core (`unanswered.grouping`)."""
SAMPLES = 5
"""How many variants and session uuids a group shows."""

QuestionUuids = Annotated[list[Uuid], Field(min_length=1, max_length=MAX_QUESTIONS)]


class UnansweredGroup(TypedDict):
    """Open questions on one subject."""

    uuid: str
    """The group's leading question's uuid."""
    question: str
    """The leading question as it was asked: the group's most asked wording."""
    resolved: str | None
    """The leading question as it was searched, when that differs (a follow-up completed from the conversation)."""
    count: int
    reasons: dict[str, int]
    """How many of the questions were `refused`, `model_no_answer`, `no_agent`, `low_confidence`."""
    language: str | None
    first_asked: str
    last_asked: str
    variants: list[str]
    """Other wordings, most asked first (at most 5)."""
    session_uuids: list[str]
    """Sessions that asked, newest first (at most 5)."""
    question_uuids: list[str]
    """Every question of the group, the leading one first: what `answer` and `dismiss` take."""


class UnansweredGroups(TypedDict):
    groups: list[UnansweredGroup]
    total: int
    """Groups in all (the page is `groups`)."""
    questions: int
    """Open questions grouped."""
    capped: bool
    """More open questions exist than one listing groups (2000): the oldest were left out."""


class UnansweredAnswer(RequestModel):
    question_uuids: QuestionUuids = Field(description="The questions this answers (a group's `question_uuids`).")
    answer: NonBlankText
    question: NonBlankText | None = Field(
        default=None, description="The Q&A's question; by default the first of `question_uuids`, as it was asked."
    )
    reference_source_link: ReferenceLink = Field(default=None, description="Where the answer comes from.")


class UnansweredDismiss(RequestModel):
    question_uuids: QuestionUuids = Field(description="The questions to dismiss (a group's `question_uuids`).")


class Answered(TypedDict):
    data_source: DataSource
    """The Q&A source created (queued: it is processed and indexed like any other)."""
    resolved: int
    """How many of the questions were still open and are now answered."""


class Dismissed(TypedDict):
    dismissed: int
