"""Data sources through the API and in the database: create, list, inspect their chunks, start crawls."""

from __future__ import annotations

import json
from typing import Any

import httpx2 as httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.models import Chatbot, Chunk, DataSource
from tests.support.api import Api, assert_timestamp, assert_uuid
from tests.support.database import Db

ARTICLE = b"""<!doctype html><html><head><title>Opening hours - Example Shop</title></head>
<body><nav><a href="/">Home</a> | <a href="/contact">Contact</a></nav>
<main><article><h1>Opening hours</h1>
<p>The shop in Springfield is open from nine in the morning to five in the afternoon, Monday to Friday.
On Saturdays it opens from ten to two. It is closed on Sundays and on public holidays.</p>
<h2>Holiday season</h2>
<p>During December the shop stays open until eight in the evening on weekdays, so that customers can
pick up their orders after work. Gift wrapping is free of charge during the whole month.</p>
</article></main><footer>Copyright Example Shop</footer></body></html>"""


def source(api: Api, uuid: str) -> dict[str, Any]:
    body: dict[str, Any] = api.ok(api.get(f"/data-source/{uuid}"))
    return body


def chunks(db: Db, source_uuid: str) -> list[Chunk]:
    async def go(session: AsyncSession) -> list[Chunk]:
        statement = select(Chunk).where(Chunk.data_source_uuid == source_uuid).order_by(Chunk.position)
        return list(await session.scalars(statement))

    return db.run(go)


def knowledge_version(db: Db, bot: str) -> int:
    async def go(session: AsyncSession) -> int:
        return int(await session.scalar(select(Chatbot.knowledge_version).where(Chatbot.uuid == bot)) or 0)

    return db.run(go)


SOURCE_KEYS = set(
    ["uuid", "title", "type", "status", "file_name", "file_size", "tokens", "meta_json", "created_at", "modified_at"]
)


def qa(api: Api, bot: str, question: str = "What are the opening hours?", answer: str = "9 to 5.", **extra: Any) -> Any:
    return api.ok(api.post(f"/chatbot/{bot}/data-source/qa", {"question": question, "answer": answer, **extra}))


def link(api: Api, bot: str, url: str = "https://example.com/docs", **extra: Any) -> Any:
    return api.ok(api.post(f"/chatbot/{bot}/data-source/url", {"url": url, **extra}))


def upload_response(
    api: Api, bot: str, name: str, content: bytes, content_type: str = "text/plain", **form: str
) -> httpx.Response:
    return api.client.post(
        f"/api/v1/chatbot/{bot}/data-source/upload",
        headers=api.auth,
        files={"file": (name, content, content_type)},
        data=form,
    )


def upload(api: Api, bot: str, name: str = "notes.txt", content: bytes = b"some notes", **form: str) -> Any:
    return api.ok(upload_response(api, bot, name, content, **form))


def call(api: Api, method: str, template: str, ids: dict[str, str], body: Any) -> httpx.Response:
    """`template` with `{kind}` placeholders filled from `ids`, under /api/v1."""
    return api.client.request(method, "/api/v1" + template.format(**ids), headers=api.auth, json=body)


def sources(api: Api, bot: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = api.ok(api.get(f"/chatbot/{bot}/data-sources"))
    return listed


def assert_source(source: dict[str, Any], type_: str) -> dict[str, Any]:
    """The exact wire shape; returns the decoded meta."""
    assert set(source) == SOURCE_KEYS
    assert_uuid(source["uuid"])
    assert_timestamp(source["created_at"])
    assert_timestamp(source["modified_at"])
    assert source["type"] == type_
    assert source["status"] == "queued"
    assert source["tokens"] == 0
    assert isinstance(source["file_size"], int)
    assert isinstance(source["meta_json"], str)
    meta: dict[str, Any] = json.loads(source["meta_json"])
    return meta


def count_sources(db: Db) -> int:
    async def go(session: AsyncSession) -> int:
        return len((await session.execute(select(DataSource.uuid))).all())

    return db.run(go)


def crawl(api: Api, bot: str, url: str, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = api.ok(api.post(f"/chatbot/{bot}/data-source/crawl", {"url": url, **fields}))
    return body


def sources_by_url(api: Api, bot: str) -> dict[str, dict[str, Any]]:
    listed = api.ok(api.get(f"/chatbot/{bot}/data-sources"))
    by_url: dict[str, dict[str, Any]] = {}
    for source in listed:
        assert source["file_name"] not in by_url, f"two sources for {source['file_name']}"
        by_url[source["file_name"]] = source
    return by_url
