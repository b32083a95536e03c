"""Analytics benchmark: how long one chatbot's analytics take over a period of many messages.

Fills a fresh database (SQLite, or PostgreSQL with `--postgres`) with one chatbot's conversations over 30 days:
`--messages` questions (a vocabulary of 2,000 wordings, a fifth refused, most with a first-byte time, a third citing
one to three of 50 sources), a session per 5 messages, feedback on a tenth and hand-offs on a twentieth of the
sessions (each with an operator's reply within the hour); plus as many messages of another chatbot (they must not
slow it down much). Then times the analytics read (`botyard.analytics.service.analytics`, the endpoint's work without
HTTP) and the team's figures (`botyard.analytics.team.team`) for the whole period in `Europe/Paris`, `--repeat`
times each, and prints the times and the totals.

Run from the repository root, in its virtualenv:

    python bench/analytics.py                          # SQLite, 100,000 messages
    python bench/analytics.py --postgres postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _harness import postgres_database
from sqlalchemy import insert

from botyard.analytics.period import period
from botyard.analytics.service import analytics
from botyard.analytics.team import team
from botyard.config import Settings
from botyard.db.base import new_uuid
from botyard.db.migrate import upgrade
from botyard.db.session import Database
from botyard.models import Account, Chatbot, ChatbotEvent, ChatSession, Message, MessageFeedback

BATCH = 5000


def _rows(chatbot: str, messages: int, end: datetime, seed: int) -> Iterator[tuple[type[Any], list[dict[str, Any]]]]:
    """Batches of rows to insert: sessions, then their messages, feedback and events."""
    rng = random.Random(seed)
    sources = [{"data_source_uuid": new_uuid(), "title": f"Source {n}", "text": "...", "type": "qa"} for n in range(50)]
    wordings = [f"Question number {n} about the shop?" for n in range(2000)]
    for first in range(0, messages, BATCH):
        count = min(BATCH, messages - first)
        sessions, rows, feedback, events = [], [], [], []
        for index in range(count):
            at = end - timedelta(seconds=rng.uniform(0, 30 * 86400))
            if index % 5 == 0:
                sessions.append(
                    {"uuid": new_uuid(), "chatbot_uuid": chatbot, "meta": {}, "created_at": at, "outcome": None}
                )
                if rng.random() < 0.05:
                    kind = "human_requested"
                    events.append(
                        {"chatbot_uuid": chatbot, "session_uuid": sessions[-1]["uuid"], "kind": kind, "data": {}}
                    )
                    events[-1]["created_at"] = at
                    sessions[-1]["outcome"] = "handed_off"
                    rows.append(_operator_reply(sessions[-1]["uuid"], at + timedelta(seconds=rng.uniform(10, 3600))))
            cited = {str(n + 1): rng.choice(sources) for n in range(rng.randint(1, 3))} if rng.random() < 0.33 else {}
            refused = rng.random() < 0.2
            row = {
                "uuid": new_uuid(),
                "session_uuid": sessions[-1]["uuid"],
                "query": rng.choice(wordings),
                "response": "An answer.",
                "cite_data": cited,
                "meta": {},
                "refused": refused,
                "first_byte_ms": rng.randint(20, 3000) if rng.random() < 0.9 else None,
                "created_at": at,
                "modified_at": at,
            }
            rows.append(row)
            if rng.random() < 0.1:
                rating = "up" if rng.random() < 0.7 else "down"
                feedback.append(
                    {"message_uuid": row["uuid"], "chatbot_uuid": chatbot, "rating": rating, "created_at": at}
                )
        yield ChatSession, sessions
        yield Message, rows
        yield MessageFeedback, feedback
        yield ChatbotEvent, events


def _operator_reply(session_uuid: str, at: datetime) -> dict[str, Any]:
    """A live chat's operator reply (what the team's first response time ends at)."""
    return {
        "uuid": new_uuid(),
        "session_uuid": session_uuid,
        "query": "",
        "response": "Hello, I can help.",
        "cite_data": {},
        "meta": {"kind": "operator"},
        "refused": False,
        "first_byte_ms": None,
        "created_at": at,
        "modified_at": at,
    }


async def _fill(database: Database, messages: int, end: datetime) -> tuple[str, str]:
    """Two chatbots of `messages` questions each: their account and the first one."""
    account = new_uuid()
    chatbots = [new_uuid(), new_uuid()]
    async with database.transaction() as db:
        db.add(Account(uuid=account, email="bench@example.com"))
        db.add_all(Chatbot(uuid=uuid, account_uuid=account, name="Bench") for uuid in chatbots)
    for seed, chatbot in enumerate(chatbots):
        for model, rows in _rows(chatbot, messages, end, seed):
            if rows:
                async with database.transaction() as db:
                    await db.execute(insert(model), rows)
    return account, chatbots[0]


async def _run(settings: Settings, messages: int, repeat: int) -> None:
    database = Database.from_settings(settings)
    end = datetime.now(UTC)
    started = time.perf_counter()
    account, chatbot = await _fill(database, messages, end)
    print(f"filled {messages:,} messages (and as many of another chatbot) in {time.perf_counter() - started:.1f} s")
    chosen = period(end - timedelta(days=30), end, "Europe/Paris", end)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        async with database.transaction(write=False) as db:
            found = await analytics(db, account, chatbot, chosen)
        times.append(time.perf_counter() - started)
    print(f"analytics over {len(found['days'])} days: " + ", ".join(f"{t * 1000:.0f} ms" for t in times))
    print(f"median {statistics.median(times) * 1000:.0f} ms; totals {found['totals']}")
    print(f"top question {found['top_questions'][0]}; top source {found['top_sources'][0]}")
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        async with database.transaction(write=False) as db:
            figures = await team(db, account, chatbot, chosen)
        times.append(time.perf_counter() - started)
    print("team figures: " + ", ".join(f"{t * 1000:.0f} ms" for t in times))
    handed, first = figures["handed_to_person"], figures["first_response"]
    print(f"median {statistics.median(times) * 1000:.0f} ms; {handed} handed to a person, first response {first}")
    await database.dispose()


@contextmanager
def _settings(postgres: str | None) -> Iterator[Settings]:
    if postgres is None:
        with tempfile.TemporaryDirectory() as directory:
            yield Settings(data_dir=Path(directory))
        return
    with postgres_database(postgres) as created, tempfile.TemporaryDirectory() as directory:
        yield Settings(data_dir=Path(directory), database_url=created.url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000, help="questions of the measured chatbot")
    parser.add_argument("--repeat", type=int, default=5, help="analytics reads to time")
    parser.add_argument("--postgres", metavar="URL", help="a PostgreSQL server to create the database on")
    arguments = parser.parse_args()
    with _settings(arguments.postgres) as settings:
        upgrade(settings)
        asyncio.run(_run(settings, arguments.messages, arguments.repeat))


if __name__ == "__main__":
    main()
