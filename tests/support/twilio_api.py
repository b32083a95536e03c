"""A Twilio REST API on loopback, written from Twilio's documentation (https://www.twilio.com/docs/messaging/api),
not from the service's code, and the webhooks Twilio sends, signed as Twilio signs them.

`GET /2010-04-01/Accounts/{sid}.json` and `POST /2010-04-01/Accounts/{sid}/Messages.json` (form-encoded: `To`,
`From` or `MessagingServiceSid`, `Body`, `StatusCallback`), with basic auth of the account SID and auth token
(others: 401, error 20003). A message is checked as Twilio does: `To` a number in E.164 (else 21211), `From` the
account's number or `MessagingServiceSid` its service (else 21606), a `Body` (else 21602) of at most 1,600
characters (else 21617), to a number not on its opt-out list (else 21610). Errors have Twilio's shape
(`{"code", "message", "more_info", "status"}`); a test scripts the next answers (`fail_next`: a 429, a 500). A message
taken is answered 201 with its resource (`sid`, `status: queued`, `num_segments`, counted here from GSM 03.38).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx

ACCOUNT_SID = "AC" + "0123456789abcdef" * 2
AUTH_TOKEN = "twilio-auth-token-of-the-test-account"
NUMBER = "+14155550199"
SERVICE_SID = "MG" + "fedcba9876543210" * 2
_E164 = re.compile(r"\+[1-9][0-9]{6,14}")
_GSM = set(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
    "abcdefghijklmnopqrstuvwxyzäöñüà"
)
_GSM_ESCAPED = set("^{}\\[~]|€\f")


def num_segments(body: str) -> int:
    """The segments Twilio bills a body as (GSM-7: 160 single, 153 each; else UCS-2: 70, 67; a character's units
    never split)."""
    gsm = all(char in _GSM or char in _GSM_ESCAPED for char in body)
    units = [(2 if char in _GSM_ESCAPED else 1) if gsm else (2 if ord(char) > 0xFFFF else 1) for char in body]
    single, each = (160, 153) if gsm else (70, 67)
    if sum(units) <= single:
        return 1
    count, filled = 1, 0
    for unit in units:
        if filled + unit > each:
            count, filled = count + 1, 0
        filled += unit
    return count


def signature(auth_token: str, url: str, params: dict[str, str]) -> str:
    """X-Twilio-Signature as Twilio's docs define it: HMAC-SHA1 of the URL and each parameter, sorted by name."""
    data = url + "".join(f"{name}{params[name]}" for name in sorted(params))
    return base64.b64encode(hmac.new(auth_token.encode(), data.encode(), hashlib.sha1).digest()).decode()


def error(status: int, code: int, message: str) -> tuple[int, dict[str, Any]]:
    return status, {
        "code": code,
        "message": message,
        "more_info": f"https://www.twilio.com/docs/errors/{code}",
        "status": status,
    }


@dataclass
class Sent:
    sid: str
    to: str
    sender: str
    """`From`, or the `MessagingServiceSid` it went through."""
    body: str
    segments: int
    status_callback: str


@dataclass
class _State:
    sent: list[Sent] = field(default_factory=list)
    calls: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    failures: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    opted_out: set[str] = field(default_factory=set)
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

    def _authorized(self) -> bool:
        given = self.headers.get("Authorization", "")
        expected = "Basic " + base64.b64encode(f"{ACCOUNT_SID}:{AUTH_TOKEN}".encode()).decode()
        return hmac.compare_digest(given, expected)

    def do_GET(self) -> None:
        with self.server.state.lock:
            self.server.state.calls.append(("GET", self.path, {}))
        if not self._authorized():
            self._answer(*error(401, 20003, "Authenticate"))
        elif self.path == f"/2010-04-01/Accounts/{ACCOUNT_SID}.json":
            self._answer(200, {"sid": ACCOUNT_SID, "friendly_name": "Shop", "status": "active", "type": "Full"})
        else:
            self._answer(*error(404, 20404, f"The requested resource {self.path} was not found"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        form = dict(parse_qsl(raw, keep_blank_values=True))
        state = self.server.state
        with state.lock:
            state.calls.append(("POST", self.path, form))
            if not self._authorized():
                self._answer(*error(401, 20003, "Authenticate"))
            elif self.path != f"/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json":
                self._answer(*error(404, 20404, f"The requested resource {self.path} was not found"))
            elif state.failures:
                self._answer(*state.failures.pop(0))
            else:
                self._answer(*self._message(form, state))

    def _message(self, form: dict[str, str], state: _State) -> tuple[int, dict[str, Any]]:
        to, sender, body = form.get("To", ""), form.get("From") or form.get("MessagingServiceSid", ""), form.get("Body")
        if not _E164.fullmatch(to):
            return error(400, 21211, f"Invalid 'To' Phone Number: {to}")
        if sender not in (NUMBER, SERVICE_SID):
            what = f"The From phone number {sender} is not a valid, SMS-capable inbound phone number for your account."
            return error(400, 21606, what)
        if not body:
            return error(400, 21602, "Message body is required.")
        if len(body) > 1600:
            return error(400, 21617, "The concatenated message body exceeds the 1600 character limit.")
        if to in state.opted_out:
            return error(400, 21610, "Attempt to send to unsubscribed recipient")
        sid = "SM" + hashlib.md5(f"{len(state.sent)}:{to}".encode()).hexdigest()  # noqa: S324 (an id, not a secret)
        sent = Sent(sid, to, sender, body, num_segments(body), form.get("StatusCallback", ""))
        state.sent.append(sent)
        resource = {"sid": sid, "account_sid": ACCOUNT_SID, "to": to, "from": form.get("From"), "body": body}
        return 201, resource | {"status": "queued", "num_segments": str(sent.segments), "error_code": None}

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)


class TwilioApi:
    def __init__(self) -> None:
        self.state = _State()
        self._server = _Server(self.state)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def sent(self) -> list[Sent]:
        with self.state.lock:
            return list(self.state.sent)

    def sent_to(self, number: str) -> list[str]:
        return [sent.body for sent in self.sent() if sent.to == number]

    def calls(self, method: str) -> list[tuple[str, dict[str, str]]]:
        with self.state.lock:
            return [(path, form) for verb, path, form in self.state.calls if verb == method]

    def fail_next(self, *answers: tuple[int, dict[str, Any]]) -> None:
        with self.state.lock:
            self.state.failures[:] = list(answers)

    def opt_out(self, number: str) -> None:
        """The number is on Twilio's own opt-out list (it sent STOP to Twilio): messages to it are 21610."""
        with self.state.lock:
            self.state.opted_out.add(number)


@contextmanager
def twilio_api() -> Iterator[TwilioApi]:
    running = TwilioApi()
    try:
        yield running
    finally:
        running.close()


_sids = iter(range(1, 10**9))


def message(body: str, sender: str = "+14155550100", sid: str | None = None, to: str = NUMBER) -> dict[str, str]:
    """An incoming message's webhook parameters, as Twilio sends them."""
    sid = sid or f"SM{next(_sids):032x}"
    return {
        "ToCountry": "US",
        "SmsMessageSid": sid,
        "NumMedia": "0",
        "SmsSid": sid,
        "SmsStatus": "received",
        "Body": body,
        "To": to,
        "NumSegments": "1",
        "MessageSid": sid,
        "AccountSid": ACCOUNT_SID,
        "From": sender,
        "ApiVersion": "2010-04-01",
    }


def webhook(
    client: httpx.Client | Any, url: str, params: dict[str, str], auth_token: str = AUTH_TOKEN
) -> httpx.Response:
    """POST `params` form-encoded to the webhook `url` (the public one Twilio was given, which it signs), sent to
    the same path on `client` (the service behind its proxy), as Twilio does."""
    path = "/" + url.split("://", 1)[1].split("/", 1)[1]
    headers = {
        "X-Twilio-Signature": signature(auth_token, url, params),
        "Content-Type": "application/x-www-form-urlencoded",
        "User-Agent": "TwilioProxy/1.1",
    }
    answer: httpx.Response = client.post(path, content=urlencode(params).encode(), headers=headers)
    return answer
