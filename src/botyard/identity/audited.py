"""What each changing route of the API writes to the audit log: the second half of `identity/routes.py`'s table.

Every `POST`, `PUT`, `PATCH` and `DELETE` route of `routes.ROUTES` is here, with what it does to which kind of object
(`Audited`) or `None` where it changes nothing an owner audits: conversations themselves (chat, documents, live chat)
and searches. `tests/identity/test_audit_declarations.py` fails when a changing route is missing, so a new route must
say what it audits. The audit log's recorder (`botyard.audit.recorder`) writes one event for each successful (2xx)
request of a declared route, after the change; sign-in and the links that open a session record their own events.
"""

from __future__ import annotations

from dataclasses import dataclass

from botyard.models.audit_kinds import AuditAction, AuditObject

CREATED, UPDATED, DELETED = AuditAction.CREATED, AuditAction.UPDATED, AuditAction.DELETED
STARTED, CANCELLED, REVOKED = AuditAction.STARTED, AuditAction.CANCELLED, AuditAction.REVOKED
V1 = "/api/v1"


@dataclass(frozen=True)
class Also:
    """Objects a route changes besides its own, named by a list of ids in the reply's `field` (when there): one
    event each, `action` to an object of `object_type`, by the same actor."""

    field: str
    object_type: AuditObject
    action: AuditAction
    note: str = ""


@dataclass(frozen=True)
class Audited:
    """What a route does: `action` to an object of `object_type`. The object's id is the reply's `uuid` (or
    `prefix`) where `from_reply` (what a creation made), else the route's path parameter; `note` adds to the
    summary what the action alone does not say; `also`: what else it changed."""

    object_type: AuditObject
    action: AuditAction
    note: str = ""
    from_reply: bool = False
    also: Also | None = None


def _made(object_type: AuditObject, note: str = "", action: AuditAction = CREATED) -> Audited:
    return Audited(object_type, action, note, from_reply=True)


Obj = AuditObject
_V1: dict[str, Audited | None] = {
    "POST /service/settings": Audited(Obj.SETTING, UPDATED, "service settings"),
    "POST /service/settings/llm/test": None,  # sends the model one prompt; changes nothing
    "POST /chatbot/create": _made(Obj.CHATBOT),
    "POST /chatbot/{uuid}/update": Audited(Obj.CHATBOT, UPDATED),
    "DELETE /chatbot/{uuid}/delete": Audited(Obj.CHATBOT, DELETED),
    "POST /chatbot/{uuid}/answer-settings": Audited(Obj.SETTING, UPDATED, "answer settings"),
    "POST /chatbot/{uuid}/widget": Audited(Obj.SETTING, UPDATED, "widget"),
    "POST /chatbot/{uuid}/office-hours": Audited(Obj.SETTING, UPDATED, "office hours"),
    "POST /chatbot/{uuid}/notifications": Audited(Obj.SETTING, UPDATED, "notifications"),
    "POST /chatbot/{uuid}/agent/create": _made(Obj.AGENT),
    "POST /agent/{uuid}/update": Audited(Obj.AGENT, UPDATED),
    "DELETE /agent/{uuid}/delete": Audited(Obj.AGENT, DELETED),
    "POST /agent/{uuid}/function/create": _made(Obj.TOOL),
    "POST /function/{uuid}/update": Audited(Obj.TOOL, UPDATED),
    "POST /function/{uuid}/delete": Audited(Obj.TOOL, DELETED),
    "POST /chatbot/{uuid}/data-source/qa": _made(Obj.SOURCE, "Q&A"),
    "POST /chatbot/{uuid}/data-source/url": _made(Obj.SOURCE, "link"),
    "POST /chatbot/{uuid}/data-source/upload": _made(Obj.SOURCE, "upload"),
    "POST /data-source/{uuid}/update": Audited(Obj.SOURCE, UPDATED),
    "POST /data-source/{uuid}/qa/update": Audited(Obj.SOURCE, UPDATED, "Q&A"),
    "POST /data-source/{uuid}/delete": Audited(Obj.SOURCE, DELETED),
    "DELETE /data-source/{uuid}/delete": Audited(Obj.SOURCE, DELETED),
    "POST /data-sources/delete": Audited(Obj.SOURCE, DELETED, "several"),
    "POST /data-sources/url/re-scrape": Audited(Obj.SOURCE, UPDATED, "re-scrape"),
    "POST /chatbot/{uuid}/source-tag/create": _made(Obj.TAG),
    "POST /source-tag/{uuid}/update": Audited(Obj.TAG, UPDATED),
    "DELETE /source-tag/{uuid}/delete": Audited(Obj.TAG, DELETED),
    "POST /chatbot/{uuid}/data-source/crawl": _made(Obj.CRAWL, action=STARTED),
    "POST /crawl/{uuid}/cancel": Audited(Obj.CRAWL, CANCELLED),
    "POST /chatbot/{uuid}/sync": Audited(Obj.SYNC, UPDATED, "schedule"),
    "POST /chatbot/{uuid}/sync/run": Audited(Obj.SYNC, STARTED),
    "POST /chatbot/{uuid}/retrieve": None,  # a search
    "POST /chatbot/{uuid}/unanswered/answer": Audited(Obj.QUESTION, UPDATED, "answered"),
    "POST /chatbot/{uuid}/unanswered/dismiss": Audited(Obj.QUESTION, UPDATED, "dismissed"),
    "POST /chatbot/{uuid}/review/fix": Audited(Obj.QUESTION, UPDATED, "answer fixed"),
    "POST /chatbot/{uuid}/review/accept": Audited(Obj.QUESTION, UPDATED, "answer accepted"),
    "POST /chatbot/{uuid}/test-sets": _made(Obj.TEST_SET),
    "POST /chatbot/{uuid}/test-sets/import": _made(Obj.TEST_SET, "imported"),
    "POST /test-set/{uuid}/update": Audited(Obj.TEST_SET, UPDATED),
    "POST /test-set/{uuid}/delete": Audited(Obj.TEST_SET, DELETED),
    "POST /test-set/{uuid}/cases": Audited(Obj.TEST_SET, UPDATED, "case added"),
    "POST /test-set/{uuid}/run": Audited(Obj.TEST_SET, STARTED, "run"),
    # conversations themselves are not management changes: chatting, documents, live chat
    "POST /chatbot/{chatbot_uuid}/session/create": None,
    "POST /session/{uuid}/message/stream": None,
    "POST /session/{uuid}/message/non-stream": None,
    "POST /session-document/upload": None,
    "POST /session/{uuid}/human-request/dismiss": None,
    "POST /session/{uuid}/seen": None,
    "POST /session/{uuid}/live-chat/start": None,
    "POST /session/{uuid}/live-chat/message": None,
    "POST /session/{uuid}/live-chat/end": None,
    "POST /chatbot/{uuid}/conversations/retention": Audited(Obj.SETTING, UPDATED, "conversation retention"),
    "POST /session/{uuid}/delete": Audited(Obj.CONVERSATION, DELETED),
    "DELETE /session/{uuid}/delete": Audited(Obj.CONVERSATION, DELETED),
    "POST /message/{uuid}/delete": Audited(Obj.CONVERSATION, UPDATED, "message deleted"),
    "POST /messages/delete": Audited(Obj.CONVERSATION, UPDATED, "messages deleted"),
    "POST /chatbot/{uuid}/webhook/create": _made(Obj.WEBHOOK),
    "POST /webhook/{uuid}/update": Audited(Obj.WEBHOOK, UPDATED),
    "POST /webhook/{uuid}/rotate-secret": Audited(Obj.WEBHOOK, UPDATED, "secret rotated"),
    "DELETE /webhook/{uuid}/delete": Audited(Obj.WEBHOOK, DELETED),
    "POST /webhook/{uuid}/test": Audited(Obj.WEBHOOK, STARTED, "test delivery"),
    "POST /chatbot/{uuid}/channel/create": _made(Obj.CHANNEL),
    "POST /channel/{uuid}/update": Audited(Obj.CHANNEL, UPDATED),
    "DELETE /channel/{uuid}/delete": Audited(Obj.CHANNEL, DELETED),
    "POST /account/api-key/create": _made(Obj.KEY),
    "POST /account/api-key/{prefix}/revoke": Audited(Obj.KEY, REVOKED),
    "POST /account/member/{uuid}/role": Audited(Obj.MEMBER, UPDATED, "role"),
    "POST /account/member/{uuid}/remove": Audited(
        Obj.MEMBER, DELETED, also=Also("revoked_keys", Obj.KEY, REVOKED, "made by the member removed")
    ),
    "POST /account/member/{uuid}/reset-link": Audited(Obj.MEMBER, UPDATED, "password reset link issued"),
    "POST /account/invitation/create": _made(Obj.INVITATION),
    "POST /account/invitation/{uuid}/withdraw": Audited(Obj.INVITATION, DELETED),
    "POST /auth/availability": None,  # an operator's presence, as live chat: not a change to the account
    "POST /auth/sign-out": Audited(Obj.SESSION, AuditAction.SIGNED_OUT),
    "POST /auth/sign-out-everywhere": Audited(Obj.SESSION, AuditAction.SIGNED_OUT, "everywhere"),
}

AUDITED: dict[str, Audited | None] = {
    **{f"{key.split(' ', 1)[0]} {V1}{key.split(' ', 1)[1]}": audited for key, audited in _V1.items()},
    "POST /api/data-sources/restart": Audited(Obj.SOURCE, UPDATED, "restarted"),
}
"""`"METHOD /path"` (as in `routes.ROUTES`) of every changing route to what it audits; None: nothing."""


def audited_for(method: str, path: str) -> Audited | None:
    """What a successful request of `method` to the route `path` records; None when nothing."""
    return AUDITED.get(f"{method} {path}")
