"""A Telegram Bot API server on loopback, written from Telegram's documentation (https://core.telegram.org/bots/api),
not from the service's code: `POST /bot<token>/<method>` with a JSON body, answered `{"ok": true, "result": ...}` or
`{"ok": false, "error_code", "description", "parameters": {"retry_after"}}`.

It knows its bot tokens (`TOKEN`, `OTHER_TOKEN`, and `bot_token(n)` for a test that needs many bots; others: 401
Unauthorized), records what it is asked, and checks messages as Telegram does:
at most 4,096 characters of text once the entities are parsed, and in `parse_mode: HTML` only Telegram's tags
(`b strong i em u ins s strike del span tg-spoiler a code pre blockquote tg-emoji`), properly nested, with `&lt;`,
`&gt;`, `&amp;` and `&quot;` the only entities; anything else is 400 "can't parse entities"; a `chat_id` that is
neither an integer nor `@username` is 400 "chat not found" (any integer is a chat here). A message's `reply_markup`
`inline_keyboard` is checked as Telegram does (rows of buttons with a `text`, each `callback_data` 1 to 64 bytes:
else 400 BUTTON_DATA_INVALID). `answerCallbackQuery` answers a query once (again: 400 "query is too old"). A test
scripts the next answers to `sendMessage` (`fail_next`): a 429 with `retry_after`, a 500, a network-level drop. It
can go down (`down`: the port stays its own but refuses every connection, as a host whose server stopped) and come
back on the same port (`up`), and calls a test's hook the moment it gives updates to a poller, before the poller can
read them (`on_given`); they stay given (unconfirmed: Telegram gives them again to the next `getUpdates`).
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

TOKEN = "123456:TEST-token-for-the-fake-bot-api"
OTHER_TOKEN = "654321:TEST-token-of-another-bot"
TOKENS = frozenset({TOKEN, OTHER_TOKEN})
MANY = re.compile(r"[1-9][0-9]*:TEST-bot-[0-9]+")


def bot_token(number: int) -> str:
    """The token of the fake's bot `number` (one of as many as a test needs)."""
    return f"{700000 + number}:TEST-bot-{number}"


ALLOWED_TAGS = frozenset(
    "b strong i em u ins s strike del span tg-spoiler a code pre blockquote tg-emoji".split()  # noqa: SIM905
)
ENTITIES = ("&lt;", "&gt;", "&amp;", "&quot;")


@dataclass
class Sent:
    chat_id: str
    text: str
    """What the user reads (the HTML's text, its entities resolved)."""
    parse_mode: str | None
    keyboard: list[list[dict[str, Any]]] = field(default_factory=list)
    """The message's inline keyboard, as sent: rows of buttons (`text`, `callback_data`)."""


@dataclass
class _State:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    failures: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    webhook: dict[str, Any] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)
    """Updates waiting for `getUpdates` (a webhook, when set, would get them instead: then it is a 409)."""
    polling: int = 0
    """`getUpdates` calls under way: a second one at the same time is Telegram's 409 Conflict."""
    conflicts: int = 0
    given: list[int] = field(default_factory=list)
    """The `update_id`s `getUpdates` answered with, in order (a repeat after a lost answer appears again)."""
    on_given: Callable[[list[int]], None] | None = None
    """Called (in the server's thread) right after an answer carrying updates was written to the poller."""
    answered: list[str] = field(default_factory=list)
    """The callback queries answered, in order."""
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Text(HTMLParser):
    """Telegram's HTML parse: the visible text, or ValueError where Telegram refuses the markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            raise ValueError(f'can\'t parse entities: Unsupported start tag "{tag}"')
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open.pop() != tag:
            raise ValueError(f'can\'t parse entities: Unmatched end tag "{tag}"')

    def handle_data(self, data: str) -> None:
        if "<" in data or ">" in data:
            raise ValueError("can't parse entities: unexpected character")
        self.text.append(data)

    def handle_entityref(self, name: str) -> None:
        if f"&{name};" not in ENTITIES:
            raise ValueError(f'can\'t parse entities: Unsupported entity "{name}"')
        self.text.append(html.unescape(f"&{name};"))

    def handle_charref(self, name: str) -> None:
        self.text.append(html.unescape(f"&#{name};"))


def visible_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    if parser.open:
        raise ValueError(f"can't parse entities: Can't find end tag corresponding to start tag \"{parser.open[-1]}\"")
    return "".join(parser.text)


def _a_chat(chat_id: Any) -> bool:
    """Whether `chat_id` names a chat as Telegram takes one: an integer (as a number or a string), or `@username`."""
    text = str(chat_id)
    return text.startswith("@") or text.removeprefix("-").isdigit()


def _keyboard(markup: Any) -> list[list[dict[str, Any]]]:
    """An `InlineKeyboardMarkup`'s rows, or ValueError as Telegram words its refusal."""
    if markup is None:
        return []
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise ValueError('field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays')
    for button in (button for row in rows for button in row):
        if not isinstance(button, dict) or not str(button.get("text", "")).strip():
            raise ValueError("can't parse inline keyboard button: the text must be non-empty")
        if not 1 <= len(str(button.get("callback_data", "")).encode()) <= 64:
            raise ValueError("BUTTON_DATA_INVALID")
    return rows


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: _State, port: int = 0) -> None:
        self.state = state
        super().__init__(("127.0.0.1", port), _Handler)

    def server_bind(self) -> None:
        # Shared with the socket that holds the port while the server is down (`TelegramApi.down`).
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        super().server_bind()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        token, _, method = self.path.removeprefix("/bot").partition("/")
        state = self.server.state
        with state.lock:
            state.calls.append((method, body))
            if token not in TOKENS and not MANY.fullmatch(token):
                self._answer(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
                return
            if method == "sendMessage" and state.failures:
                status, answer = state.failures.pop(0)
                self._answer(status, answer)
                return
            if method == "getUpdates":
                if state.polling or state.webhook.get("url"):
                    state.conflicts += 1
                    why = (
                        "terminated by other getUpdates request"
                        if state.polling
                        else "can't use getUpdates method while webhook is active"
                    )
                    self._answer(409, {"ok": False, "error_code": 409, "description": f"Conflict: {why}"})
                    return
                state.polling += 1
        if method == "getUpdates":
            given = self._updates(body)
            if given:  # the hook first: a poller it kills has read nothing (after the answer, a busy machine let a
                self._given([update["update_id"] for update in given])  # poller answer them before it was killed)
            self._answer(200, {"ok": True, "result": given})
            return
        with state.lock:
            self._answer(*self._result(method, body, state))

    def _updates(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Long polling: drop what `offset` confirms, then wait up to `timeout` s for something to give."""
        state, offset = self.server.state, int(body.get("offset", 0))
        deadline = time.monotonic() + float(body.get("timeout", 0))
        try:
            while True:
                with state.lock:
                    state.updates = [update for update in state.updates if update["update_id"] >= offset]
                    if state.updates or time.monotonic() >= deadline:
                        return list(state.updates)
                time.sleep(0.02)
        finally:
            with state.lock:
                state.polling -= 1

    def _given(self, ids: list[int]) -> None:
        with self.server.state.lock:
            self.server.state.given.extend(ids)
            hook = self.server.state.on_given
        if hook is not None:
            hook(ids)

    def _result(self, method: str, body: dict[str, Any], state: _State) -> tuple[int, dict[str, Any]]:
        if method == "getMe":
            return 200, {"ok": True, "result": {"id": 123456, "is_bot": True, "username": "botyard_test_bot"}}
        if method == "setWebhook":
            state.webhook = dict(body)
            return 200, {"ok": True, "result": True, "description": "Webhook was set"}
        if method == "deleteWebhook":
            state.webhook = {}
            return 200, {"ok": True, "result": True, "description": "Webhook was set"}
        if method == "sendChatAction":
            return 200, {"ok": True, "result": True}
        if method == "sendMessage":
            if not _a_chat(body.get("chat_id")):
                return 400, {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"}
            mode = body.get("parse_mode")
            try:
                text = visible_text(body["text"]) if mode == "HTML" else body["text"]
                keyboard = _keyboard(body.get("reply_markup"))
            except ValueError as error:
                return 400, {"ok": False, "error_code": 400, "description": f"Bad Request: {error}"}
            if len(text) > 4096:
                return 400, {"ok": False, "error_code": 400, "description": "Bad Request: message is too long"}
            state.sent.append(Sent(str(body["chat_id"]), text, mode, keyboard))
            return 200, {"ok": True, "result": {"message_id": len(state.sent), "text": text}}
        if method == "answerCallbackQuery":
            if body.get("callback_query_id") in state.answered:
                too_old = "Bad Request: query is too old and response timeout expired or query ID is invalid"
                return 400, {"ok": False, "error_code": 400, "description": too_old}
            state.answered.append(str(body.get("callback_query_id")))
            return 200, {"ok": True, "result": True}
        return 404, {"ok": False, "error_code": 404, "description": "Not Found"}

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the caller left (stopped or killed)
            self.wfile.write(data)


class TelegramApi:
    def __init__(self) -> None:
        self._state = _State()
        self._server = _Server(self._state)
        self.port: int = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = self._serve(self._server)
        self._holder: socket.socket | None = None

    @staticmethod
    def _serve(server: _Server) -> threading.Thread:
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        return thread

    def down(self) -> None:
        """Stop listening: from now on every connection to the port is refused (the kernel answers with a reset),
        and the port stays this server's (a socket bound to it, not listening) until `up`."""
        holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        holder.bind(("127.0.0.1", self.port))
        self._holder = holder
        self._close()

    def up(self) -> None:
        """Listen again on the same port, with everything recorded so far."""
        self._server = _Server(self._state, self.port)
        self._thread = self._serve(self._server)
        if self._holder is not None:
            self._holder.close()
            self._holder = None

    def _close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def close(self) -> None:
        if self._holder is None:
            self._close()
        else:
            self._holder.close()

    def sends(self) -> int:
        with self.state.lock:
            return len(self.state.sent)

    def given(self) -> list[int]:
        with self.state.lock:
            return list(self.state.given)

    def on_given(self, hook: Callable[[list[int]], None] | None) -> None:
        with self.state.lock:
            self.state.on_given = hook

    @property
    def state(self) -> _State:
        return self._state

    def sent(self) -> list[Sent]:
        with self.state.lock:
            return list(self.state.sent)

    def calls(self, method: str) -> list[dict[str, Any]]:
        with self.state.lock:
            return [body for name, body in self.state.calls if name == method]

    @property
    def webhook(self) -> dict[str, Any]:
        with self.state.lock:
            return dict(self.state.webhook)

    def push(self, update: dict[str, Any], proxy: str) -> int:
        """Deliver `update` to the webhook set with `setWebhook`, as Telegram does: a POST with the webhook's
        `secret_token` in `X-Telegram-Bot-Api-Secret-Token`; its HTTP status. The webhook's https origin is the
        service's public address, which a TLS proxy forwards to `proxy` (the service on loopback): the request goes
        there, to the webhook's path."""
        webhook = self.webhook
        assert webhook.get("url"), "no webhook is set"
        path = "/" + webhook["url"].split("://", 1)[1].split("/", 1)[1]
        headers = {"X-Telegram-Bot-Api-Secret-Token": webhook.get("secret_token", "")}
        answer = httpx.post(f"{proxy.rstrip('/')}{path}", json=update, headers=headers, timeout=30)
        return answer.status_code

    def sent_to(self, chat_id: str) -> list[str]:
        """The texts sent to one chat, in order, as its user reads them."""
        return [sent.text for sent in self.sent() if sent.chat_id == chat_id]

    def queue_updates(self, *updates: dict[str, Any]) -> None:
        with self.state.lock:
            self.state.updates.extend(updates)

    def answered(self) -> list[str]:
        with self.state.lock:
            return list(self.state.answered)

    @property
    def conflicts(self) -> int:
        with self.state.lock:
            return self.state.conflicts

    def fail_next(self, *answers: tuple[int, dict[str, Any]]) -> None:
        with self.state.lock:
            self.state.failures[:] = list(answers)


def too_many(retry_after: int) -> tuple[int, dict[str, Any]]:
    description = f"Too Many Requests: retry after {retry_after}"
    return 429, {"ok": False, "error_code": 429, "description": description, "parameters": {"retry_after": retry_after}}


def trouble() -> tuple[int, dict[str, Any]]:
    return 500, {"ok": False, "error_code": 500, "description": "Internal Server Error"}


@contextmanager
def telegram_api() -> Iterator[TelegramApi]:
    running = TelegramApi()
    try:
        yield running
    finally:
        running.close()


def update(update_id: int, text: str, *, user: int = 42, chat: int | None = None, **message: Any) -> dict[str, Any]:
    """A Telegram update carrying a text message, as Telegram sends one."""
    sender = {"id": user, "is_bot": False, "first_name": "Ada", "last_name": "Lovelace", "language_code": "en"}
    chat_part = {"id": chat if chat is not None else user, "type": "private", "first_name": "Ada"}
    body = {"message_id": update_id, "from": sender, "chat": chat_part, "date": 1764680000, "text": text, **message}
    return {"update_id": update_id, "message": body}


def pressed(
    update_id: int, data: str, *, user: int = 42, chat: int | None = None, query_id: str = ""
) -> dict[str, Any]:
    """A Telegram update of a button of the bot's message pressed (a `callback_query`), as Telegram sends one."""
    sender = {"id": user, "is_bot": False, "first_name": "Ada", "last_name": "Lovelace", "language_code": "en"}
    chat_part = {"id": chat if chat is not None else user, "type": "private", "first_name": "Ada"}
    message = {"message_id": 1, "from": {"id": 123456, "is_bot": True, "first_name": "Shop"}, "chat": chat_part}
    query = {
        "id": query_id or f"{update_id}4382bf",
        "from": sender,
        "message": {**message, "date": 1764680000, "text": "..."},
        "chat_instance": "-5531981296468112151",
        "data": data,
    }
    return {"update_id": update_id, "callback_query": query}
