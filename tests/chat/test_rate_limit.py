"""The chatbot's rate limit: a sliding window per device (the session, for API traffic), exact across processes.

Over the limit: 429 with `Retry-After` and the chatbot's `rate_limit_message`, and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.main import create_app
from tests.support.api import Api, assert_error
from tests.support.chat import ask, ask_anonymous, messages, new_session
from tests.support.clock import ManualClock
from tests.support.database import Db
from tests.support.fake_dns import FakeDns
from tests.support.servers import Server, children


def test_the_limit_admits_n_then_answers_429_and_stores_nothing(alice: Api) -> None:
    bot = alice.chatbot(rate_limit=[3, 60], rate_limit_message="Slow down, please.")["uuid"]
    chat = new_session(alice, bot)
    assert [ask(alice, chat, f"q{n}").status_code for n in range(3)] == [200, 200, 200]
    refused = ask(alice, chat, "one too many")
    body = assert_error(refused, 429, "rate_limited")
    assert body["error"] == "Slow down, please."
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    non_stream = alice.post(f"/session/{chat}/message/non-stream", {"query": "again"})
    assert_error(non_stream, 429, "rate_limited")
    assert [m["query"] for m in messages(alice, chat)] == ["q0", "q1", "q2"]
    # Another session is another device, with a window of its own.
    assert ask(alice, new_session(alice, bot), "hello").status_code == 200


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def clocked(
    settings: Settings, client: TestClient, fake_dns: FakeDns, issued_keys: list[str], clock: ManualClock
) -> Iterator[Api]:
    """An owner of a second app on the test database, whose rate limits count time by `clock`."""
    app = create_app(settings, resolver=fake_dns, clock=clock)
    with TestClient(app, raise_server_exceptions=False) as clocked_client:
        issued = Db(clocked_client).run(lambda session: issue_key(session, "clock@example.com"))
        issued_keys.append(issued.key)
        yield Api(clocked_client, issued.key)


def test_the_window_slides(clocked: Api, clock: ManualClock) -> None:
    alice, client = clocked, clocked.client
    bot = alice.chatbot(rate_limit=[2, 1], visibility="public")["uuid"]
    chat = new_session(alice, bot)
    assert [ask_anonymous(client, chat, "a").status_code for _ in range(2)] == [200, 200]
    refused = ask_anonymous(client, chat, "b")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    clock.advance(0.5)
    assert ask_anonymous(client, chat, "b").status_code == 429  # half the window later: still full
    clock.advance(0.5)
    assert ask_anonymous(client, chat, "c").status_code == 200  # the Retry-After second later: admitted
    assert len(messages(alice, chat)) == 3


@pytest.fixture
def two_workers(settings: Settings, client: TestClient) -> Iterator[str]:
    """`botyard serve --workers 2` (two uvicorn worker processes) serving the app on the test database."""
    server = Server(settings)  # for its environment and held port
    server.env |= {"BOTYARD_EMBEDDER": "none", "BOTYARD_JOBS_IN_PROCESS": "false"}
    server.start("--workers", "2", wait=False)
    try:
        server.wait_ready()
        assert server.process is not None
        assert len(children(server.process.pid)) >= 2  # the workers, under uvicorn's supervisor
        yield server.base
    finally:
        server.stop()


def test_two_workers_never_over_admit(two_workers: str, db: Db) -> None:
    key = db.run(lambda session: issue_key(session, "workers@example.com")).key
    headers = {"Authorization": f"Bearer {key}"}
    api = f"{two_workers}/api/v1"
    body = {"name": "busy", "rate_limit": [5, 120]}
    bot = httpx.post(f"{api}/chatbot/create", headers=headers, json=body).json()["uuid"]
    chat = httpx.post(f"{api}/chatbot/{bot}/session/create", headers=headers).json()["uuid"]

    def send(number: int) -> int:
        url = f"{api}/session/{chat}/message/stream"
        with httpx.Client(timeout=60) as http:  # a connection each, spread over both workers
            return http.post(url, headers=headers, json={"query": f"q{number}"}).status_code

    with ThreadPoolExecutor(max_workers=12) as pool:
        first = list(pool.map(send, range(24)))
        second = list(pool.map(send, range(24, 36)))
    assert (first.count(200), first.count(429)) == (5, 19)
    assert set(second) == {429}  # the window is full
    stored = httpx.get(f"{api}/session/{chat}/messages", headers=headers).json()
    assert len(stored) == 5
    assert all(message["response"] for message in stored)
