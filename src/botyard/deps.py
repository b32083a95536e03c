"""Request dependencies as named `Annotated` aliases, so that handler signatures read like prose: the request's unit
of work and the process's parts. Who signs a request is `identity.caller`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from fastapi.routing import iter_route_contexts
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.client_address import client_network, trusted_networks
from botyard.config import Settings
from botyard.db.session import Database
from botyard.egress import EgressClient
from botyard.retrieval.retriever import Retriever

# The dependencies below are `async def` though none of them waits for anything: FastAPI runs a plain `def`
# dependency in a worker thread, a thread hop per dependency per request (four on every chat message).
_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def _db_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's unit of work: committed when the handler succeeds, rolled back when it raises."""
    database: Database = request.app.state.database
    async with database.transaction(write=request.method not in _READ_METHODS) as session:
        yield session


async def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


# scope="function": commit before the response is sent, so a client that reads right after sees its write, and a
# failed commit becomes an error response instead of a lost write behind a 200.
async def _egress(request: Request) -> EgressClient:
    egress: EgressClient = request.app.state.egress
    return egress


async def _database(request: Request) -> Database:
    database: Database = request.app.state.database
    return database


async def _clock(request: Request) -> Callable[[], datetime]:
    clock: Callable[[], datetime] = request.app.state.clock
    return clock


Egress = Annotated[EgressClient, Depends(_egress)]
"""The guarded outbound HTTP client (checks URLs at creation; fetches happen in jobs)."""

DbSession = Annotated[AsyncSession, Depends(_db_session, scope="function")]


async def _read_session(request: Request) -> AsyncIterator[AsyncSession]:
    database: Database = request.app.state.database
    async with database.transaction(write=False) as session:
        yield session


ReadDbSession = Annotated[AsyncSession, Depends(_read_session, scope="function")]
"""A read-only unit of work for a POST that writes nothing (a search): on SQLite it takes no write lock."""


async def _retriever(request: Request) -> Retriever:
    retriever: Retriever = request.app.state.retriever
    return retriever


AppRetriever = Annotated[Retriever, Depends(_retriever)]
"""The process's retriever (per-chatbot search indexes, cached)."""
AppSettings = Annotated[Settings, Depends(_settings)]
AppDatabase = Annotated[Database, Depends(_database)]
"""The process's database, for handlers that open their own transactions (streams)."""
AppClock = Annotated[Callable[[], datetime], Depends(_clock)]
"""Now, for what counts time windows (rate limits)."""


def route_template(request: Request) -> str:
    """The template of the route that took the request, as served (`/api/v1/chatbot/{uuid}`). The router hands on the
    route as its router declared it (`/chatbot/{uuid}`); the prefixes come from the app's routes, read once."""
    templates: dict[int, str] | None = getattr(request.app.state, "route_templates", None)
    if templates is None:
        contexts = iter_route_contexts(request.app.routes)
        templates = {id(context.original_route): context.path_format or "" for context in contexts}
        request.app.state.route_templates = templates
    return templates.get(id(request.scope.get("route")), "")


async def _client_network(request: Request) -> str:
    settings: Settings = request.app.state.settings
    peer = request.client.host if request.client is not None else None
    trusted = trusted_networks(settings.trusted_proxies)  # a few microseconds: cheaper than keeping it in sync
    return client_network(peer, request.headers.get("x-forwarded-for"), trusted)


ClientNetwork = Annotated[str, Depends(_client_network)]
"""The caller's address (its IPv6 /64), read through the trusted proxies: what the limits on anonymous traffic count."""
