"""The plain-text stream at the ASGI level (exact chunks, a client that disconnects) and over real HTTP against a
served process: text/plain, flushed as produced, newlines kept, UTF-8 never split, never JSON, stored before close.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.config import Settings
from botyard.identity.accounts.service import issue_key
from botyard.models import Message
from tests.support.agents import set_agent_meta
from tests.support.api import Api
from tests.support.chat import ask, messages, new_session
from tests.support.database import Db
from tests.support.servers import Server

LONG = "Première ligne : ünïcødé ✓ 🎉 😀.\nSecond line.\n\n" + "Many more words follow here, " * 400


def stored(db: Db, session_uuid: str) -> list[Message]:
    async def go(session: AsyncSession) -> list[Message]:
        statement = select(Message).where(Message.session_uuid == session_uuid).order_by(Message.created_at)
        return list((await session.execute(statement)).scalars())

    return db.run(go)


def call_asgi(client: TestClient, api: Api, session_uuid: str, query: str, stop_after: int | None) -> list[bytes]:
    """POST .../message/stream straight to the app; the client "disconnects" after `stop_after` body chunks."""
    body = json.dumps({"query": query}).encode()
    path = f"/api/v1/session/{session_uuid}/message/stream"
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"testserver"),
            (b"authorization", api.auth["Authorization"].encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": {},
    }
    chunks: list[bytes] = []

    async def go() -> None:
        gone = anyio.Event()
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                chunks.append(message["body"])
                if stop_after is not None and len(chunks) >= stop_after:
                    gone.set()
                    await anyio.sleep_forever()  # the socket is stuck: only the disconnect ends this

        with anyio.fail_after(30):
            await client.app(scope, receive, send)  # type: ignore[arg-type]

    assert client.portal is not None
    client.portal.call(go)
    return chunks


def test_each_chunk_is_whole_utf8_and_the_body_keeps_newlines(alice: Api, client: TestClient, db: Db) -> None:
    bot = alice.chatbot()["uuid"]
    set_agent_meta(db, bot, no_answer_message=LONG)
    chat = new_session(alice, bot)
    chunks = call_asgi(client, alice, chat, "anything", stop_after=None)
    assert len(chunks) > 100  # flushed as produced, not buffered into one body
    for chunk in chunks:
        chunk.decode("utf-8")  # strict: raises if a character were split between chunks
    assert b"".join(chunks).decode() == LONG
    [message] = stored(db, chat)
    assert (message.state, message.response) == ("complete", LONG)


def test_a_client_that_disconnects_leaves_the_partial_answer_marked_interrupted(
    alice: Api, client: TestClient, db: Db
) -> None:
    bot = alice.chatbot()["uuid"]
    set_agent_meta(db, bot, no_answer_message=LONG)
    chat = new_session(alice, bot)
    chunks = call_asgi(client, alice, chat, "anything", stop_after=3)
    [message] = stored(db, chat)
    assert message.state == "complete"
    assert message.meta["interrupted"] is True
    assert message.meta["actual_token_distribution"]["total_tokens"] > 0
    sent = b"".join(chunks).decode()
    assert message.response.startswith(sent) and len(sent) <= len(message.response) < len(LONG)
    listed = messages(alice, chat)[0]
    assert json.loads(listed["meta_json"])["interrupted"] is True


@pytest.mark.parametrize("answer", ["42", '"x"', "true", '{"response": "a"}', "[1]"])
def test_the_plain_body_is_never_json(alice: Api, db: Db, answer: str) -> None:
    bot = alice.chatbot()["uuid"]
    set_agent_meta(db, bot, no_answer_message=answer)
    chat = new_session(alice, bot)
    body = ask(alice, chat, "anything").text
    assert body.startswith(answer)
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)
    assert messages(alice, chat)[0]["response"] == body


# Over real HTTP


@pytest.fixture
def served(settings: Settings, client: TestClient) -> Iterator[Server]:
    server = Server(settings)
    server.env |= {"BOTYARD_EMBEDDER": "none", "BOTYARD_JOBS_IN_PROCESS": "false"}
    server.start()
    try:
        yield server
    finally:
        server.stop()


def served_api(server: Server, db: Db) -> tuple[dict[str, str], str]:
    key = db.run(lambda session: issue_key(session, "served@example.com")).key
    headers = {"Authorization": f"Bearer {key}"}
    bot = httpx.post(f"{server.base}/api/v1/chatbot/create", headers=headers, json={"name": "served"}).json()["uuid"]
    return headers, bot


def test_a_served_stream_is_plain_text_flushed_and_stored_before_it_closes(served: Server, db: Db) -> None:
    headers, bot = served_api(served, db)
    set_agent_meta(db, bot, no_answer_message=LONG)
    api = f"{served.base}/api/v1"
    chat = httpx.post(f"{api}/chatbot/{bot}/session/create", headers=headers).json()["uuid"]
    with httpx.stream("POST", f"{api}/session/{chat}/message/stream", headers=headers, json={"query": "q"}) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"] == "text/plain; charset=utf-8"
        assert reply.headers["x-accel-buffering"] == "no"  # a reverse proxy (nginx) does not hold it back
        pieces = list(reply.iter_bytes())
        lines = b"".join(pieces).decode().splitlines()
    # Listed right after the body ended: already stored.
    [message] = httpx.get(f"{api}/session/{chat}/messages", headers=headers).json()
    assert message["response"] == LONG and lines == LONG.splitlines()
    assert "interrupted" not in json.loads(message["meta_json"])


def test_a_served_process_sweeps_streaming_rows_at_start_up(settings: Settings, db: Db, alice: Api) -> None:
    chat = new_session(alice, alice.chatbot()["uuid"])

    async def leftover(session: AsyncSession) -> None:
        # Left by a process of this host that is gone: a pid that cannot exist.
        meta = {"streaming_owner": f"{socket.gethostname()}:{2**22 + 1}"}
        session.add(Message(session_uuid=chat, query="q", response="partial", state="streaming", meta=meta))

    db.run(leftover)
    server = Server(settings)
    server.env |= {"BOTYARD_EMBEDDER": "none", "BOTYARD_JOBS_IN_PROCESS": "false"}
    server.start()
    server.stop()
    [message] = stored(db, chat)
    assert message.state == "complete" and message.meta["interrupted"] is True
