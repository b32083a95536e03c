"""Abuse benchmark: replays a red-team pattern against the public (keyless) chat surface and prints what gets through.

Every request comes from this one process, so from one address (127.0.0.1): whatever identifier a pattern rotates,
a rate limit of 5 messages per 60 s that holds per address admits at most 5 of its messages in a window of up to
60 s. Each pattern gets a fresh public chatbot (`rate_limit` [5, 60], one Q&A source, the offline answerer: no LLM)
so that no pattern inherits another's counts, and its own window of `--seconds`, driven by `--concurrency` clients:

  a. widget messages into one widget session, a new `device_id` on every message;
  b. widget messages, a new widget session (and device id) for every message;
  c. keyless API messages (`/session/{uuid}/message/stream`, no key), a new widget session for every message;
  d. widget session creation alone, a new device id each time (accepted = sessions created);
  e. as a, also with a new forged `X-Forwarded-For` on every message (no proxy is trusted: it must not help).

In b and c a refused session creation counts as a refused attempt (the message could not be sent). Then f: `--streams`
idle widget event streams (`GET /widget/session/{s}/events`), each on a session of its own while sessions can be
created, then shared; once they are open, the server's CPU use (utime + stime of its process tree) over 10 s.

Run from the repository root, in its virtualenv:

    python bench/abuse.py                       # SQLite, 30 s per pattern, 300 streams
    python bench/abuse.py --database postgres --seconds 10 --streams 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import random
import resource
import secrets
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from _harness import Database, Server, SqliteDatabase, descendants, postgres_database, process_cpu_seconds

API = "/api/v1"
RATE_LIMIT = (5, 60)
IDLE_SECONDS = 10.0
QA = {"question": "What are the opening hours?", "answer": "We are open from 9 to 17, Monday to Friday."}
QUERY = "When are you open?"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def new_device() -> str:
    return f"bench-{secrets.token_hex(8)}"


def forged_address() -> str:
    return ".".join(str(random.randint(1, 254)) for _ in range(4))


@dataclass
class Tally:
    """The outcome of one pattern: HTTP 200, 429, and anything else (other statuses and transport errors)."""

    name: str
    seconds: float = 0.0
    accepted: int = 0
    refused: int = 0
    other: dict[str, int] = field(default_factory=dict)

    def count(self, status: int | str) -> None:
        if status == 200:
            self.accepted += 1
        elif status == 429:
            self.refused += 1
        else:
            self.other[str(status)] = self.other.get(str(status), 0) + 1


Attempt = Callable[[httpx.AsyncClient, str, str], Awaitable[int]]
"""One try of a pattern against a chatbot, given the chatbot and a widget session made before the clock started
(only a and e use it): the status that decides it."""


async def new_session(client: httpx.AsyncClient, bot: str, device: str) -> tuple[int, str | None]:
    response = await client.post(f"{API}/widget/{bot}/session", json={"device_id": device})
    return response.status_code, response.json()["session_uuid"] if response.status_code == 200 else None


async def send(client: httpx.AsyncClient, url: str, body: dict[str, str], headers: dict[str, str] | None = None) -> int:
    # The whole answer is read: an accepted message costs the server its full answer, as it would an attacker's.
    async with client.stream("POST", url, json=body, headers=headers) as response:
        await response.aread()
        return response.status_code


async def one_session_new_device(client: httpx.AsyncClient, bot: str, session: str) -> int:
    body = {"device_id": new_device(), "query": QUERY}
    return await send(client, f"{API}/widget/session/{session}/message/stream", body)


async def one_session_new_device_forged(client: httpx.AsyncClient, bot: str, session: str) -> int:
    body = {"device_id": new_device(), "query": QUERY}
    headers = {"X-Forwarded-For": forged_address()}
    return await send(client, f"{API}/widget/session/{session}/message/stream", body, headers)


async def session_per_widget_message(client: httpx.AsyncClient, bot: str, _: str) -> int:
    device = new_device()
    status, session = await new_session(client, bot, device)
    if session is None:
        return status
    return await send(client, f"{API}/widget/session/{session}/message/stream", {"device_id": device, "query": QUERY})


async def session_per_api_message(client: httpx.AsyncClient, bot: str, _: str) -> int:
    status, session = await new_session(client, bot, new_device())
    if session is None:
        return status
    return await send(client, f"{API}/session/{session}/message/stream", {"query": QUERY})


async def session_only(client: httpx.AsyncClient, bot: str, _: str) -> int:
    return (await new_session(client, bot, new_device()))[0]


PATTERNS: dict[str, Attempt] = {
    "a. one session, new device_id per message": one_session_new_device,
    "b. new widget session per message": session_per_widget_message,
    "c. keyless API, new session per message": session_per_api_message,
    "d. widget session creation only": session_only,
    "e. as a + forged X-Forwarded-For": one_session_new_device_forged,
}


async def hammer(base: str, bot: str, name: str, attempt: Attempt, seconds: float, concurrency: int) -> Tally:
    """`concurrency` clients try `attempt` one after the other until `seconds` have passed."""
    tally = Tally(name)

    async def worker(client: httpx.AsyncClient, session: str, deadline: float) -> None:
        while time.monotonic() < deadline:
            try:
                tally.count(await attempt(client, bot, session))
            except httpx.HTTPError as error:
                tally.count(type(error).__name__)

    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        # The shared session of a and e; it also counts as this chatbot's first session for d (1 of the 5 it admits
        # to an address), which only makes d's figure lower by one, never hides an excess.
        session = (await new_session(client, bot, new_device()))[1]
        assert session is not None, "the first widget session of a fresh chatbot was refused"
        started = time.monotonic()
        await asyncio.gather(*(worker(client, session, started + seconds) for _ in range(concurrency)))
        tally.seconds = time.monotonic() - started
    return tally


def make_chatbot(owner: httpx.Client, name: str) -> str:
    body = {"name": name, "visibility": "public", "rate_limit": list(RATE_LIMIT)}
    bot: str = owner.post(f"{API}/chatbot/create", json=body).raise_for_status().json()["uuid"]
    source = owner.post(f"{API}/chatbot/{bot}/data-source/qa", json=QA).raise_for_status().json()["uuid"]
    # Wait for its ingestion: its embedding would otherwise compete with the pattern's answers for the CPU.
    deadline = time.monotonic() + 120
    while (status := owner.get(f"{API}/data-source/{source}").json()["status"]) not in ("success", "failed"):
        if time.monotonic() > deadline:
            log(f"  the Q&A source is still {status!r} after 120 s; going on")
            break
        time.sleep(0.2)
    return bot


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of the server and its live descendants so far (a child that exits in between is not counted)."""
    return sum(process_cpu_seconds(each) for each in [pid, *descendants(pid)])


@dataclass
class Streams:
    wanted: int
    sessions: int = 0
    tally: Tally = field(default_factory=lambda: Tally("f. idle event streams"))
    cpu_percent: float = 0.0


async def idle_streams(base: str, bot: str, count: int, server_pid: int) -> Streams:
    """Open `count` event streams, each read by a task of its own, measure the server's CPU while they idle."""
    found = Streams(count)
    timeout = httpx.Timeout(60, read=None)  # an idle stream sends a ping every 15 s at most
    limits = httpx.Limits(max_connections=count + 10, max_keepalive_connections=count + 10)
    async with httpx.AsyncClient(base_url=base, timeout=timeout, limits=limits) as client:
        sessions: list[str] = []
        for _ in range(count):
            status, session = await new_session(client, bot, new_device())
            if session is None:
                break  # refused (429): the streams share the sessions made so far
            sessions.append(session)
        found.sessions = len(sessions)
        if not sessions:
            raise RuntimeError(f"no widget session could be created for the streams (status {status})")
        opened = 0
        all_answered = asyncio.Event()

        async def follow(session: str) -> None:
            nonlocal opened
            try:
                async with client.stream("GET", f"{API}/widget/session/{session}/events") as response:
                    found.tally.count(response.status_code)
                    opened += 1
                    if opened == count:
                        all_answered.set()
                    async for _ in response.aiter_lines():
                        pass
            except httpx.HTTPError as error:
                found.tally.count(type(error).__name__)
                opened += 1
                if opened == count:
                    all_answered.set()

        tasks = [asyncio.create_task(follow(session)) for session, _ in zip(itertools.cycle(sessions), range(count))]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(all_answered.wait(), timeout=60)
        await asyncio.sleep(1)  # let the server settle after the burst of opening requests
        before, started = tree_cpu_seconds(server_pid), time.monotonic()
        await asyncio.sleep(IDLE_SECONDS)
        used, elapsed = tree_cpu_seconds(server_pid) - before, time.monotonic() - started
        found.cpu_percent = 100 * used / elapsed
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return found


def run(server: Server, key: str, args: argparse.Namespace) -> tuple[list[Tally], Streams]:
    tallies = []
    with httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as owner:
        for number, (name, pattern) in enumerate(PATTERNS.items() if args.seconds > 0 else ()):
            bot = make_chatbot(owner, f"abuse {number}")
            log(f"{name}: {args.seconds:.0f} s...")
            tallies.append(asyncio.run(hammer(server.base, bot, name, pattern, args.seconds, args.concurrency)))
        log(f"f. {args.streams} idle event streams...")
        streams = asyncio.run(idle_streams(server.base, make_chatbot(owner, "abuse streams"), args.streams, server.pid))
    return tallies, streams


def report(database: str, args: argparse.Namespace, tallies: list[Tally], streams: Streams) -> list[str]:
    messages, window = RATE_LIMIT
    header = f"{'pattern':<44} {'seconds':>7} {'accepted':>8} {'refused':>7}  {'other':<16} {'vs limit':>8}"
    lines = [
        f"== {database}: rate_limit [{messages}, {window}] per chatbot, one client address (127.0.0.1), "
        f"{args.concurrency} connections, each pattern its own fresh chatbot and {args.seconds:.0f} s window",
        header,
        "-" * len(header),
    ]
    for tally in tallies:
        # A per-address limit admits `messages` per `window` s (sliding): what one address may get in this run.
        allowed = messages * max(1, -(-int(tally.seconds) // window))
        other = ", ".join(f"{status} x{count}" for status, count in tally.other.items()) or "-"
        ratio = f"{tally.accepted / allowed:.1f}x"
        lines.append(
            f"{tally.name:<44} {tally.seconds:>7.1f} {tally.accepted:>8} {tally.refused:>7}  {other:<16} {ratio:>8}"
        )
    if tallies:
        lines.append(f"('vs limit': accepted / the {messages} a window allows one address; above 1.0x got through)")
    other = ", ".join(f"{status} x{count}" for status, count in streams.tally.other.items()) or "none"
    lines += [
        f"f. idle event streams: {streams.wanted} wanted on {streams.sessions} sessions; accepted "
        f"{streams.tally.accepted}, refused (429) {streams.tally.refused}, other {other}",
        f"   server CPU while they idle ({IDLE_SECONDS:.0f} s): {streams.cpu_percent:.1f}% of one core",
    ]
    return lines


@contextlib.contextmanager
def fresh_database(kind: str, postgres_url: str) -> Iterator[tuple[Database, Path]]:
    with tempfile.TemporaryDirectory(prefix="botyard-bench-abuse-") as directory:
        if kind == "sqlite":
            yield SqliteDatabase(Path(directory)), Path(directory)
        else:
            with postgres_database(postgres_url) as database:
                yield database, Path(directory)


def raise_open_files_limit(wanted: int) -> None:
    """Each stream holds a socket on both ends; the server (a child) inherits this process's limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument(
        "--postgres-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="a server where the benchmark may create and drop a database",
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="window of each pattern a-e (0: skip them)")
    parser.add_argument("--concurrency", type=int, default=8, help="concurrent connections of patterns a-e")
    parser.add_argument("--streams", type=int, default=300, help="idle event streams of pattern f")
    parser.add_argument(
        "--streams-per-address",
        type=int,
        help="the service's BOTYARD_STREAMS_PER_ADDRESS (default: its own); raise it to price 300 idle streams",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    raise_open_files_limit(4 * args.streams + 1024)
    with fresh_database(args.database, args.postgres_url) as (database, data_dir):
        limit = (
            {} if args.streams_per_address is None else {"BOTYARD_STREAMS_PER_ADDRESS": str(args.streams_per_address)}
        )
        server = Server(data_dir, database.env | limit)
        key = server.create_key()
        with server.running():
            tallies, streams = run(server, key, args)
    print("\n".join(report(args.database, args, tallies, streams)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
