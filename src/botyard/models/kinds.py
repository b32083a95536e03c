"""The names stored in the tables and sent on the wire, as enums every layer may import.

They are `StrEnum`s (and one small value, `SourceError`, for the statuses that carry a reason), so a member is its
string: it compares equal to the stored value, serialises as it, and `AgentType("background")` reads one back. The
front end reads the same names from `web/static/shared/names.js`; a test keeps the two in step, and another fails
when the server spells one of these words as a bare string (`tests/web/test_names.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

# Re-exported, so that names.js mirrors them like the words below.
from botyard.models.audit_kinds import AuditAction as AuditAction
from botyard.models.audit_kinds import AuditObject as AuditObject


class Visibility(StrEnum):
    """`chatbot.visibility`: who may chat without the owner's key."""

    PRIVATE = "private"
    """Only with the owner's API key."""
    PUBLIC = "public"
    """Anyone with a session uuid: the widget and the share page."""
    HYBRID = "hybrid"
    """Anyone with a session uuid, through the widget only (no share page)."""


class AgentType(StrEnum):
    """`agent.type`."""

    USER_FACING = "user-facing"
    BACKGROUND = "background"
    HUMAN_ESCALATION = "human-escalation"
    PRE_CANNED = "pre-canned"
    SPAM_DEFENSE = "spam-defense"


class MessageKind(StrEnum):
    """`meta_json.kind` of a live-chat transcript row (an answered exchange has no kind)."""

    OPERATOR = "operator"
    """An operator's reply: empty query."""
    LIVE_CHAT_START = "live_chat_start"
    """The announcement that an operator took over: empty query."""
    LIVE_CHAT_END = "live_chat_end"
    """The announcement that the AI is back: empty query."""
    LIVE_CHAT_USER = "live_chat_user"
    """A user's message during a live chat: empty response."""
    CONTACT_FORM = "contact_form"
    """A message a visitor left through the after-hours form: the message as the query, the address in
    `meta_json.email`, empty response."""


class MessageState(StrEnum):
    """`message.state`: a message is `streaming` until its answer is finalised."""

    STREAMING = "streaming"
    COMPLETE = "complete"


class Rating(StrEnum):
    """`message_feedback.rating`: the end user's thumbs up or down on an answer."""

    UP = "up"
    DOWN = "down"


class ChatbotEventKind(StrEnum):
    """`chatbot_event.kind`, the SSE event name of the operators' (and the widget's) event streams."""

    HUMAN_REQUESTED = "human_requested"
    USER_MESSAGE = "user_message"
    LIVE_CHAT_STARTED = "live_chat_started"
    OPERATOR_MESSAGE = "operator_message"
    LIVE_CHAT_ENDED = "live_chat_ended"
    TAGS_ASSIGNED = "tags_assigned"
    HUMAN_REQUEST_DISMISSED = "human_request_dismissed"
    """An operator cleared the request for a person without taking the conversation over."""
    CONVERSATION_SEEN = "conversation_seen"
    """An operator opened the conversation in the inbox: its messages so far are read."""
    CONTACT_FORM_OFFERED = "contact_form_offered"
    """The visitor asked for a person after office hours: the form for an email address and a message is shown."""
    CONTACT_FORM_SENT = "contact_form_sent"
    """The visitor left an email address and a message through that form ({message_uuid, email, message})."""
    CONVERSATION_ASSIGNED = "conversation_assigned"
    """A person of the team has the conversation now, or nobody ({assignee_uuid, assignee_name, by_uuid})."""
    CONVERSATION_STATUS = "conversation_status"
    """A person set the conversation's status ({status, snoozed_until, by_uuid})."""
    NOTE_ADDED = "note_added"
    """A private note of the team ({note_uuid, author_uuid, author_name, text}): operators only, never the widget,
    a channel or a webhook."""
    NOTE_DELETED = "note_deleted"
    """A private note was deleted ({note_uuid}): operators only."""


class WidgetRole(StrEnum):
    """`role` of an entry of the widget's conversation."""

    USER = "user"
    ASSISTANT = "assistant"
    OPERATOR = "operator"
    ANNOUNCEMENT = "announcement"


class ConversationOutcome(StrEnum):
    """`chat_session.outcome`: how the conversation went, by rules over what is stored (`answering.turn.outcomes`)."""

    RESOLVED = "resolved"
    """The bot's last answer was confident, and the visitor did not rate it down."""
    UNRESOLVED = "unresolved"
    """The last answer was refused, unsure or failed, or the visitor rated an answer down."""
    HANDED_OFF = "handed_off"
    """A person was asked for, or took the conversation over (it stays handed off)."""


class ConversationStatus(StrEnum):
    """`chat_session.status`: where the team's work on a conversation stands (set by people, not by the bot)."""

    OPEN = "open"
    """Someone should look at it (every conversation begins open)."""
    PENDING = "pending"
    """The team answered and waits for the customer."""
    SNOOZED = "snoozed"
    """Put aside until `snoozed_until`; open again after it, or when the customer writes."""
    RESOLVED = "resolved"
    """Done; a new message from the customer opens it again."""


class IdentityKind(StrEnum):
    """`contact_identity.kind`: what a channel knows a contact by (`contacts.identities`)."""

    EMAIL = "email"
    """The address, lower-cased: the email channel, the widget's visitor who gave it, the after-hours form."""
    PHONE = "phone"
    """The number in E.164 (`contacts.phones`): WhatsApp and SMS."""
    TELEGRAM = "telegram"
    SLACK = "slack"
    MESSENGER = "messenger"
    INSTAGRAM = "instagram"
    WEBHOOK = "webhook"
    """The generic channel's user id, after the channel's uuid (`channel_uuid:user`): its ids are the owner's own."""
    VISITOR = "visitor"
    """The widget's device id, after the chatbot's uuid (`chatbot_uuid:device_id`)."""


class OutcomeReason(StrEnum):
    """`chat_session.outcome_reason`: why a conversation is unresolved or handed off."""

    VISITOR_ASKED = "visitor_asked"
    """The visitor asked for a person (a hand-off right after a doubtful answer keeps that answer's reason)."""
    NO_ANSWER = "no_answer"
    UNSURE = "unsure"
    THUMBS_DOWN = "thumbs_down"
    FAILED = "failed"
    """The answer failed (the model or a tool)."""
    OPERATOR = "operator"
    """An operator took the conversation over unasked."""


class UnansweredReason(StrEnum):
    """`unanswered_question.reason`: why a question was recorded for the owner."""

    REFUSED = "refused"
    """Offline, the relevance decision found nothing in the knowledge that answers it: the no-answer reply."""
    MODEL_NO_ANSWER = "model_no_answer"
    """A model answered with the no-answer sentence (the agent's own, or the service's)."""
    NO_AGENT = "no_agent"
    """No enabled agent answers queries: the configured no-agent reply."""
    LOW_CONFIDENCE = "low_confidence"
    """Answered, on evidence a stricter setting would have refused (`answering.turn.gaps.low_confidence`), or unsure."""
    HANDED_OFF = "handed_off"
    """A human-escalation agent replied: the visitor asked for a person."""
    THUMBS_DOWN = "thumbs_down"
    """The visitor rated the answer down; written only when the owner closes it (`unanswered.review`): until then
    the verdict itself (`message_feedback`) puts the answer in the review queue."""


class UnansweredStatus(StrEnum):
    """`unanswered_question.status`."""

    OPEN = "open"
    ANSWERED = "answered"
    """The owner added an answer for it (a Q&A source)."""
    DISMISSED = "dismissed"
    ACCEPTED = "accepted"
    """The owner said the answer is right (the review queue's "This answer is right")."""


class SourceType(StrEnum):
    """`data_source.type`: what a piece of knowledge is."""

    QA = "qa"
    """A question and its answer, one chunk."""
    LINK = "link"
    """A web page, fetched (and re-fetched) from its URL."""
    UPLOAD = "upload"
    """An uploaded file, its bytes kept in `source_file`."""


class SourceStatus(StrEnum):
    """`data_source.status` on its way to `success`; a failure is `error:<reason>` (`SourceError`)."""

    QUEUED = "queued"
    DOWNLOADING = "downloading"
    EXTRACTING = "extracting"
    CHUNKING = "chunking"
    EMBEDDING = "embedding"
    SUCCESS = "success"


@dataclass(frozen=True)
class SourceError:
    """A failed source's `status`, `error:<reason>` (`error:http 404`, `error:no text`): the one place it is written
    (`status`) and read (`parse`)."""

    reason: str
    PREFIX: ClassVar[str] = "error:"

    @property
    def status(self) -> str:
        return f"{self.PREFIX}{self.reason}"

    @classmethod
    def parse(cls, status: str) -> SourceError | None:
        """The failure a status names; None for the statuses of `SourceStatus`."""
        return cls(status.removeprefix(cls.PREFIX)) if status.startswith(cls.PREFIX) else None


class CrawlMode(StrEnum):
    """`crawl.mode`: how a crawl finds its pages."""

    LINKS = "links"
    """Follow links breadth first from the start page."""
    SITEMAP = "sitemap"
    """The pages the site's sitemaps list."""


class CrawlState(StrEnum):
    """`crawl.state`: `queued`, `running`, then `done`, `cancelled` or `failed` (`crawl.service.FINAL_STATES`)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"
    FAILED = "failed"


class CrawlPageState(StrEnum):
    """`crawl_page.state`: `pending` until fetched, then `done` (a new source), `failed` or `skipped`."""

    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    """Not added: already a source of the chatbot, another address of a stored page, `noindex`, or after a cap."""


class JobStatus(StrEnum):
    """`job.status`: `queued` (again after a retry or an expired lease), `running` under a lease, then `done` or
    `failed` (the `botyard_jobs` metric's `state` label)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class TestRunStatus(StrEnum):
    """`test_run.status`: `queued`, `running`, then `done` or `failed`."""

    __test__ = False
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class Role(StrEnum):
    """`account_user.role`: what a person may do in their account (the permissions of each: `identity/roles.py`)."""

    OWNER = "owner"
    ADMIN = "admin"
    EDITOR = "editor"
    OPERATOR = "operator"
    VIEWER = "viewer"


class Permission(StrEnum):
    """What a route needs (declared at the route: `identity/access.py`) and a role grants (`identity/roles.py`);
    `GET /auth/me` lists them."""

    READ = "read"
    SELF = "self"
    CHAT = "chat"
    LIVE = "live"
    KNOWLEDGE = "knowledge"
    MANAGE = "manage"
    ACCESS = "access"
    SETTINGS = "settings"
    OWNERSHIP = "ownership"
