"""What one answer costs the database: the statements it runs, and the background job it queues only when a
background agent has work (tags to assign, or with a model, functions to call). Both databases; the LLM cases with
the fake model server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from starlette.testclient import TestClient

from botyard.identity.accounts.service import issue_key
from botyard.jobs.kinds import JobKind
from botyard.models import Job
from tests.support.agents import agent
from tests.support.api import Api
from tests.support.apps import llm_app
from tests.support.chat import ask, new_session
from tests.support.database import Db, backend_params
from tests.support.fake_llm import FakeLlm
from tests.support.knowledge import knowledge_bot

STATEMENTS_PER_ANSWER = 13
"""An offline answer after the session's first, with the owner's key (transaction starts and PostgreSQL's advisory
lock not counted): the key; the session with its chatbot (and its knowledge version, which the cached index is at),
the rate limit, the history, the agents, the session documents; the rate limit's prune and count-and-insert, the
message, the session's activity; the passage vectors; the answer and the session's activity again. Every statement
more is paid by every answer."""

POSTGRES_SEARCH_STATEMENTS = 7
"""What the postgres search backend adds (`BOTYARD_SEARCH=postgres`): the chatbot's search state, the question's
term counts, the BM25 candidates, the vector candidates, the candidates' sources and chunks, their terms."""

TAGS = [{"name": "refund request", "criteria": "The user asks for a refund", "color": "#FF0000"}]


@contextmanager
def statements(client: TestClient) -> Iterator[list[str]]:
    """The SQL the app runs meanwhile (except transaction starts, advisory locks and the settings follower's poll)."""
    database = Db(client).database
    # SQLite's brief reads and writes run on engines of their own (on the loop's thread): counted too.
    candidates = (database.engine, database.sqlite_writer, database.brief_reader, database.brief_writer)
    engines: list[AsyncEngine] = [engine for engine in candidates if engine is not None]
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        # The settings follower reads the settings' version every `settings_poll_seconds` on its own clock, not per
        # answer: counted, it failed the bound whenever a poll fell inside the answer (a fresh-clone CI run).
        if statement.lstrip().upper().startswith("BEGIN") or "pg_advisory_xact_lock" in statement:
            return
        if "FROM instance_settings" not in statement:
            seen.append(statement)

    for engine in engines:
        event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        for engine in engines:
            event.remove(engine.sync_engine, "before_cursor_execute", record)


def tag_jobs(client: TestClient) -> int:
    async def go(session: AsyncSession) -> int:
        return int(
            await session.scalar(select(func.count()).select_from(Job).where(Job.kind == JobKind.TAG_SESSION)) or 0
        )

    return Db(client).run(go)


def test_an_offline_answer_runs_a_bounded_number_of_statements(alice: Api) -> None:
    bot, _ = knowledge_bot(alice)
    chat = new_session(alice, bot)
    assert ask(alice, chat, "When is the shop open?").status_code == 200
    with statements(alice.client) as seen:
        response = ask(alice, chat, "Can I return a product?")
    assert response.status_code == 200 and "30 days" in response.text
    postgres = alice.client.app.state.settings.search == "postgres"  # type: ignore[attr-defined]
    assert len(seen) <= STATEMENTS_PER_ANSWER + (POSTGRES_SEARCH_STATEMENTS if postgres else 0), "\n".join(seen)


def test_an_answer_queues_the_tagging_job_only_when_a_background_agent_has_tags(alice: Api) -> None:
    bot, _ = knowledge_bot(alice)
    chat = new_session(alice, bot)
    ask(alice, chat, "When is the shop open?")
    assert tag_jobs(alice.client) == 0  # no background agent
    agent(alice, bot, "background", "Watcher", "Reads along")
    ask(alice, chat, "Can I return a product?")
    assert tag_jobs(alice.client) == 0  # a background agent with nothing to do
    agent(alice, bot, "background", "Tagger", "Tags conversations", tags=TAGS)
    ask(alice, chat, "Do you ship abroad?")
    assert tag_jobs(alice.client) == 1


@pytest.fixture(scope="module", params=backend_params())
def llm_client(
    request: pytest.FixtureRequest, llm: FakeLlm, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    data_dir: Path = tmp_path_factory.mktemp("botyard-answer-cost")
    with llm_app(request.param, data_dir, llm.url) as client:
        yield client


def test_with_a_model_the_tagging_job_needs_tags_or_functions(llm_client: TestClient, llm: FakeLlm) -> None:
    """With a model the job would be a second model call per answer: none without background work."""
    Db(llm_client).wipe()
    api = Api(llm_client, Db(llm_client).run(lambda session: issue_key(session, "owner@example.com")).key)
    bot = api.chatbot()["uuid"]
    chat = new_session(api, bot)
    assert ask(api, chat, "Hello there").status_code == 200
    watcher = agent(api, bot, "background", "Watcher", "Reads along")
    ask(api, chat, "Anything new?")
    assert tag_jobs(llm_client) == 0
    function = {
        "name": "log_complaint",
        "description": "Log a complaint",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "external_url": "https://tickets.example.com/complaints",
        "method": "POST",
    }
    api.ok(api.post(f"/agent/{watcher}/function/create", function))
    ask(api, chat, "I want to complain")
    assert tag_jobs(llm_client) == 1
