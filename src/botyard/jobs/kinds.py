"""Every kind of job and the payload its row carries, defined once.

A payload is a frozen dataclass of ids (`JobPayload`); its class names its kind, so `enqueue(db, ProcessSource(uuid))`
cannot queue a kind with another kind's payload, and a handler declares the payload class it reads
(`JobHandler.payload_type`) and gets it typed (`JobContext.payload`), never a dict. `to_json` and `from_json` are the
one place a payload meets the row's JSON: the keys are the field names, exactly as rows written before payloads were
typed spell them, so a queue left by an older version is read as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar, Self


class JobKind(StrEnum):
    """`job.kind`: what a job does. The handler of each runs in `botyard serve` and `botyard worker` alike."""

    PROCESS_SOURCE = "process_source"
    """Fetch or parse a data source, chunk it, embed it (`sources.processing.pipeline`)."""
    REEMBED_SOURCE = "reembed_source"
    """Embed again the chunks of one source that another embedder (or none) produced; queued at start-up."""
    CRAWL_SITE = "crawl_site"
    """Crawl a website into URL sources (`crawl.crawler`)."""
    SYNC_CHATBOT = "sync_chatbot"
    """Re-check a chatbot's fetched pages, one link of its re-sync schedule's chain (`crawl.sync`)."""
    TAG_SESSION = "tag_session"
    """The background agents' work after an answer (`answering.background.tagging`)."""
    WEBHOOK_DELIVERY = "webhook_delivery"
    """One attempt of one webhook delivery (`outbox.sender`)."""
    PURGE_CONVERSATIONS = "purge_conversations"
    """Delete the conversations past a chatbot's retention period (`chat.history.retention`)."""
    RUN_TESTS = "run_tests"
    """Replay a test set's questions (`testsets.runner`)."""
    WATCH_TEST_SETS = "watch_test_sets"
    """Run a chatbot's watched test sets after its knowledge changed (`testsets.watch`)."""
    OPERATOR_MAIL = "operator_mail"
    """Tell a chatbot's operators by email that a visitor waits or left a message (`live.notify`)."""
    CHANNEL_ANSWER = "channel_answer"
    """Answer a channel conversation's messages once its burst is over (`channels.answering`)."""
    CHANNEL_SEND = "channel_send"
    """One attempt to send a reply on its channel, in its conversation's order (`channels.sending`)."""
    CHANNEL_RELAY = "channel_relay"
    """Send a live-chat row (an operator's reply, the start and end announcements) on the session's channel."""


class PayloadError(ValueError):
    """A stored payload that its kind's class cannot read (a required id is missing)."""


@dataclass(frozen=True)
class JobPayload:
    """Base of the payloads: ids only (the handler reads the current state when it runs), one class per kind."""

    kind: ClassVar[str]
    """The `job.kind` of jobs with this payload (a `JobKind`; tests queue kinds of their own)."""

    def to_json(self) -> dict[str, Any]:
        """The row's JSON: {field name: value}."""
        return asdict(self)

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> Self:
        """Read a row's JSON: keys this class does not know are left (a newer version's), a field missing from an
        older row takes its default; a missing field without one is a `PayloadError`."""
        known = {field.name: field for field in fields(cls)}
        missing = [name for name, field in known.items() if name not in stored and field.default is MISSING]
        if missing:
            raise PayloadError(f"{cls.kind} payload without {', '.join(missing)}")
        return cls(**{name: value for name, value in stored.items() if name in known})


@dataclass(frozen=True)
class ProcessSource(JobPayload):
    kind: ClassVar[str] = JobKind.PROCESS_SOURCE
    data_source_uuid: str


@dataclass(frozen=True)
class ReembedSource(JobPayload):
    kind: ClassVar[str] = JobKind.REEMBED_SOURCE
    data_source_uuid: str


@dataclass(frozen=True)
class CrawlSite(JobPayload):
    kind: ClassVar[str] = JobKind.CRAWL_SITE
    crawl_uuid: str


@dataclass(frozen=True)
class SyncChatbot(JobPayload):
    kind: ClassVar[str] = JobKind.SYNC_CHATBOT
    chatbot_uuid: str
    run_at: str = ""
    """The run's planned time (ISO 8601), from which the next one is computed."""


@dataclass(frozen=True)
class TagSession(JobPayload):
    kind: ClassVar[str] = JobKind.TAG_SESSION
    session_uuid: str
    message_uuid: str = ""
    """The answer after which it runs: it shows the job in the message's `background_pending_tasks`."""


@dataclass(frozen=True)
class WebhookAttempt(JobPayload):
    kind: ClassVar[str] = JobKind.WEBHOOK_DELIVERY
    delivery_uuid: str


@dataclass(frozen=True)
class PurgeConversations(JobPayload):
    kind: ClassVar[str] = JobKind.PURGE_CONVERSATIONS
    chatbot_uuid: str


@dataclass(frozen=True)
class RunTests(JobPayload):
    kind: ClassVar[str] = JobKind.RUN_TESTS
    test_run_uuid: str


@dataclass(frozen=True)
class WatchTestSets(JobPayload):
    kind: ClassVar[str] = JobKind.WATCH_TEST_SETS
    chatbot_uuid: str


@dataclass(frozen=True)
class OperatorMail(JobPayload):
    kind: ClassVar[str] = JobKind.OPERATOR_MAIL
    session_uuid: str
    about: str = "waiting"
    """What to tell (`live.notify.About`): a visitor waiting, or a message left after hours."""
    message_uuid: str | None = None
    """The visitor's message (their question, or what they left), when there is one."""


@dataclass(frozen=True)
class ChannelAnswer(JobPayload):
    kind: ClassVar[str] = JobKind.CHANNEL_ANSWER
    event_uuid: str
    callback_query_id: str = ""
    """Telegram's button press the event came from ("" for none): answered when the job runs."""


@dataclass(frozen=True)
class ChannelSend(JobPayload):
    kind: ClassVar[str] = JobKind.CHANNEL_SEND
    reply_uuid: str


@dataclass(frozen=True)
class ChannelRelay(JobPayload):
    kind: ClassVar[str] = JobKind.CHANNEL_RELAY
    session_uuid: str
    message_uuid: str


PAYLOADS: Mapping[str, type[JobPayload]] = {
    payload.kind: payload
    for payload in (
        ProcessSource,
        ReembedSource,
        CrawlSite,
        SyncChatbot,
        TagSession,
        WebhookAttempt,
        PurgeConversations,
        RunTests,
        WatchTestSets,
        OperatorMail,
        ChannelAnswer,
        ChannelSend,
        ChannelRelay,
    )
}
"""The payload class of each kind (a test checks that every `JobKind` has one, and one handler)."""
