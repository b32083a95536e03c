"""The audit log's recorder: ASGI middleware that writes one event for every successful (2xx) change made through
the API by a signed-in person or an API key, as its route declares it where it is defined (`identity/access.py`).

It sits inside the body guard, where the router's choice of route (`scope["route"]`) and the signer that
`deps` found (`scope["state"]["principal"]`) are visible. The request's own transaction has committed by the time
the reply starts (`deps.DbSession`); the recorder holds the reply, writes the event in a brief transaction of its
own, then sends the reply: a client that reads the log after its change finds the change there. Only a declared
route's reply is held and read (a small JSON reply, for the new object's `uuid` and its name); every other request
passes straight through, conversations and answers included. A failure to write the event is logged, and the reply
still goes out: the change it records has already been made.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from botyard.audit.service import AuditLog, Origin, event_of
from botyard.client_address import Network, client_address, trusted_networks
from botyard.config import Settings
from botyard.identity.access import Audited, audited_of
from botyard.identity.principal import Principal
from botyard.identity.recording import Change
from botyard.models import AuditObject

log = logging.getLogger(__name__)

CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
REPLY_BYTES = 256 * 1024
"""A reply longer than this is not read for the object's id and name (none of a creation's is near it)."""
_LABELS = ("email", "name", "title")
"""The reply's fields a summary may name the object by (never a key, a secret, a link or a URL)."""
_PATH_IDS = ("uuid", "prefix", "chatbot_uuid")


class AuditTrail:
    def __init__(self, app: ASGIApp, settings: Settings, audit_log: AuditLog) -> None:
        self.app = app
        self.trusted = trusted_networks(settings.trusted_proxies)
        self.audit_log = audit_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in CHANGING or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        held: list[Message] = []
        audited: Audited | None = None
        principal: Principal | None = None

        async def holding_send(message: Message) -> None:
            nonlocal audited, principal
            if message["type"] == "http.response.start":
                principal = scope.get("state", {}).get("principal")
                ok = 200 <= message["status"] < 300 and isinstance(principal, Principal)
                audited = audited_of(scope.get("route")) if ok else None
            if audited is None or principal is None:
                await send(message)
                return
            held.append(message)
            if message["type"] == "http.response.body":
                # A reply in one piece (JSON) is read; a streamed one is recorded at its first piece and let through.
                await self._record(scope, principal, audited, held)
                for kept in held:
                    await send(kept)
                held.clear()
                audited = None

        await self.app(scope, receive, holding_send)

    async def _record(self, scope: Scope, principal: Principal, audited: Audited, held: list[Message]) -> None:
        try:
            app = scope["app"]
            reply = _reply(held)
            change = _change(audited, scope.get("path_params", {}), reply)
            if audited.object_type == AuditObject.SESSION and principal.user_uuid:
                change = replace(change, object_uuid=principal.user_uuid)  # a sign-out: whose, as a sign-in says
            origin, at = self._origin(scope), app.state.clock()
            for each in [change, *_also(audited, reply)]:
                await self.audit_log.record(app.state.database, event_of(principal, each, origin, at))
        except Exception:  # the change is made; its reply goes out whatever happens to its record
            log.exception("writing the audit log's event of %s %s failed", scope["method"], scope["path"])

    def _origin(self, scope: Scope) -> Origin:
        return origin_of(scope, self.trusted)


def origin_of(scope: Scope, trusted: Sequence[Network]) -> Origin:
    """Where the request came from: its client's address (through the trusted proxies) and its user agent."""
    headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
    peer = scope["client"][0] if scope.get("client") else None
    address = client_address(peer, headers.get("x-forwarded-for"), trusted)
    return Origin(address=address, user_agent=headers.get("user-agent", ""))


async def note(
    request: Request, principal: Principal, change: Change, db: AsyncSession | None = None, *, proven: bool = True
) -> None:
    """Record an event a route writes itself (sign-in and the links that open a session): in the transaction `db`
    with the change, or else in a brief one of its own. Not `proven`: the actor only claimed to be the person (a
    wrong password), so the event names them without their role."""
    state = request.app.state
    settings: Settings = state.settings
    origin = origin_of(request.scope, trusted_networks(settings.trusted_proxies))
    event = event_of(principal, change, origin, state.clock())
    if not proven:
        event.role = ""
    audit_log: AuditLog = state.audit_log
    if db is not None:
        await audit_log.add(db, event)
    else:
        await audit_log.record(state.database, event)


def _reply(held: list[Message]) -> dict[str, Any]:
    body = b"".join(message.get("body", b"") for message in held if message["type"] == "http.response.body")
    if len(body) > REPLY_BYTES or held[-1].get("more_body", False):
        return {}
    try:
        reply = json.loads(body)
    except ValueError:
        return {}
    return reply if isinstance(reply, dict) else {}


def _also(audited: Audited, reply: dict[str, Any]) -> list[Change]:
    """The events of the other objects the route changed, which its reply lists (a removed member's keys)."""
    also = audited.also
    named = reply.get(also.field) if also is not None else None
    if also is None or not isinstance(named, list):
        return []
    summary = f"{also.object_type.value.replace('_', ' ')} {also.action.value.replace('_', ' ')}"
    summary += f" ({also.note})" if also.note else ""
    return [Change(also.action, also.object_type, str(uuid), f"{summary}: {uuid}") for uuid in named]


def _change(audited: Audited, path_params: dict[str, Any], reply: dict[str, Any]) -> Change:
    """The event's object and summary: `<object type> <action> (<note>): <the object's name>`."""
    if audited.from_reply:
        object_uuid = str(reply.get("uuid") or reply.get("prefix") or "")
    else:
        object_uuid = next((str(path_params[key]) for key in _PATH_IDS if key in path_params), "")
    label = next((str(reply[key]) for key in _LABELS if isinstance(reply.get(key), str) and reply[key]), "")
    summary = f"{audited.object_type.value.replace('_', ' ')} {audited.action.value.replace('_', ' ')}"
    summary += f" ({audited.note})" if audited.note else ""
    summary += f": {label}" if label else ""
    if isinstance(reply.get("role"), str) and audited.object_type in (AuditObject.MEMBER, AuditObject.INVITATION):
        summary += f" as {reply['role']}"
    return Change(audited.action, audited.object_type, object_uuid, summary)
