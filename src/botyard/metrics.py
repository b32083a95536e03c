"""The service's Prometheus metrics, and the middleware that counts requests.

What a process records as it works (each a counter increment or a histogram observation, no database query):

- `botyard_http_requests_total{method, route, status}` and `botyard_http_request_duration_seconds{method, route,
  status_class}`: `route` is the route's template (`/api/v1/session/{uuid}/message/stream`), never the raw path, and
  `unmatched` for a path no route takes, so the series stay bounded whatever clients send. The duration runs to the
  end of the response, a streamed answer's included.
- `botyard_answers_total{answerer, outcome}`: `answerer` is `offline` or `llm`; `outcome` is `answered` (the
  answerer was asked), `no_answer` (the knowledge held nothing relevant: the no-answer message, or small talk's
  greeting), `canned` (an agent's fixed reply), `refused` (attached documents too large for the model), `live_chat`,
  `failed` or `interrupted` (the client left).
- `botyard_answer_first_chunk_seconds{answerer, outcome}`: from the request's arrival to the answer's first text
  (`outcome` as above, known by then: `answered`, `no_answer`, `canned` or `refused`).
- `botyard_rate_limited_total{code, reason}`: the 429s, by error code and by the window that was full.
- `botyard_index_chunks`, `botyard_indexes`: what the in-memory search indexes hold (summed over live processes).

The scrape adds what is read from the database at scrape time (`botyard.scrape`). With `botyard serve --workers N`
the values live in prometheus-client's multiprocess files (`PROMETHEUS_MULTIPROC_DIR`, made by the supervisor for
its run), so a scrape answered by any worker sums them all.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextvars import ContextVar

from fastapi.routing import iter_route_contexts
from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

UNMATCHED = "unmatched"
"""The route label of a request no route took (a 404 for an unknown path): one series, whatever the path."""

# The `_created` series would double the output, and the multiprocess mode has none: the same output either way.
disable_created_metrics()  # type: ignore[no-untyped-call]

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
_FIRST_CHUNK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 60.0)

REQUESTS = Counter("botyard_http_requests", "HTTP requests answered.", ("method", "route", "status"))
LATENCY = Histogram(
    "botyard_http_request_duration_seconds",
    "Time from a request's arrival to the end of its response.",
    ("method", "route", "status_class"),
    buckets=_LATENCY_BUCKETS,
)
ANSWERS = Counter("botyard_answers", "Answers to chat messages, by answerer and outcome.", ("answerer", "outcome"))
FIRST_CHUNK = Histogram(
    "botyard_answer_first_chunk_seconds",
    "Time from a chat message's arrival to the first text of its answer.",
    ("answerer", "outcome"),
    buckets=_FIRST_CHUNK_BUCKETS,
)
RATE_LIMITED = Counter("botyard_rate_limited", "Requests refused with 429, by code and reason.", ("code", "reason"))
INDEX_CHUNKS = Gauge(
    "botyard_index_chunks", "Chunks held by the in-memory search indexes.", multiprocess_mode="livesum"
)
INDEXES = Gauge("botyard_indexes", "Chatbot search indexes held in memory.", multiprocess_mode="livesum")

_STARTED: ContextVar[float | None] = ContextVar("botyard_request_started", default=None)


def request_started() -> float | None:
    """When the request being answered arrived (`time.perf_counter`), None outside requests."""
    return _STARTED.get()


def answer_finished(answerer: str, outcome: str) -> None:
    ANSWERS.labels(answerer, outcome).inc()


def first_chunk(answerer: str, outcome: str, started: float) -> float:
    """Observe the time to an answer's first text, and return it (seconds)."""
    elapsed = time.perf_counter() - started
    FIRST_CHUNK.labels(answerer, outcome).observe(elapsed)
    return elapsed


def rate_limited(code: str, reason: str) -> None:
    RATE_LIMITED.labels(code, reason).inc()


def indexes_held(indexes: int, chunks: int) -> None:
    """What this process's search index cache holds now (set when it changes)."""
    INDEXES.set(indexes)
    INDEX_CHUNKS.set(chunks)


class _Record:
    """One request's route, as the router chose it (filled by `RouteProbe`, read by `RequestMetrics`)."""

    __slots__ = ("route",)

    def __init__(self) -> None:
        self.route = UNMATCHED


_KEY = "botyard.metrics"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class RequestMetrics:
    """ASGI middleware: counts each HTTP request and times it, by method, route template and status.

    It sits outside the other middleware so that their own answers (a 413 before any route, a CORS preflight) count
    too; the route is learnt from `RouteProbe`, innermost, through a record shared in the scope (a middleware may
    hand a copy of the scope inwards, so the router's `scope["route"]` is not visible out here)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        _STARTED.set(started)
        record = scope[_KEY] = _Record()
        status = 500

        async def observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, observed)
        finally:
            method = scope["method"] if scope["method"] in _METHODS else "other"  # a client may send any word
            REQUESTS.labels(method, record.route, str(status)).inc()
            LATENCY.labels(method, record.route, f"{status // 100}xx").observe(time.perf_counter() - started)


class RouteProbe:
    """ASGI middleware, innermost: tells `RequestMetrics` the template of the route that answered.

    The router hands on the route it chose as included (`/session/{uuid}/message/stream`); the template as served
    (`/api/v1/session/...`) comes from `routes`, the app's, read at the first request, when they are all in."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.routes = routes
        self.templates: dict[int, str] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            record = scope.get(_KEY)
            route = scope.get("route")
            if isinstance(record, _Record) and route is not None:
                record.route = self._template(route)

    def _template(self, route: object) -> str:
        if self.templates is None:
            contexts = iter_route_contexts(self.routes)
            self.templates = {id(context.original_route): context.path_format or UNMATCHED for context in contexts}
        return self.templates.get(id(route)) or str(getattr(route, "path", UNMATCHED))
