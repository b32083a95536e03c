"""Event streams on a real server: woken by the process's event watch (PostgreSQL `NOTIFY`, SQLite one shared read)
rather than a query per stream, and held open at most `BOTYARD_STREAMS_PER_ADDRESS` at once per client address."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx2 as httpx
import pytest

from botyard.config import Settings
from tests.support.servers import Server

READ_TIMEOUT = 30.0
"""A guard against a stream that never wakes, not a speed limit: a woken stream answers in well under a second."""


@pytest.fixture
def server(settings: Settings) -> Iterator[Server]:
    server = Server(settings)
    server.env["BOTYARD_STREAMS_PER_ADDRESS"] = "2"
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _public_session(server: Server) -> tuple[dict[str, str], str]:
    headers = {"Authorization": f"Bearer {server.key()}"}
    api = f"{server.base}/api/v1"
    bot = httpx.post(f"{api}/chatbot/create", headers=headers, json={"name": "live", "visibility": "public"}).json()
    chat = httpx.post(f"{api}/widget/{bot['uuid']}/session", json={"device_id": "device-0001"}).json()
    return headers, chat["session_uuid"]


def test_an_operators_reply_wakes_the_widgets_stream(server: Server) -> None:
    headers, chat = _public_session(server)
    api = f"{server.base}/api/v1"
    timeout = httpx.Timeout(10.0, read=READ_TIMEOUT)
    with httpx.Client(timeout=timeout) as http, http.stream("GET", f"{api}/widget/session/{chat}/events") as stream:
        assert stream.status_code == 200
        assert stream.headers["x-accel-buffering"] == "no"  # a reverse proxy (nginx) does not hold it back
        lines = stream.iter_lines()
        assert next(lines) == ": events"  # the stream is open, from now: what follows was committed after it
        assert httpx.post(f"{api}/session/{chat}/live-chat/start", headers=headers).status_code == 200
        reply = {"text": "Hi, Sam here."}
        assert httpx.post(f"{api}/session/{chat}/live-chat/message", headers=headers, json=reply).status_code == 200
        heard = []
        deadline = time.monotonic() + READ_TIMEOUT
        for line in lines:  # a ping every 15 s at least: the deadline is checked while nothing wakes the stream
            assert time.monotonic() < deadline, f"the stream was not woken; heard {heard}"
            if line.startswith("event: ") and line != "event: ping":
                heard.append(line[7:])
            if line.startswith("data: ") and heard and heard[-1] == "operator_message":
                assert json.loads(line[6:])["text"] == "Hi, Sam here."
                break
    assert heard == ["live_chat_started", "operator_message"]


def test_one_address_holds_a_bounded_number_of_streams(server: Server) -> None:
    _, chat = _public_session(server)
    url = f"{server.base}/api/v1/widget/session/{chat}/events"
    with httpx.Client(timeout=httpx.Timeout(10.0, read=READ_TIMEOUT)) as http:
        first, second = http.stream("GET", url), http.stream("GET", url)
        opened = [first.__enter__(), second.__enter__()]
        assert [response.status_code for response in opened] == [200, 200]
        refused = http.get(url)
        assert refused.status_code == 429 and refused.json()["code"] == "too_many_streams"
        assert int(refused.headers["Retry-After"]) >= 1
        second.__exit__(None, None, None)  # the client goes away: its slot is given back
        deadline = time.monotonic() + READ_TIMEOUT
        while (status := _opens(http, url)) == 429 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status == 200
        first.__exit__(None, None, None)


def _opens(http: httpx.Client, url: str) -> int:
    with http.stream("GET", url) as response:
        return response.status_code
