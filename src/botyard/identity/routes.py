"""What each route of the API needs: the one table of permissions, keyed by method and path.

Every route that reads who signs the request (`deps.CurrentAccount`, `OptionalAccount`, `CurrentPrincipal`) is in
`ROUTES`; every other `/api` route is in `PUBLIC`. `tests/identity/test_permissions.py` derives both sets from the app's
routes, so a new route that declares nothing fails it. At run time a route missing from the table refuses every
person (403 `forbidden_role`); an API key, which acts as an admin, passes as it did before people existed. What each
changing route writes to the audit log is declared beside this table, in `identity/audited.py` (a test fails likewise).
"""

from __future__ import annotations

from botyard.identity.roles import Permission

READ, SELF, CHAT, LIVE = Permission.READ, Permission.SELF, Permission.CHAT, Permission.LIVE
KNOWLEDGE, MANAGE, ACCESS = Permission.KNOWLEDGE, Permission.MANAGE, Permission.ACCESS
SETTINGS = Permission.SETTINGS
V1 = "/api/v1"

_V1_ROUTES: dict[str, Permission] = {
    # chatbots and their settings
    "GET /chatbots": READ,
    "GET /chatbot/{uuid}": READ,
    "POST /chatbot/create": MANAGE,
    "POST /chatbot/{uuid}/update": MANAGE,
    "DELETE /chatbot/{uuid}/delete": MANAGE,
    "GET /chatbot/{uuid}/answer-settings": READ,
    "POST /chatbot/{uuid}/answer-settings": MANAGE,
    "GET /chatbot/{uuid}/widget": READ,
    "POST /chatbot/{uuid}/widget": MANAGE,
    "GET /chatbot/{uuid}/analytics": READ,
    "GET /chatbot/{uuid}/office-hours": READ,
    "POST /chatbot/{uuid}/office-hours": MANAGE,
    "GET /chatbot/{uuid}/notifications": READ,
    "POST /chatbot/{uuid}/notifications": MANAGE,
    "GET /service": READ,
    # the instance's settings (its first account's owner and admins: `service_settings`)
    "GET /service/settings": SETTINGS,
    "POST /service/settings": SETTINGS,
    "POST /service/settings/llm/test": SETTINGS,
    # agents and tool functions
    "GET /chatbot/{uuid}/agents": READ,
    "POST /chatbot/{uuid}/agent/create": KNOWLEDGE,
    "GET /agent/models": READ,
    "GET /agent/model-costs": READ,
    "GET /agent/{uuid}": READ,
    "POST /agent/{uuid}/update": KNOWLEDGE,
    "DELETE /agent/{uuid}/delete": KNOWLEDGE,
    "POST /agent/{uuid}/function/create": KNOWLEDGE,
    "POST /function/{uuid}/update": KNOWLEDGE,
    "POST /function/{uuid}/delete": KNOWLEDGE,
    # knowledge: sources, tags, crawls, syncs
    "POST /chatbot/{uuid}/data-source/qa": KNOWLEDGE,
    "POST /chatbot/{uuid}/data-source/url": KNOWLEDGE,
    "POST /chatbot/{uuid}/data-source/upload": KNOWLEDGE,
    "GET /chatbot/{uuid}/data-sources": READ,
    "GET /data-source/{uuid}": READ,
    "POST /data-source/{uuid}/update": KNOWLEDGE,
    "GET /data-source/{uuid}/chunks": READ,
    "POST /data-source/{uuid}/qa/update": KNOWLEDGE,
    "POST /data-source/{uuid}/delete": KNOWLEDGE,
    "DELETE /data-source/{uuid}/delete": KNOWLEDGE,
    "POST /data-sources/delete": KNOWLEDGE,
    "POST /data-sources/url/re-scrape": KNOWLEDGE,
    "POST /chatbot/{uuid}/source-tag/create": KNOWLEDGE,
    "GET /chatbot/{uuid}/source-tags": READ,
    "GET /source-tag/{uuid}": READ,
    "POST /source-tag/{uuid}/update": KNOWLEDGE,
    "DELETE /source-tag/{uuid}/delete": KNOWLEDGE,
    "POST /chatbot/{uuid}/data-source/crawl": KNOWLEDGE,
    "GET /chatbot/{uuid}/crawls": READ,
    "GET /crawl/{uuid}": READ,
    "POST /crawl/{uuid}/cancel": KNOWLEDGE,
    "GET /chatbot/{uuid}/sync": READ,
    "POST /chatbot/{uuid}/sync": KNOWLEDGE,
    "POST /chatbot/{uuid}/sync/run": KNOWLEDGE,
    "POST /chatbot/{uuid}/retrieve": READ,  # a search: it changes nothing
    # the owner's loop: review, test sets
    "GET /chatbot/{uuid}/unanswered": READ,
    "POST /chatbot/{uuid}/unanswered/answer": KNOWLEDGE,
    "POST /chatbot/{uuid}/unanswered/dismiss": KNOWLEDGE,
    "GET /chatbot/{uuid}/review": READ,
    "POST /chatbot/{uuid}/review/fix": KNOWLEDGE,
    "POST /chatbot/{uuid}/review/accept": KNOWLEDGE,
    "POST /chatbot/{uuid}/test-sets": KNOWLEDGE,
    "POST /chatbot/{uuid}/test-sets/import": KNOWLEDGE,
    "GET /chatbot/{uuid}/test-sets": READ,
    "GET /test-set/{uuid}": READ,
    "GET /test-set/{uuid}/export": READ,
    "POST /test-set/{uuid}/update": KNOWLEDGE,
    "POST /test-set/{uuid}/delete": KNOWLEDGE,
    "POST /test-set/{uuid}/cases": KNOWLEDGE,
    "POST /test-set/{uuid}/run": KNOWLEDGE,
    "GET /test-set/{uuid}/runs": READ,
    "GET /test-run/{uuid}": READ,
    # conversations
    "POST /chatbot/{chatbot_uuid}/session/create": CHAT,
    "POST /session/{uuid}/message/stream": CHAT,
    "POST /session/{uuid}/message/non-stream": CHAT,
    "POST /session-document/upload": CHAT,
    "GET /session/{uuid}": READ,
    "GET /chatbot/{uuid}/sessions": READ,
    "GET /session/{uuid}/messages": READ,
    "GET /session/{uuid}/messages/plain-text": READ,
    "GET /message/{uuid}": READ,
    "GET /chatbot/{uuid}/conversations": READ,
    "GET /chatbot/{uuid}/sessions/export": READ,
    "GET /session/{uuid}/export": READ,
    "GET /chatbot/{uuid}/feedback": READ,
    "GET /chatbot/{uuid}/conversations/retention": READ,
    "POST /chatbot/{uuid}/conversations/retention": MANAGE,
    "POST /session/{uuid}/delete": MANAGE,
    "DELETE /session/{uuid}/delete": MANAGE,
    "POST /message/{uuid}/delete": MANAGE,
    "POST /messages/delete": MANAGE,
    # inbox and live chat
    "GET /chatbot/{uuid}/inbox": READ,
    "GET /inbox/waiting": READ,
    "GET /chatbot/{uuid}/events": READ,
    "POST /session/{uuid}/human-request/dismiss": LIVE,
    "POST /session/{uuid}/seen": LIVE,
    "POST /session/{uuid}/live-chat/start": LIVE,
    "POST /session/{uuid}/live-chat/message": LIVE,
    "POST /session/{uuid}/live-chat/end": LIVE,
    # webhooks
    "POST /chatbot/{uuid}/webhook/create": MANAGE,
    "GET /chatbot/{uuid}/webhooks": READ,
    "GET /webhook/{uuid}": READ,
    "POST /webhook/{uuid}/update": MANAGE,
    "POST /webhook/{uuid}/rotate-secret": MANAGE,
    "DELETE /webhook/{uuid}/delete": MANAGE,
    "POST /webhook/{uuid}/test": MANAGE,
    "GET /webhook/{uuid}/deliveries": READ,
    # channels
    "POST /chatbot/{uuid}/channel/create": MANAGE,
    "GET /chatbot/{uuid}/channels": READ,
    "GET /channel/{uuid}": READ,
    "POST /channel/{uuid}/update": MANAGE,
    "DELETE /channel/{uuid}/delete": MANAGE,
    # the account: keys, members, invitations; one's own session
    "GET /account/api-keys": ACCESS,
    "POST /account/api-key/create": ACCESS,
    "POST /account/api-key/{prefix}/revoke": ACCESS,
    "GET /account/members": ACCESS,
    "POST /account/member/{uuid}/role": ACCESS,
    "POST /account/member/{uuid}/remove": ACCESS,
    "POST /account/member/{uuid}/reset-link": ACCESS,
    "GET /account/invitations": ACCESS,
    "POST /account/invitation/create": ACCESS,
    "POST /account/invitation/{uuid}/withdraw": ACCESS,
    "GET /account/audit": ACCESS,
    "GET /account/audit/export": ACCESS,
    "GET /auth/me": SELF,
    "POST /auth/availability": LIVE,
    "POST /auth/sign-out": SELF,
    "POST /auth/sign-out-everywhere": SELF,
}

ROUTES: dict[str, Permission] = {
    **{f"{key.split(' ', 1)[0]} {V1}{key.split(' ', 1)[1]}": needed for key, needed in _V1_ROUTES.items()},
    "POST /api/data-sources/restart": KNOWLEDGE,
}
"""`"METHOD /path"` (the route's path template, as FastAPI has it) to the permission it needs."""

PUBLIC: frozenset[str] = frozenset(
    {
        f"POST {V1}/setup",
        f"GET {V1}/account/keys",  # 308 to the API keys' one set of endpoints, as the next two
        f"POST {V1}/account/key/create",
        f"POST {V1}/account/key/{{prefix}}/revoke",
        f"POST {V1}/auth/sign-in",
        f"POST {V1}/auth/invitation",
        f"POST {V1}/auth/invitation/accept",
        f"POST {V1}/auth/password-reset",
        f"GET {V1}/auth/oidc",
        f"GET {V1}/auth/oidc/start",
        f"GET {V1}/auth/oidc/callback",
        *(f"{method} {V1}/session/{{uuid}}/message" for method in ("GET", "POST", "PUT", "PATCH", "DELETE")),  # 405
        f"GET {V1}/widget/{{chatbot_uuid}}",
        f"POST {V1}/widget/{{chatbot_uuid}}/session",
        f"GET {V1}/widget/session/{{session_uuid}}/messages",
        f"POST {V1}/widget/session/{{session_uuid}}/message/stream",
        f"POST {V1}/widget/session/{{session_uuid}}/message/{{message_uuid}}/feedback",
        f"GET {V1}/widget/session/{{session_uuid}}/events",
        f"GET {V1}/widget/session/{{session_uuid}}/contact",
        f"POST {V1}/widget/session/{{session_uuid}}/contact",
    }
)
"""The `/api` routes that nobody signs: the setup link, sign-in and the links that open a session, the widget."""


def permission_for(method: str, path: str) -> Permission | None:
    """What a request of `method` to the route `path` needs (HEAD as GET); None when the table does not say."""
    return ROUTES.get(f"{'GET' if method == 'HEAD' else method} {path}")
