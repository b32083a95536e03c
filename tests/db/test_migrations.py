from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from botyard.channels.bots import fingerprint
from botyard.config import Settings
from botyard.db.base import Base, UTCDateTime, utcnow
from botyard.db.migrate import alembic_config
from botyard.models import Account, Chatbot
from botyard.service_settings.cipher import Cipher
from tests.support.database import Db, backend_params, fresh_settings


def test_migrations_match_the_models(client: object, db: Db) -> None:
    """The schema the migrations build is exactly the one the models describe (else: scripts/new-migration)."""

    def diff(connection: Connection) -> list[Any]:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))

    async def run() -> list[Any]:
        async with db.database.engine.connect() as connection:
            return await connection.run_sync(diff)

    assert db.client.portal is not None
    assert db.client.portal.call(run) == []


_BEFORE_FLAG_COLUMNS = "b106cc00bb51"
_SESSIONS = sa.table(
    "chat_session",
    sa.column("uuid", sa.String),
    sa.column("chatbot_uuid", sa.String),
    sa.column("meta", sa.JSON),
    sa.column("created_at", UTCDateTime),
    sa.column("modified_at", UTCDateTime),
)


_CHATBOTS = sa.table(
    "chatbot",
    *(sa.column(name) for name in ("uuid", "account_uuid", "name", "rate_limit_messages", "rate_limit_seconds")),
    *(sa.column(name) for name in ("rate_limit_message", "show_citations", "visibility", "knowledge_version")),
    sa.column("created_at", UTCDateTime),
    sa.column("modified_at", UTCDateTime),
)


@pytest.mark.parametrize("backend", backend_params())
def test_session_flag_columns_are_backfilled_from_meta(backend: str, tmp_path: Path) -> None:
    """Upgrading sets `human_requested` and `live_chat` from each existing session's meta; downgrading drops them."""
    metas = {
        "a" * 32: {"variables": {}, "human_requested": True, "human_requested_at": "2026-01-01T00:00:00Z", "tags": []},
        "b" * 32: {"variables": {}, "human_requested": False, "live_chat": True, "tags": ["x"]},
        "c" * 32: {"variables": {}, "human_requested": False, "live_chat": False, "tags": []},
        "d" * 32: {},
    }
    with fresh_settings(backend, tmp_path) as settings:
        config = alembic_config(settings)
        command.downgrade(config, _BEFORE_FLAG_COLUMNS)
        asyncio.run(_add_sessions(settings.resolved_database_url, metas))
        command.upgrade(config, "head")
        flags = asyncio.run(_flags(settings.resolved_database_url))
        assert flags == {
            "a" * 32: (True, False),
            "b" * 32: (False, True),
            "c" * 32: (False, False),
            "d" * 32: (False, False),
        }
        command.downgrade(config, _BEFORE_FLAG_COLUMNS)
        assert "human_requested" not in asyncio.run(_session_columns(settings.resolved_database_url))
        command.upgrade(config, "head")


async def _add_sessions(url: str, metas: dict[str, dict[str, Any]]) -> None:
    engine = create_async_engine(url)
    now = utcnow()
    try:
        async with AsyncSession(engine) as db, db.begin():
            db.add(Account(uuid="0" * 32, email="backfill@example.com"))
            await db.flush()
            # The chatbot table as it was at that revision: the ORM model has columns added since.
            chatbot = {"uuid": "1" * 32, "account_uuid": "0" * 32, "name": "bot", "rate_limit_messages": 20}
            chatbot |= {"rate_limit_seconds": 240, "rate_limit_message": "Too many messages", "show_citations": False}
            chatbot |= {"visibility": "private", "knowledge_version": 0, "created_at": now, "modified_at": now}
            await db.execute(sa.insert(_CHATBOTS), [chatbot])
            rows = [
                {"uuid": uuid, "chatbot_uuid": "1" * 32, "meta": meta, "created_at": now, "modified_at": now}
                for uuid, meta in metas.items()
            ]
            await db.execute(sa.insert(_SESSIONS), rows)
    finally:
        await engine.dispose()


async def _flags(url: str) -> dict[str, tuple[bool, bool]]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(sa.text("SELECT uuid, human_requested, live_chat FROM chat_session"))
            return {row[0]: (bool(row[1]), bool(row[2])) for row in rows}
    finally:
        await engine.dispose()


async def _session_columns(url: str) -> list[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            columns = await connection.run_sync(lambda sync: sa.inspect(sync).get_columns("chat_session"))
            return [str(column["name"]) for column in columns]
    finally:
        await engine.dispose()


_BEFORE_LANGUAGE = "0b5d8e3f1a27"


@pytest.mark.parametrize("backend", backend_params())
def test_the_chatbot_language_column_comes_and_goes_with_its_migration(backend: str, tmp_path: Path) -> None:
    """Upgrading adds the nullable `language` (existing chatbots: NULL, their knowledge's language); downgrading
    drops it."""
    with fresh_settings(backend, tmp_path) as settings:
        config = alembic_config(settings)
        url = settings.resolved_database_url
        command.downgrade(config, _BEFORE_LANGUAGE)
        assert "language" not in asyncio.run(_columns(url, "chatbot"))
        asyncio.run(_add_sessions(url, {"e" * 32: {}}))  # an account, a chatbot (as the table was then), a session
        command.upgrade(config, "head")
        assert "language" in asyncio.run(_columns(url, "chatbot"))
        assert asyncio.run(_scalar(url, "SELECT language FROM chatbot")) is None
        command.downgrade(config, _BEFORE_LANGUAGE)
        assert "language" not in asyncio.run(_columns(url, "chatbot"))
        command.upgrade(config, "head")


async def _columns(url: str, table: str) -> list[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            columns = await connection.run_sync(lambda sync: sa.inspect(sync).get_columns(table))
            return [str(column["name"]) for column in columns]
    finally:
        await engine.dispose()


async def _scalar(url: str, statement: str) -> Any:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.scalar(sa.text(statement))
    finally:
        await engine.dispose()


_BEFORE_BOT_FINGERPRINT = "75c0bfdd92ce"
_CHANNELS = sa.table(
    "channel",
    *(sa.column(name) for name in ("uuid", "chatbot_uuid", "type", "name", "enabled", "last_error", "poll_offset")),
    *(sa.column(name, sa.JSON) for name in ("secrets", "hints", "settings")),
    sa.column("created_at", UTCDateTime),
    sa.column("modified_at", UTCDateTime),
)


@pytest.mark.parametrize("backend", backend_params())
def test_the_stored_channels_get_their_bot_fingerprints_the_older_of_two_on_one_bot_keeping_it(
    backend: str, tmp_path: Path
) -> None:
    """Upgrading fingerprints each stored Telegram and Slack channel's sealed bot token (never the token itself);
    of two channels already on one bot, the older keeps the fingerprint; downgrading drops the column."""
    with fresh_settings(backend, tmp_path) as settings:
        config = alembic_config(settings)
        url = settings.resolved_database_url
        command.downgrade(config, _BEFORE_BOT_FINGERPRINT)
        tokens = {"a" * 32: ("telegram", "1:one"), "b" * 32: ("telegram", "1:one"), "c" * 32: ("slack", "xoxb-2")}
        asyncio.run(_add_channels(settings, tokens))
        command.upgrade(config, "head")
        stored = asyncio.run(_fingerprints(url))
        assert stored == {
            "a" * 32: fingerprint(settings, "telegram", "1:one"),
            "b" * 32: None,  # the newer of the two on one bot
            "c" * 32: fingerprint(settings, "slack", "xoxb-2"),
        }
        assert all(value is None or ("1:one" not in value and len(value) == 64) for value in stored.values())
        command.downgrade(config, _BEFORE_BOT_FINGERPRINT)
        assert "bot_fingerprint" not in asyncio.run(_columns(url, "channel"))
        command.upgrade(config, "head")


async def _add_channels(settings: Settings, tokens: dict[str, tuple[str, str]]) -> None:
    engine = create_async_engine(settings.resolved_database_url)
    cipher, now = Cipher(settings), utcnow()
    try:
        async with AsyncSession(engine) as db, db.begin():
            db.add(Account(uuid="0" * 32, email="channels@example.com"))
            db.add(Chatbot(uuid="1" * 32, account_uuid="0" * 32, name="bot"))
            await db.flush()
            rows = [
                {"uuid": uuid, "chatbot_uuid": "1" * 32, "type": kind, "name": "", "enabled": True, "hints": {}}
                | {"secrets": {"bot_token": cipher.seal(token)}, "settings": {}, "last_error": "", "poll_offset": 0}
                | {"created_at": now.replace(microsecond=index), "modified_at": now}
                for index, (uuid, (kind, token)) in enumerate(tokens.items())
            ]
            await db.execute(sa.insert(_CHANNELS), rows)
    finally:
        await engine.dispose()


async def _fingerprints(url: str) -> dict[str, str | None]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(sa.text("SELECT uuid, bot_fingerprint FROM channel"))
            return {row[0]: row[1] for row in rows}
    finally:
        await engine.dispose()
