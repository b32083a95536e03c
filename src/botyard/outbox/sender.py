"""The job handler that sends one attempt of a webhook delivery.

Through the egress guard (a private address is refused unless the operator allowlisted it: nothing is sent), with
short timeouts and no redirects followed. A 2xx answer delivers; a network failure, a timeout, 408, 429 or a 5xx is
tried again after `RETRY_DELAYS`; a refused URL, a redirect or any other status fails at once. Each attempt's
outcome and the next attempt (a new job, due when the schedule says) are written with the job's completion, in one
transaction. At least once: a receiver deduplicates on `webhook-id`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import utcnow
from botyard.egress import EgressClient, EgressError, EgressHTTPError, EgressLimits, EgressRefused, Reason
from botyard.jobs.handler import JobContext
from botyard.jobs.kinds import WebhookAttempt
from botyard.jobs.reasons import shown_reason
from botyard.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from botyard.outbox import signing
from botyard.outbox.events import enqueue_attempt
from botyard.outbox.repository import DeliveryRepository

RETRY_DELAYS: tuple[timedelta, ...] = tuple(
    timedelta(seconds=seconds) for seconds in (5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600)
)
"""The wait before each retry (Standard Webhooks' schedule): 8 attempts over about 27 hours."""
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
LIMITS = EgressLimits(connect_timeout=5, read_timeout=10, total_timeout=15, max_bytes=1024 * 1024, max_redirects=0)
"""A receiver should answer at once (and do its work later); its body is read only for an excerpt."""
EXCERPT_CHARS = 500
KEEP_DELIVERIES = timedelta(days=30)
"""How long a finished delivery stays in its webhook's log (`GET /webhook/{uuid}/deliveries`)."""
_RETRIED_STATUSES = frozenset({408, 429})


@dataclass(frozen=True)
class Attempt:
    """What one attempt needs, read before sending (no transaction is open while the receiver answers)."""

    delivery_uuid: str
    chatbot_uuid: str
    url: str
    secret: str
    enabled: bool
    event_id: str
    body: bytes
    pending: bool


@dataclass(frozen=True)
class Outcome:
    delivered: bool
    retry: bool
    status_code: int | None = None
    error: str = ""
    excerpt: str = ""


class WebhookSender:
    """Sends `webhook_delivery` jobs (one attempt each)."""

    payload_type = WebhookAttempt
    timeout_seconds = 60.0

    def __init__(self, egress: EgressClient, clock: Callable[[], datetime] = utcnow) -> None:
        self.egress = egress.with_limits(LIMITS)
        self.clock = clock

    async def run(self, ctx: JobContext[WebhookAttempt]) -> None:
        delivery_uuid = ctx.payload.delivery_uuid
        attempt = await ctx.read(lambda db: _attempt(db, delivery_uuid))
        if attempt is None or not attempt.pending:
            return  # its webhook or chatbot was deleted, or a crashed run already recorded it
        if attempt.enabled:
            outcome = await self.send(attempt)
        else:
            outcome = Outcome(delivered=False, retry=False, error="webhook disabled")
        now = self.clock()
        await ctx.finish(lambda db: record(db, attempt, outcome, now))

    async def send(self, attempt: Attempt) -> Outcome:
        timestamp = int(self.clock().timestamp())
        headers = signing.headers(attempt.secret, attempt.event_id, timestamp, attempt.body)
        try:
            result = await self.egress.fetch(attempt.url, method="POST", headers=headers, content=attempt.body)
        except EgressHTTPError as error:
            status = error.result.status
            retry = status in _RETRIED_STATUSES or status >= 500
            return Outcome(False, retry, status, f"http {status}", _excerpt(error.result.text()))
        except EgressRefused as error:
            reason = "redirects are not followed" if error.reason == Reason.TOO_MANY_REDIRECTS else error.reason
            return Outcome(delivered=False, retry=False, error=reason)
        except EgressError as error:  # timeout, network, too large: the receiver may do better next time
            return Outcome(delivered=False, retry=True, error=error.reason)
        if 200 <= result.status < 300:
            return Outcome(True, False, result.status, excerpt=_excerpt(result.text()))
        return Outcome(False, False, result.status, f"http {result.status}", _excerpt(result.text()))

    async def give_up(self, session: AsyncSession, payload: WebhookAttempt, reason: str) -> None:
        """The attempt's job itself failed (not the receiver): the delivery fails with the reason."""
        delivery = await DeliveryRepository(session).get(payload.delivery_uuid)
        if delivery is not None and delivery.status == DeliveryStatus.PENDING:
            await _close(session, delivery, DeliveryStatus.FAILED, self.clock())
            delivery.last_error = shown_reason(reason)


async def _attempt(db: AsyncSession, delivery_uuid: str) -> Attempt | None:
    found = await DeliveryRepository(db).with_webhook(delivery_uuid)
    if found is None:
        return None
    delivery, hook = found
    return Attempt(
        delivery_uuid=delivery.uuid,
        chatbot_uuid=hook.chatbot_uuid,
        url=hook.url,
        secret=hook.secret,
        enabled=hook.enabled or delivery.event_type == WebhookEvent.PING,  # a test is sent even when disabled
        event_id=delivery.event_id,
        body=delivery.body.encode(),
        pending=delivery.status == DeliveryStatus.PENDING,
    )


async def record(db: AsyncSession, attempt: Attempt, outcome: Outcome, now: datetime) -> None:
    """The attempt's outcome on the delivery and, when it is to be tried again, the job of the next attempt."""
    delivery = await DeliveryRepository(db).get(attempt.delivery_uuid)
    if delivery is None:
        return
    delivery.attempts += 1
    delivery.last_status_code = outcome.status_code
    delivery.last_error = outcome.error
    delivery.response_excerpt = outcome.excerpt
    if outcome.delivered:
        await _close(db, delivery, DeliveryStatus.DELIVERED, now)
    elif outcome.retry and delivery.attempts < MAX_ATTEMPTS:
        due = now + RETRY_DELAYS[delivery.attempts - 1]
        delivery.next_attempt_at = due
        await enqueue_attempt(db, delivery, attempt.chatbot_uuid, due)
    else:
        await _close(db, delivery, DeliveryStatus.FAILED, now)


async def _close(db: AsyncSession, delivery: WebhookDelivery, status: DeliveryStatus, now: datetime) -> None:
    """The delivery's end; and its webhook's deliveries made more than `KEEP_DELIVERIES` ago go (the log shows
    the latest ones: without a bound it would grow by a row per event for as long as the webhook lives)."""
    delivery.status = status.value
    delivery.next_attempt_at = None
    delivery.finished_at = now
    await DeliveryRepository(db).prune_finished(delivery.webhook_uuid, now - KEEP_DELIVERIES)


def _excerpt(text: str) -> str:
    return text[:EXCERPT_CHARS]
