"""`GET /metrics`: the Prometheus text exposition.

What the processes counted (`botyard.metrics`), summed over every worker of `botyard serve --workers N` through
prometheus-client's multiprocess files, plus what only the database knows, read once per scrape (never per request),
so that it is right whichever process answers and whichever runs the jobs (`botyard worker`s included):

- `botyard_jobs{kind, state}`: jobs of each kind in each state (`queued`, `running`, `done`, `failed`);
- `botyard_job_queue_depth`: queued jobs whose time has come, the work waiting for a runner;
- `botyard_job_oldest_due_seconds`: how long the longest-waiting of those has waited (0 when none);
- `botyard_conversations_last_day{outcome}`: the conversations started in the last 24 hours by outcome (`resolved`,
  `unresolved`, `handed_off`; `none` while nothing was asked), for a resolution-rate alert.

`BOTYARD_METRICS=off` leaves the path out (404 like any unknown path); `BOTYARD_METRICS_TOKEN` makes a scrape without
`Authorization: Bearer <token>` a 401 with the service's error body. Not in the OpenAPI document: it is for the
operator's scraper, not for API clients.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path

import anyio.to_thread
from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from botyard.chat.service import outcome_counts
from botyard.config import Settings
from botyard.db.base import utcnow
from botyard.db.session import Database
from botyard.errors import unauthorized
from botyard.jobs.service import QueueState, queue_state

log = logging.getLogger(__name__)
LAST_DAY = timedelta(hours=24)


def router() -> APIRouter:
    metrics_router = APIRouter(tags=["operations"])

    @metrics_router.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        """Prometheus metrics (text exposition format)."""
        settings: Settings = request.app.state.settings
        _authorise(settings, request.headers.get("authorization"))
        state = await _queue_state(request.app.state.database)
        outcomes = await _outcomes(request.app.state.database)
        body = await anyio.to_thread.run_sync(generate_latest, Scrape(settings.metrics_dir, state, outcomes))
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    return metrics_router


def _authorise(settings: Settings, authorization: str | None) -> None:
    if settings.metrics_token is None:
        return
    expected = f"Bearer {settings.metrics_token.get_secret_value()}".encode()
    if not hmac.compare_digest((authorization or "").encode(), expected):
        raise unauthorized("Invalid or missing metrics token")


async def _queue_state(database: Database) -> QueueState | None:
    """The queue's state, or None when the database does not answer (the processes' own metrics still do)."""
    try:
        async with database.transaction(write=False) as db:
            return await queue_state(db, utcnow())
    except Exception:
        log.warning("metrics: the job queue could not be read", exc_info=True)
        return None


async def _outcomes(database: Database) -> dict[str, int] | None:
    """The last day's conversations by outcome, or None when the database does not answer."""
    try:
        async with database.transaction(write=False) as db:
            return await outcome_counts(db, utcnow() - LAST_DAY)
    except Exception:
        log.warning("metrics: the conversations' outcomes could not be read", exc_info=True)
        return None


class Scrape(Collector):
    """One scrape: the processes' metrics (this process's, or every worker's from the multiprocess directory) and
    the queue's gauges."""

    def __init__(
        self, multiprocess_dir: Path | None, queue: QueueState | None, outcomes: dict[str, int] | None = None
    ) -> None:
        self.multiprocess_dir = multiprocess_dir
        self.queue = queue
        self.outcomes = outcomes

    def collect(self) -> Iterable[Metric]:
        if self.multiprocess_dir is None:
            yield from REGISTRY.collect()
        else:
            registry = CollectorRegistry()
            MultiProcessCollector(registry, path=str(self.multiprocess_dir))  # type: ignore[no-untyped-call]
            yield from registry.collect()
        if self.queue is not None:
            yield from _queue_families(self.queue)
        if self.outcomes is not None:
            family = GaugeMetricFamily(
                "botyard_conversations_last_day",
                "Conversations started in the last 24 hours, by outcome.",
                labels=("outcome",),
            )
            for outcome in ("resolved", "unresolved", "handed_off", "none"):
                family.add_metric((outcome,), self.outcomes.get(outcome, 0))
            yield family


def _queue_families(queue: QueueState) -> Iterable[Metric]:
    jobs = GaugeMetricFamily("botyard_jobs", "Jobs of each kind in each state.", labels=("kind", "state"))
    for kind, state, count in queue.counts:
        jobs.add_metric((kind, state), count)
    yield jobs
    yield GaugeMetricFamily("botyard_job_queue_depth", "Queued jobs whose time has come.", value=queue.due)
    waited = 0.0 if queue.oldest_due is None else max(0.0, (utcnow() - queue.oldest_due).total_seconds())
    yield GaugeMetricFamily(
        "botyard_job_oldest_due_seconds", "How long the longest-waiting due job has waited.", value=waited
    )
