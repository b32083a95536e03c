"""Channel tests' helpers: an app of its own that calls the fake providers, and the channel jobs run on a clock the
test moves (a reply due in 30 s is sent without waiting 30 s)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from dataclasses import replace
from datetime import datetime

from sqlalchemy import func, select
from starlette.testclient import TestClient

from botyard.channels.answering import ChannelAnswerer
from botyard.channels.relay import ChannelRelayer
from botyard.channels.sending import ChannelSender
from botyard.jobs.kinds import JobKind
from botyard.jobs.runner import JobRunner
from botyard.models import Job, JobStatus
from botyard.runtime import Runtime
from tests.support.clock import ManualClock
from tests.support.jobs import FAST

KINDS = (JobKind.CHANNEL_ANSWER, JobKind.CHANNEL_SEND, JobKind.CHANNEL_RELAY)
PUBLIC_URL = "https://botyard.example.test"


def run_channel_jobs(client: TestClient, clock: ManualClock, rounds: int = 200) -> None:
    """Run the channel jobs as they fall due, moving `clock` to the next due one whenever none is due now, until none
    is queued (at most `rounds` moves)."""
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    handlers = [
        ChannelAnswerer(runtime.answers, runtime.settings, runtime.egress),
        ChannelSender(runtime.settings, runtime.egress, clock),
        ChannelRelayer(),
    ]
    runner = JobRunner(runtime.database, handlers, replace(FAST, clock=clock))

    async def run() -> None:
        for _ in range(rounds):
            while await runner.run_once():
                pass
            async with runtime.database.transaction(write=False) as session:
                statement = select(func.min(Job.run_after)).where(Job.status == JobStatus.QUEUED, Job.kind.in_(KINDS))
                due: datetime | None = (await session.execute(statement)).scalar_one()
            if due is None:
                return
            if due > clock.now:
                clock.now = due
        raise AssertionError("the channel jobs did not come to an end")

    assert client.portal is not None
    client.portal.call(run)


def signed_headers(secret: str, event_id: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    """The headers a generic channel's sender computes from the specification (not with the service's code)."""
    stamp = int(time.time()) if timestamp is None else timestamp
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{event_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(stamp),
        "webhook-signature": "v1," + base64.b64encode(mac).decode(),
        "content-type": "application/json",
    }
