"""Prometheus metrics at `/metrics` (issue 19, item 4): what a scrape shows after real traffic on a real server, the
sum over every worker of `botyard serve --workers N` whichever worker answers the scrape, the job queue read from
the database, and the path's protection (a bearer token; off)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from botyard.chat.ratelimit import window_reason
from botyard.config import Settings
from tests.support.api import Api, assert_error
from tests.support.chat import ask, new_session
from tests.support.jobs import process
from tests.support.servers import Server, children
from tests.support.waiting import wait_for

TOKEN = "scrape-secret-7"
STREAM = "/api/v1/session/{uuid}/message/stream"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(found: Samples, name: str, **labels: str) -> float:
    """A sample's value; 0 when the series does not exist (a counter nothing has counted yet)."""
    return found.get((name, frozenset(labels.items())), 0.0)


def scrape(base: str, token: str | None = TOKEN) -> Samples:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client() as client:  # a new connection: any worker may take it
        response = client.get(f"{base}/metrics", headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return samples(response.text)


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    """One `botyard serve` (jobs in process, keyword search) whose metrics need `TOKEN`, and an account's key."""
    server = Server(Settings(data_dir=tmp_path))
    server.env |= {"BOTYARD_METRICS_TOKEN": TOKEN}
    key = server.key()
    server.start()
    try:
        yield server, key
    finally:
        server.stop()


def _chatbot_with_knowledge(base: str, auth: dict[str, str]) -> str:
    api = f"{base}/api/v1"
    bot = httpx.post(f"{api}/chatbot/create", json={"name": "Shop", "rate_limit": [2, 60]}, headers=auth).json()
    qa = {"question": "When is the shop open?", "answer": "The shop is open from nine to five, Monday to Friday."}
    created = httpx.post(f"{api}/chatbot/{bot['uuid']}/data-source/qa", json=qa, headers=auth).json()
    wait_for(lambda: httpx.get(f"{api}/data-source/{created['uuid']}", headers=auth).json()["status"] == "success")
    uuid: str = bot["uuid"]
    return uuid


def test_a_scrape_counts_requests_answers_refusals_and_429s(guarded: tuple[Server, str]) -> None:
    server, key = guarded
    auth = {"Authorization": f"Bearer {key}"}
    bot = _chatbot_with_knowledge(server.base, auth)
    session = httpx.post(f"{server.base}/api/v1/chatbot/{bot}/session/create", headers=auth).json()["uuid"]
    stream = f"{server.base}/api/v1/session/{session}/message/stream"
    answered = httpx.post(stream, json={"query": "When is the shop open?"}, headers=auth, timeout=60)
    assert answered.status_code == 200 and "nine to five" in answered.text
    refused = httpx.post(stream, json={"query": "Who painted the Mona Lisa?"}, headers=auth, timeout=60)
    assert refused.status_code == 200 and "nine" not in refused.text
    assert_error(httpx.post(stream, json={"query": "And on Sundays?"}, headers=auth), 429, "rate_limited")
    for _ in range(3):
        assert httpx.get(f"{server.base}/readyz").status_code == 200
    for path in ("/no/such/path", "/another/unknown/1234"):
        assert httpx.get(f"{server.base}{path}").status_code == 404

    found = scrape(server.base)
    requests = "botyard_http_requests_total"
    assert value(found, requests, method="POST", route=STREAM, status="200") == 2
    assert value(found, requests, method="POST", route=STREAM, status="429") == 1
    assert value(found, requests, method="GET", route="/readyz", status="200") == 3
    assert value(found, requests, method="GET", route="unmatched", status="404") == 2  # one series for any path
    assert not [labels for name, labels in found if ("route", "/no/such/path") in labels]
    duration = "botyard_http_request_duration_seconds_count"
    assert value(found, duration, method="POST", route=STREAM, status_class="2xx") == 2
    assert value(found, duration, method="POST", route=STREAM, status_class="4xx") == 1
    assert value(found, "botyard_answers_total", answerer="offline", outcome="answered") == 1
    assert value(found, "botyard_answers_total", answerer="offline", outcome="no_answer") == 1
    first = "botyard_answer_first_chunk_seconds_count"
    assert value(found, first, answerer="offline", outcome="answered") == 1
    assert value(found, first, answerer="offline", outcome="no_answer") == 1
    assert value(found, "botyard_rate_limited_total", code="rate_limited", reason="session") == 1
    assert value(found, "botyard_jobs", kind="process_source", state="done") == 1
    assert value(found, "botyard_job_queue_depth") == 0
    assert value(found, "botyard_indexes") == 1 and value(found, "botyard_index_chunks") >= 1


def test_a_token_guards_the_scrape(guarded: tuple[Server, str]) -> None:
    server, _ = guarded
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        response = httpx.get(f"{server.base}/metrics", headers=headers)
        assert_error(response, 401, "unauthorized")
        assert response.headers["www-authenticate"] == "Bearer"
    assert value(scrape(server.base), "botyard_http_requests_total", method="GET", route="/metrics", status="401") == 3


def test_metrics_off_is_an_unknown_path(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path))
    server.env |= {"BOTYARD_METRICS": "off"}
    server.start()
    try:
        assert_error(httpx.get(f"{server.base}/metrics"), 404, "not_found")
    finally:
        server.stop()


def test_the_metrics_path_is_not_in_the_api_document(client: TestClient) -> None:
    assert "/metrics" not in client.get("/openapi.json").json()["paths"]
    assert client.get("/metrics").status_code == 200


def _metrics_dir(pid: int) -> Path:
    """The metrics directory the supervisor named to its worker `pid`."""
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    [named] = [item.split(b"=", 1)[1] for item in environ if item.startswith(b"PROMETHEUS_MULTIPROC_DIR=")]
    return Path(named.decode())


def _workers(server: Server) -> list[int]:
    """The supervisor's worker processes (not multiprocessing's resource tracker)."""
    assert server.process is not None
    found = []
    for pid in children(server.process.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except FileNotFoundError:
            continue
        if b"spawn_main" in command:
            found.append(pid)
    return found


def test_with_workers_every_scrape_sums_every_worker(tmp_path: Path) -> None:
    server = Server(Settings(data_dir=tmp_path))
    server.start("--workers", "2")
    try:
        wait_for(lambda: len(_workers(server)) == 2)
        sent = 40
        for _ in range(sent):
            with httpx.Client() as client:  # a new connection each time: the kernel spreads them over the workers
                assert client.get(f"{server.base}/readyz").status_code == 200
        workers = _workers(server)
        [directory] = {_metrics_dir(pid) for pid in workers}  # one for the run, shared
        # Both workers answered some (else the sums below would prove nothing): each has its own counts file.
        assert all((directory / f"counter_{pid}.db").exists() for pid in workers), os.listdir(directory)
        readyz = {"method": "GET", "route": "/readyz", "status": "200"}
        for _ in range(6):  # whichever worker answers
            assert value(scrape(server.base, None), "botyard_http_requests_total", **readyz) == sent
        # A worker that dies is replaced; what it counted stays counted.
        victim = workers[0]
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: victim not in _workers(server) and len(_workers(server)) == 2)
        for _ in range(4):
            assert value(scrape(server.base, None), "botyard_http_requests_total", **readyz) == sent
    finally:
        server.stop()
    assert not directory.exists()  # the run's directory goes with it


def test_jobs_gauges_follow_the_queue(client: TestClient, alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "q?", "answer": "a."}))
    found = samples(client.get("/metrics").text)
    assert value(found, "botyard_jobs", kind="process_source", state="queued") == 1
    assert value(found, "botyard_job_queue_depth") == 1
    assert value(found, "botyard_job_oldest_due_seconds") >= 0
    process(client, embedder=None)
    found = samples(client.get("/metrics").text)
    assert value(found, "botyard_jobs", kind="process_source", state="queued") == 0
    assert value(found, "botyard_jobs", kind="process_source", state="done") == 1
    assert value(found, "botyard_job_queue_depth") == 0


def test_the_last_days_conversations_by_outcome(client: TestClient, alice: Api) -> None:
    bot = alice.chatbot()["uuid"]
    alice.ok(alice.post(f"/chatbot/{bot}/data-source/qa", {"question": "When are you open?", "answer": "9 to 5."}))
    process(client, embedder=None)
    before = samples(client.get("/metrics").text)
    counts = {outcome: value(before, "botyard_conversations_last_day", outcome=outcome) for outcome in OUTCOMES}
    for question in ("When are you open?", "Do you sell bicycles?", None):
        session = new_session(alice, bot)
        if question is not None:
            assert ask(alice, session, question).status_code == 200
    found = samples(client.get("/metrics").text)
    after = {outcome: value(found, "botyard_conversations_last_day", outcome=outcome) for outcome in OUTCOMES}
    assert {outcome: after[outcome] - counts[outcome] for outcome in OUTCOMES} == {
        "resolved": 1, "unresolved": 1, "handed_off": 0, "none": 1,
    }  # fmt: skip


OUTCOMES = ("resolved", "unresolved", "handed_off", "none")


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("session:abc", "session"),
        ("message:10.0.0.7", "address"),
        ("message:anonymous", "anonymous_ceiling"),
        ("new-session:10.0.0.7", "new_session_address"),
        ("new-session:anonymous", "new_session_anonymous_ceiling"),
        ("feedback:10.0.0.7", "feedback"),
    ],
)
def test_a_rate_limit_reason_names_the_full_window(key: str, reason: str) -> None:
    assert window_reason(key) == reason
