"""Every table of the service, one module each. Importing this package registers them all on `Base.metadata`."""

from botyard.models.account import Account, ApiKey
from botyard.models.agent import Agent, AgentDataSource
from botyard.models.agent_meta import AgentMeta, AgentTag, EscalationSettings
from botyard.models.audit_event import AuditEvent
from botyard.models.channel import (
    Channel,
    ChannelEvent,
    ChannelEventState,
    ChannelOptOut,
    ChannelReceipt,
    ChannelReply,
    ChannelType,
    ReceiptStatus,
    ReplyState,
)
from botyard.models.chat_session import ChatSession
from botyard.models.chatbot import Chatbot
from botyard.models.chatbot_event import ChatbotEvent
from botyard.models.chunk import Chunk
from botyard.models.contact import Contact, ContactIdentity
from botyard.models.crawl import Crawl, CrawlPage
from botyard.models.data_source import DataSource, SourceFile
from botyard.models.handoff_settings import HandoffSettings
from botyard.models.inbox import CannedReply, ConversationNote, ConversationRead
from botyard.models.index_snapshot import IndexSnapshot, IndexSnapshotPiece
from botyard.models.instance_settings import InstanceSettings
from botyard.models.integration_hook import IntegrationHook
from botyard.models.invitation import Invitation
from botyard.models.job import Job
from botyard.models.kinds import (
    AgentType,
    AuditAction,
    AuditObject,
    ChatbotEventKind,
    ConversationOutcome,
    ConversationStatus,
    CrawlMode,
    CrawlPageState,
    CrawlState,
    IdentityKind,
    JobStatus,
    MessageKind,
    MessageState,
    OutcomeReason,
    Permission,
    Rating,
    Role,
    SourceError,
    SourceStatus,
    SourceType,
    TestRunStatus,
    UnansweredReason,
    UnansweredStatus,
    Visibility,
    WidgetRole,
)
from botyard.models.knowledge_change import KnowledgeChange
from botyard.models.message import Message
from botyard.models.message_feedback import MessageFeedback
from botyard.models.meta import MessageMeta, SessionMeta
from botyard.models.oidc_identity import OidcIdentity
from botyard.models.rate_limit import RateLimitHit
from botyard.models.session_document import MessageDocument, SessionDocument
from botyard.models.signin_attempt import SigninAttempt
from botyard.models.source_tag import SourceTag, SourceTagMember
from botyard.models.sync_schedule import SyncSchedule
from botyard.models.test_set import TestCase, TestResult, TestRun, TestSet
from botyard.models.tool_function import ToolFunction
from botyard.models.unanswered_question import UnansweredQuestion
from botyard.models.user import User
from botyard.models.user_session import UserSession
from botyard.models.webhook import DeliveryStatus, Webhook, WebhookDelivery, WebhookEvent
from botyard.models.widget_settings import WidgetSettings

__all__ = [
    "Account",
    "Agent",
    "AgentDataSource",
    "AgentMeta",
    "AgentTag",
    "AgentType",
    "ApiKey",
    "AuditAction",
    "AuditEvent",
    "AuditObject",
    "CannedReply",
    "Channel",
    "ChannelEvent",
    "ChannelEventState",
    "ChannelOptOut",
    "ChannelReceipt",
    "ChannelReply",
    "ChannelType",
    "ChatSession",
    "Chatbot",
    "ChatbotEvent",
    "ChatbotEventKind",
    "Chunk",
    "Contact",
    "ContactIdentity",
    "ConversationNote",
    "ConversationOutcome",
    "ConversationRead",
    "ConversationStatus",
    "Crawl",
    "CrawlMode",
    "CrawlPage",
    "CrawlPageState",
    "CrawlState",
    "DataSource",
    "DeliveryStatus",
    "EscalationSettings",
    "HandoffSettings",
    "IdentityKind",
    "IndexSnapshot",
    "IndexSnapshotPiece",
    "InstanceSettings",
    "IntegrationHook",
    "Invitation",
    "Job",
    "JobStatus",
    "KnowledgeChange",
    "Message",
    "MessageDocument",
    "MessageFeedback",
    "MessageKind",
    "MessageMeta",
    "MessageState",
    "OidcIdentity",
    "OutcomeReason",
    "Permission",
    "RateLimitHit",
    "Rating",
    "ReceiptStatus",
    "ReplyState",
    "Role",
    "SessionDocument",
    "SessionMeta",
    "SigninAttempt",
    "SourceError",
    "SourceFile",
    "SourceStatus",
    "SourceTag",
    "SourceTagMember",
    "SourceType",
    "SyncSchedule",
    "TestCase",
    "TestResult",
    "TestRun",
    "TestRunStatus",
    "TestSet",
    "ToolFunction",
    "UnansweredQuestion",
    "UnansweredReason",
    "UnansweredStatus",
    "User",
    "UserSession",
    "Visibility",
    "Webhook",
    "WebhookDelivery",
    "WebhookEvent",
    "WidgetRole",
    "WidgetSettings",
]
