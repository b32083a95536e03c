"""Meta's Graph API on loopback, written from Meta's documentation (WhatsApp Cloud API, Messenger Platform), not from
the service's code: `GET /v23.0/{id}` and `POST /v23.0/{phone_number_id}/messages` (WhatsApp) or
`POST /v23.0/me/messages` (Messenger, Instagram), with the access token as `Authorization: Bearer`; errors in Meta's
shape, `{"error": {"message", "type", "code", "error_subcode", "fbtrace_id"}}`.

It knows its tokens (`WA_TOKEN`, `PAGE_TOKEN`, `IG_TOKEN`; others: 401, code 190) and checks messages as Meta does:
WhatsApp texts of at most 4,096 characters, up to 3 reply buttons (titles of 1 to 20 characters) or a list of up to
10 rows (24), templates with a name and a language; Messenger texts of at most 2,000 characters (Instagram 1,000),
up to 13 quick replies (20). A recipient whose 24-hour window it knows closed (`close_window`) gets WhatsApp's 131047
for anything but a template, Messenger's (#10) 2018278 for a `RESPONSE`. A test scripts the next answers to messages
(`fail_next`). It builds the webhook deliveries Meta sends, signed with the app secret (`signed`).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

APP_SECRET = "0f3c5b9e-test-app-secret"
WA_TOKEN = "EAAGwa-TEST-system-user-token"
PAGE_TOKEN = "EAAGpage-TEST-page-token"
IG_TOKEN = "EAAGig-TEST-page-token-of-instagram"
PHONE_NUMBER_ID = "106540352242922"
OTHER_PHONE_NUMBER_ID = "106540352242999"
PAGE_ID = "110200300400500"
IG_ACCOUNT_ID = "17841400000000001"
VERSION = "v23.0"
MESSENGER_LIMITS = {PAGE_TOKEN: 2000, IG_TOKEN: 1000}


def error(status: int, message: str, code: int, kind: str = "OAuthException", subcode: int | None = None) -> Any:
    body: dict[str, Any] = {"message": message, "type": kind, "code": code, "fbtrace_id": "AbCdEfGhIjK"}
    if subcode is not None:
        body["error_subcode"] = subcode
    return status, {"error": body}


WINDOW_CLOSED = error(
    400, "Re-engagement message", 131047, subcode=None
)  # WhatsApp: more than 24 hours since the customer's last message
MESSENGER_WINDOW = error(400, "(#10) This message is sent outside of allowed window.", 10, subcode=2018278)
THROTTLED = error(400, "(#130429) Rate limit hit", 130429)
TROUBLE = error(500, "An unexpected error has occurred. Please retry your request later.", 2, kind="OAuthException")


@dataclass
class _State:
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    """Each message Meta took (a WhatsApp or Messenger body), with `id` added."""
    closed: set[str] = field(default_factory=set)
    failures: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: _State) -> None:
        self.state = state
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _token(self) -> str:
        return self.headers.get("Authorization", "").removeprefix("Bearer ")

    def do_GET(self) -> None:
        where = urlsplit(self.path).path.strip("/").split("/")
        with self.server.state.lock:
            self.server.state.calls.append(("GET", self.path, {}))
        token = self._token()
        if token not in (WA_TOKEN, PAGE_TOKEN, IG_TOKEN):
            self._answer(*error(401, "Invalid OAuth access token - Cannot parse access token", 190))
        elif where == [VERSION, PHONE_NUMBER_ID] and token == WA_TOKEN:
            self._answer(200, {"display_phone_number": "+1 555-010-0000", "verified_name": "Shop", "id": where[1]})
        elif (where == [VERSION, "me"] and token == PAGE_TOKEN) or (where == [VERSION, "me"] and token == IG_TOKEN):
            self._answer(200, {"id": PAGE_ID, "name": "Shop page"})
        else:
            self._answer(*error(400, "Unsupported get request. Object does not exist", 100, "GraphMethodException", 33))

    def do_POST(self) -> None:
        where = urlsplit(self.path).path.strip("/").split("/")
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        state, token = self.server.state, self._token()
        with state.lock:
            state.calls.append(("POST", self.path, body))
            if token not in (WA_TOKEN, PAGE_TOKEN, IG_TOKEN):
                self._answer(*error(401, "Invalid OAuth access token - Cannot parse access token", 190))
                return
            sending = "status" not in body and "sender_action" not in body
            if sending and state.failures:
                self._answer(*state.failures.pop(0))
                return
            if where == [VERSION, PHONE_NUMBER_ID, "messages"] and token == WA_TOKEN:
                self._answer(*_whatsapp(body, state))
            elif where == [VERSION, "me", "messages"] and token in MESSENGER_LIMITS:
                self._answer(*_messenger(body, state, MESSENGER_LIMITS[token]))
            else:
                self._answer(*error(400, "Unsupported post request.", 100, "GraphMethodException", 33))

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)


def _invalid(message: str) -> tuple[int, dict[str, Any]]:
    result: tuple[int, dict[str, Any]] = error(400, f"(#100) {message}", 100)
    return result


def _whatsapp(body: dict[str, Any], state: _State) -> tuple[int, dict[str, Any]]:
    if body.get("messaging_product") != "whatsapp":
        return _invalid("The parameter messaging_product is required.")
    if body.get("status") == "read":
        return 200, {"success": True}
    to, kind = str(body.get("to", "")), body.get("type")
    problem = _whatsapp_problem(body, kind)
    if problem:
        return _invalid(problem)
    if to in state.closed and kind != "template":
        result: tuple[int, dict[str, Any]] = WINDOW_CLOSED
        return result
    wamid = f"wamid.TEST{len(state.sent) + 1:08d}"
    state.sent.append({**body, "id": wamid})
    return 200, {"messaging_product": "whatsapp", "contacts": [{"input": to, "wa_id": to}], "messages": [{"id": wamid}]}


def _whatsapp_problem(body: dict[str, Any], kind: Any) -> str:
    if not str(body.get("to", "")).lstrip("+").isdigit():
        return "Invalid parameter: to"
    if kind == "text":
        text = body.get("text", {}).get("body", "")
        return "" if 1 <= len(text) <= 4096 else "Param text['body'] must be at most 4096 characters long."
    if kind == "interactive":
        interactive = body.get("interactive", {})
        action = interactive.get("action", {})
        if interactive.get("type") == "button":
            buttons = action.get("buttons", [])
            fine = 1 <= len(buttons) <= 3 and all(1 <= len(b["reply"]["title"]) <= 20 for b in buttons)
            return "" if fine else "Param interactive['action']['buttons'] is invalid."
        if interactive.get("type") == "list":
            rows = [row for section in action.get("sections", []) for row in section.get("rows", [])]
            fine = 1 <= len(rows) <= 10 and all(1 <= len(row["title"]) <= 24 for row in rows)
            return "" if fine and action.get("button") else "Param interactive['action']['sections'] is invalid."
        return "Invalid interactive type"
    if kind == "template":
        template = body.get("template", {})
        return "" if template.get("name") and template.get("language", {}).get("code") else "template is invalid"
    if kind in ("image", "document"):
        return "" if str(body.get(kind, {}).get("link", "")).startswith("https://") else "link is invalid"
    return "Unsupported message type"


def _messenger(body: dict[str, Any], state: _State, limit: int) -> tuple[int, dict[str, Any]]:
    recipient = str(body.get("recipient", {}).get("id", ""))
    if not recipient:
        return _invalid("param recipient must be non-empty.")
    if "sender_action" in body:
        return 200, {"recipient_id": recipient}
    message = body.get("message", {})
    text, quick = str(message.get("text", "")), message.get("quick_replies", [])
    attachment = message.get("attachment")
    if isinstance(attachment, dict):
        if attachment.get("type") not in ("image", "file") or not str(attachment["payload"]["url"]).startswith("https"):
            return _invalid("param message[attachment] is invalid")
    elif not 1 <= len(text) <= limit:
        return _invalid(f"Length of param message[text] must be less than or equal to {limit}")
    if len(quick) > 13 or any(not 1 <= len(reply.get("title", "")) <= 20 for reply in quick):
        return _invalid("param message[quick_replies] is invalid")
    tagged = body.get("messaging_type") == "MESSAGE_TAG" and body.get("tag") == "HUMAN_AGENT"
    if recipient in state.closed and not tagged:
        result: tuple[int, dict[str, Any]] = MESSENGER_WINDOW
        return result
    mid = f"m_TEST{len(state.sent) + 1:08d}"
    state.sent.append({**body, "id": mid})
    return 200, {"recipient_id": recipient, "message_id": mid}


class GraphApi:
    def __init__(self) -> None:
        self.state = _State()
        self._server = _Server(self.state)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def sent(self) -> list[dict[str, Any]]:
        with self.state.lock:
            return list(self.state.sent)

    def posts(self) -> list[dict[str, Any]]:
        """Every POST body, in order (messages, read marks, sender actions)."""
        with self.state.lock:
            return [body for method, _, body in self.state.calls if method == "POST"]

    def gets(self) -> list[str]:
        with self.state.lock:
            return [path for method, path, _ in self.state.calls if method == "GET"]

    def close_window(self, recipient: str) -> None:
        with self.state.lock:
            self.state.closed.add(recipient)

    def fail_next(self, *answers: tuple[int, dict[str, Any]]) -> None:
        with self.state.lock:
            self.state.failures[:] = list(answers)


@contextmanager
def graph_api() -> Iterator[GraphApi]:
    running = GraphApi()
    try:
        yield running
    finally:
        running.close()


def signed(body: bytes, secret: str = APP_SECRET) -> dict[str, str]:
    """The headers of Meta's webhook POST: `X-Hub-Signature-256`, computed as Meta documents it."""
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {"X-Hub-Signature-256": f"sha256={digest}", "Content-Type": "application/json"}


def wa_text(wamid: str, wa_id: str, text: str, timestamp: int = 1764680000) -> dict[str, Any]:
    return {"from": wa_id, "id": wamid, "timestamp": str(timestamp), "type": "text", "text": {"body": text}}


def wa_pressed(wamid: str, wa_id: str, token: str, title: str, kind: str = "button_reply") -> dict[str, Any]:
    reply = {"id": token, "title": title}
    return {"from": wa_id, "id": wamid, "timestamp": "1764680000", "type": "interactive",
            "interactive": {"type": kind, kind: reply}}  # fmt: skip


def wa_status(wamid: str, status: str, recipient: str, errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"id": wamid, "status": status, "timestamp": "1764680100", "recipient_id": recipient}
    if errors:
        found["errors"] = errors
    return found


def whatsapp_delivery(
    messages: list[dict[str, Any]] = (),  # type: ignore[assignment]
    statuses: list[dict[str, Any]] = (),  # type: ignore[assignment]
    *,
    names: dict[str, str] | None = None,
    phone_number_id: str = PHONE_NUMBER_ID,
) -> dict[str, Any]:
    """A WhatsApp webhook POST as Meta sends one: one change of the `messages` field carrying them all."""
    value: dict[str, Any] = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550100000", "phone_number_id": phone_number_id},
    }
    if messages:
        senders = {message["from"] for message in messages}
        value["contacts"] = [{"profile": {"name": (names or {}).get(s, "Ada")}, "wa_id": s} for s in senders]
        value["messages"] = list(messages)
    if statuses:
        value["statuses"] = list(statuses)
    change = {"value": value, "field": "messages"}
    return {"object": "whatsapp_business_account", "entry": [{"id": "102290129340398", "changes": [change]}]}


def messaging_delivery(obj: str, account_id: str, *events: dict[str, Any]) -> dict[str, Any]:
    """A Messenger (`page`) or Instagram (`instagram`) webhook POST as Meta sends one."""
    return {"object": obj, "entry": [{"id": account_id, "time": 1764680000000, "messaging": list(events)}]}


def m_text(mid: str, sender: str, account_id: str, text: str, **message: Any) -> dict[str, Any]:
    return {"sender": {"id": sender}, "recipient": {"id": account_id}, "timestamp": 1764680000000,
            "message": {"mid": mid, "text": text, **message}}  # fmt: skip
