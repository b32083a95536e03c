// The names the API stores and sends, as the server's enums spell them (src/botyard/models/kinds.py). A test parses
// this file and compares it with those enums, so a rename on either side fails until both agree.

/** `chatbot.visibility`: who may chat without the owner's key. */
export const Visibility = Object.freeze({
  PRIVATE: "private",
  PUBLIC: "public",
  HYBRID: "hybrid",
});

/** `agent.type`. */
export const AgentType = Object.freeze({
  USER_FACING: "user-facing",
  BACKGROUND: "background",
  HUMAN_ESCALATION: "human-escalation",
  PRE_CANNED: "pre-canned",
  SPAM_DEFENSE: "spam-defense",
});

/** `meta_json.kind` of a live-chat transcript row (an answered exchange has none). */
export const MessageKind = Object.freeze({
  OPERATOR: "operator",
  LIVE_CHAT_START: "live_chat_start",
  LIVE_CHAT_END: "live_chat_end",
  LIVE_CHAT_USER: "live_chat_user",
  CONTACT_FORM: "contact_form",
});

/** A message's state: `streaming` until its answer is finalised. */
export const MessageState = Object.freeze({
  STREAMING: "streaming",
  COMPLETE: "complete",
});

/** The event names of the operators' and the widget's event streams. */
export const ChatbotEventKind = Object.freeze({
  HUMAN_REQUESTED: "human_requested",
  USER_MESSAGE: "user_message",
  LIVE_CHAT_STARTED: "live_chat_started",
  OPERATOR_MESSAGE: "operator_message",
  LIVE_CHAT_ENDED: "live_chat_ended",
  TAGS_ASSIGNED: "tags_assigned",
  HUMAN_REQUEST_DISMISSED: "human_request_dismissed",
  CONVERSATION_SEEN: "conversation_seen",
  CONTACT_FORM_OFFERED: "contact_form_offered",
  CONTACT_FORM_SENT: "contact_form_sent",
  CONVERSATION_ASSIGNED: "conversation_assigned",
  CONVERSATION_STATUS: "conversation_status",
  NOTE_ADDED: "note_added",
  NOTE_DELETED: "note_deleted",
});

/** `role` of an entry of the widget's conversation. */
export const WidgetRole = Object.freeze({
  USER: "user",
  ASSISTANT: "assistant",
  OPERATOR: "operator",
  ANNOUNCEMENT: "announcement",
});

/** An end user's verdict on an answer (`feedback_json.rating`). */
export const Rating = Object.freeze({
  UP: "up",
  DOWN: "down",
});

/** How a conversation went (`answering/turn/outcomes.py`). */
export const ConversationOutcome = Object.freeze({
  RESOLVED: "resolved",
  UNRESOLVED: "unresolved",
  HANDED_OFF: "handed_off",
});

/** Where the team's work on a conversation stands (`chat_session.status`). */
export const ConversationStatus = Object.freeze({
  OPEN: "open",
  PENDING: "pending",
  SNOOZED: "snoozed",
  RESOLVED: "resolved",
});

/** `contact_identity.kind`: what a channel knows a contact by. */
export const IdentityKind = Object.freeze({
  EMAIL: "email",
  PHONE: "phone",
  TELEGRAM: "telegram",
  SLACK: "slack",
  MESSENGER: "messenger",
  INSTAGRAM: "instagram",
  WEBHOOK: "webhook",
  VISITOR: "visitor",
});

/** Why a conversation is unresolved or handed off. */
export const OutcomeReason = Object.freeze({
  VISITOR_ASKED: "visitor_asked",
  NO_ANSWER: "no_answer",
  UNSURE: "unsure",
  THUMBS_DOWN: "thumbs_down",
  FAILED: "failed",
  OPERATOR: "operator",
});

/** Why a question was recorded as unanswered. */
export const UnansweredReason = Object.freeze({
  REFUSED: "refused",
  MODEL_NO_ANSWER: "model_no_answer",
  NO_AGENT: "no_agent",
  LOW_CONFIDENCE: "low_confidence",
  HANDED_OFF: "handed_off",
  THUMBS_DOWN: "thumbs_down",
});

/** An unanswered question's status. */
export const UnansweredStatus = Object.freeze({
  OPEN: "open",
  ANSWERED: "answered",
  DISMISSED: "dismissed",
  ACCEPTED: "accepted",
});

/** A data source's `type`. */
export const SourceType = Object.freeze({
  QA: "qa",
  LINK: "link",
  UPLOAD: "upload",
});

/** A data source's `status` on its way to `success`; a failure is `error:<reason>`. */
export const SourceStatus = Object.freeze({
  QUEUED: "queued",
  DOWNLOADING: "downloading",
  EXTRACTING: "extracting",
  CHUNKING: "chunking",
  EMBEDDING: "embedding",
  SUCCESS: "success",
});

/** How a crawl finds its pages. */
export const CrawlMode = Object.freeze({
  LINKS: "links",
  SITEMAP: "sitemap",
});

/** A crawl's `state`. */
export const CrawlState = Object.freeze({
  QUEUED: "queued",
  RUNNING: "running",
  DONE: "done",
  CANCELLED: "cancelled",
  FAILED: "failed",
});

/** The `state` of a page a crawl found (its `failures` list the failed and skipped ones). */
export const CrawlPageState = Object.freeze({
  PENDING: "pending",
  DONE: "done",
  FAILED: "failed",
  SKIPPED: "skipped",
});

/** A job's `status` (the `botyard_jobs` metric's `state` label). */
export const JobStatus = Object.freeze({
  QUEUED: "queued",
  RUNNING: "running",
  DONE: "done",
  FAILED: "failed",
});

/** A test run's `status`. */
export const TestRunStatus = Object.freeze({
  QUEUED: "queued",
  RUNNING: "running",
  DONE: "done",
  FAILED: "failed",
});

/** A person's role in their account. */
export const Role = Object.freeze({
  OWNER: "owner",
  ADMIN: "admin",
  EDITOR: "editor",
  OPERATOR: "operator",
  VIEWER: "viewer",
});

/** What a role may do (`GET /auth/me` lists the signed-in person's). */
export const Permission = Object.freeze({
  READ: "read",
  SELF: "self",
  CHAT: "chat",
  LIVE: "live",
  KNOWLEDGE: "knowledge",
  MANAGE: "manage",
  ACCESS: "access",
  SETTINGS: "settings",
  OWNERSHIP: "ownership",
});

/** What an audit log event did (`audit_event.action`). */
export const AuditAction = Object.freeze({
  CREATED: "created",
  UPDATED: "updated",
  DELETED: "deleted",
  STARTED: "started",
  CANCELLED: "cancelled",
  REVOKED: "revoked",
  SIGNED_IN: "signed_in",
  SIGNED_OUT: "signed_out",
  SIGNIN_FAILED: "signin_failed",
  PASSWORD_RESET: "password_reset",
  INVITATION_ACCEPTED: "invitation_accepted",
  MERGED: "merged",
  EXPORTED: "exported",
});

/** What kind of object an audit log event is about (`audit_event.object_type`). */
export const AuditObject = Object.freeze({
  CHATBOT: "chatbot",
  SETTING: "setting",
  AGENT: "agent",
  TOOL: "tool",
  SOURCE: "source",
  TAG: "tag",
  CRAWL: "crawl",
  SYNC: "sync",
  QUESTION: "question",
  TEST_SET: "test_set",
  CONVERSATION: "conversation",
  CANNED_REPLY: "canned_reply",
  WEBHOOK: "webhook",
  CHANNEL: "channel",
  KEY: "key",
  MEMBER: "member",
  INVITATION: "invitation",
  SESSION: "session",
  CONTACT: "contact",
});
