"""The words of the audit log (`audit_event.action`, `audit_event.object_type`), apart from `kinds` to keep it
small; `kinds` re-exports them, so the front end's `names.js` mirrors them like every other stored word."""

from __future__ import annotations

from enum import StrEnum


class AuditAction(StrEnum):
    """`audit_event.action`: what was done to the object."""

    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"
    STARTED = "started"
    """A run was started: a crawl, a sync, a test set's run, a webhook's test delivery."""
    CANCELLED = "cancelled"
    REVOKED = "revoked"
    SIGNED_IN = "signed_in"
    SIGNED_OUT = "signed_out"
    SIGNIN_FAILED = "signin_failed"
    PASSWORD_RESET = "password_reset"  # noqa: S105 (a word, not a password)
    INVITATION_ACCEPTED = "invitation_accepted"
    MERGED = "merged"
    """Another object was joined into this one (a contact)."""
    EXPORTED = "exported"
    """Personal data was exported (a contact's, for their right of access)."""


class AuditObject(StrEnum):
    """`audit_event.object_type`: what kind of object the event is about."""

    CHATBOT = "chatbot"
    SETTING = "setting"
    """One of a chatbot's settings groups (answers, widget, office hours, notifications, retention)."""
    AGENT = "agent"
    TOOL = "tool"
    SOURCE = "source"
    TAG = "tag"
    CRAWL = "crawl"
    SYNC = "sync"
    QUESTION = "question"
    """An unanswered question or a reviewed answer."""
    TEST_SET = "test_set"
    CONVERSATION = "conversation"
    CANNED_REPLY = "canned_reply"
    """One of the account's canned replies (what the team inserts with `/shortcut`)."""
    WEBHOOK = "webhook"
    CHANNEL = "channel"
    KEY = "key"
    MEMBER = "member"
    INVITATION = "invitation"
    SESSION = "session"
    """A dashboard sign-in."""
    CONTACT = "contact"
