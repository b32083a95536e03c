from __future__ import annotations

from typing import Annotated, Literal

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


ReviewReason = Literal["refused", "unsure", "thumbs_down", "handed_off"]
MessageUuids = Annotated[list[Uuid], Field(min_length=1, max_length=MAX_QUESTIONS)]


class ReviewPair(TypedDict):
    """A Q&A pair the reply quoted, as it reads now: what a fix would replace (`unanswered.pairs`)."""

    uuid: str
    question: str
    answer: str
    same_question: bool
    """Whether its question is the same question as the item's (it would be in the item's group): only then may a
    fix replace it (`data_source_uuid`); a pair that only lent the reply a sentence is another question's."""


class ReviewItem(TypedDict):
    """One answer to review: the visitor's question, the bot's reply, where it was said, and why it is here."""

    question: str
    reply: str
    session_uuid: str
    message_uuid: str
    reason: ReviewReason
    asked_at: str
    qa_source_uuid: str | None
    """The Q&A source the reply quoted first, if it quoted one (`qa_pair` says whether a fix may replace it)."""
    operator_reply: str | None
    """What a person replied next in the conversation (live chat), if one did: their reply to that visitor, shown
    for context, never a fix's answer for everyone."""
    qa_pair: ReviewPair | None
    """The Q&A pair a fix would replace, named with its current question and answer: the first quoted pair that is
    the question's own (`same_question`), else the first quoted one (then a fix adds a pair); None when none."""


class ReviewGroup(TypedDict):
    """Answers to review on one subject (the same question in other words or languages)."""

    uuid: str
    """The leading item's `message_uuid`."""
    question: str
    """The leading question: the group's most asked wording."""
    count: int
    """Items (answers) in the group."""
    visitors: int
    """Sessions that met it: what orders the queue."""
    reasons: list[ReviewReason]
    items: list[ReviewItem]
    """Newest first."""


class ReviewGroups(TypedDict):
    groups: list[ReviewGroup]
    total: int
    """Open groups in all (the page is `groups`)."""
    items: int
    """Open items grouped."""
    capped: bool
    """More open items exist than one listing groups (2000 of each kind): the oldest were left out."""


class ReviewFix(RequestModel):
    message_uuids: MessageUuids = Field(
        description="The answers this fixes: a group's items' `message_uuid`s, or any answers of the chatbot's "
        "conversations (a fix from a transcript)."
    )
    answer: NonBlankText = Field(description="The right answer; it becomes a Q&A pair the next visitor is answered by.")
    question: NonBlankText | None = Field(
        default=None, description="The Q&A's question; by default the first message's question, as it was asked."
    )
    data_source_uuid: Uuid | None = Field(
        default=None,
        description="Replace the answer of this Q&A pair instead of adding one: only an item's `qa_pair` whose "
        "`same_question` is true (the question's own pair); another pair answers 409 `qa_pair_not_offered`. Its "
        "question stays unless `question` is given. Without it, the fix adds a pair.",
    )
    reference_source_link: ReferenceLink = Field(default=None, description="Where the answer comes from.")


class ReviewAccept(RequestModel):
    message_uuids: MessageUuids = Field(description="The answers that are right as they are (a group's items).")


class ReviewFixed(TypedDict):
    data_source: DataSource
    """The Q&A source added or edited (processed and indexed like any other)."""
    closed: int
    """Review items closed by it (open items of the messages, and their thumbs-down verdicts)."""


class ReviewAccepted(TypedDict):
    closed: int
