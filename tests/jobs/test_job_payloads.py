"""Typed jobs: every kind has one payload class and one handler, and rows written before payloads were typed (plain
JSON dicts, as older versions wrote them) are still read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import (
    PAYLOADS,
    ChannelAnswer,
    JobKind,
    PayloadError,
    ProcessSource,
    SyncChatbot,
    TagSession,
)
from botyard.jobs.runner import JobRunner
from botyard.jobs.service import enqueue
from botyard.models import Job
from botyard.runtime import Runtime
from tests.support.database import Db
from tests.support.jobs import FAST, drain

OLD_ROWS: dict[str, dict[str, Any]] = {
    "process_source": {"data_source_uuid": "0f" * 16},
    "reembed_source": {"data_source_uuid": "0f" * 16},
    "crawl_site": {"crawl_uuid": "1a" * 16},
    "sync_chatbot": {"chatbot_uuid": "2b" * 16, "run_at": "2026-11-28T09:00:00.000000Z"},
    "tag_session": {"session_uuid": "3c" * 16, "message_uuid": "4d" * 16},
    "webhook_delivery": {"delivery_uuid": "5e" * 16},
    "purge_conversations": {"chatbot_uuid": "2b" * 16},
    "run_tests": {"test_run_uuid": "6f" * 16},
    "watch_test_sets": {"chatbot_uuid": "2b" * 16},
    "operator_mail": {"session_uuid": "3c" * 16, "about": "contact", "message_uuid": "4d" * 16},
    "channel_answer": {"event_uuid": "7a" * 16, "callback_query_id": ""},
    "channel_send": {"reply_uuid": "8b" * 16},
    "channel_relay": {"session_uuid": "3c" * 16, "message_uuid": "4d" * 16},
}
"""The payloads as stored rows hold them (the first ten as the code before typed jobs wrote them, `enqueue(db,
"kind", {...})` at each call site)."""


@pytest.fixture(autouse=True)
def _empty_tables(client: object) -> None:
    """Requesting the client empties every table before each test."""


def test_every_kind_has_one_payload_class_and_the_service_runs_each() -> None:
    assert set(PAYLOADS) == set(JobKind) == set(OLD_ROWS)
    assert all(payload.kind == kind for kind, payload in PAYLOADS.items())


def test_the_service_has_a_handler_for_every_kind(client: TestClient) -> None:
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    assert sorted(runtime.runner.handlers) == sorted(JobKind)


@pytest.mark.parametrize("kind", sorted(OLD_ROWS))
def test_a_payload_is_stored_as_older_versions_stored_it(kind: str) -> None:
    stored = OLD_ROWS[kind]
    payload = PAYLOADS[kind].from_json(stored)
    assert payload.to_json() == stored
    assert PAYLOADS[kind].from_json(payload.to_json()) == payload


def test_an_older_row_without_an_optional_field_reads_with_its_default() -> None:
    assert TagSession.from_json({"session_uuid": "s"}) == TagSession("s", message_uuid="")
    assert SyncChatbot.from_json({"chatbot_uuid": "b"}) == SyncChatbot("b", run_at="")
    assert ChannelAnswer.from_json({"event_uuid": "e"}) == ChannelAnswer("e", callback_query_id="")
    assert ProcessSource.from_json({"data_source_uuid": "d", "added_later": 1}) == ProcessSource("d")
    with pytest.raises(PayloadError, match="process_source payload without data_source_uuid"):
        ProcessSource.from_json({"crawl_uuid": "c"})


@dataclass
class Reader:
    """A `process_source` handler that only records the payloads it got."""

    payload_type: type[ProcessSource] = ProcessSource
    timeout_seconds: float = 5.0
    got: list[ProcessSource] = field(default_factory=list)
    gave_up: list[str] = field(default_factory=list)

    async def run(self, ctx: JobContext[ProcessSource]) -> None:
        self.got.append(ctx.payload)

    async def give_up(self, session: AsyncSession, payload: ProcessSource, reason: str) -> None:
        self.gave_up.append(reason)


def _run(db: Db, handler: Reader) -> None:
    assert db.client.portal is not None
    db.client.portal.call(drain, JobRunner(db.database, [handler], FAST))


def _statuses(db: Db) -> list[tuple[str, str | None]]:
    async def go(session: AsyncSession) -> list[tuple[str, str | None]]:
        return [(job.status, job.last_error) for job in await session.scalars(select(Job))]

    return db.run(go)


def test_a_row_written_the_old_way_reaches_its_handler_typed(db: Db) -> None:
    async def write_old(session: AsyncSession) -> None:
        session.add(Job(kind="process_source", payload=dict(OLD_ROWS["process_source"])))

    db.run(write_old)
    handler = Reader()
    _run(db, handler)
    assert handler.got == [ProcessSource("0f" * 16)]
    assert _statuses(db) == [("done", None)]


def test_a_new_row_has_the_old_shape(db: Db) -> None:
    db.run(lambda session: enqueue(session, ProcessSource("0f" * 16)))

    async def stored(session: AsyncSession) -> list[tuple[str, dict[str, Any]]]:
        return [(job.kind, job.payload) for job in await session.scalars(select(Job))]

    assert db.run(stored) == [("process_source", OLD_ROWS["process_source"])]


def test_a_row_whose_payload_cannot_be_read_fails_without_running(db: Db) -> None:
    async def write_broken(session: AsyncSession) -> None:
        session.add(Job(kind="process_source", payload={"crawl_uuid": "c"}))

    db.run(write_broken)
    handler = Reader()
    _run(db, handler)
    assert handler.got == [] and handler.gave_up == []
    assert _statuses(db) == [("failed", "process_source payload without data_source_uuid")]
