"""How a job's failure is told: to the operator (the log line's job and next step) and to the owner (a reason made
to be shown, never an exception's own text)."""

from __future__ import annotations

import re

from botyard.models import Job


def described(job: Job) -> str:
    """`<uuid> (<kind>, <payload's ids>)`: what an operator needs to find the job and what it worked on."""
    ids = ", ".join(f"{name}={value}" for name, value in job.payload.items() if isinstance(value, str | int))
    return f"{job.uuid} ({job.kind}{', ' + ids if ids else ''})"


def next_step(job: Job, permanent: bool) -> str:
    """What the runner does next, as its `_failed` decides it."""
    if permanent:
        return "gave up"
    if job.attempts < job.max_attempts:
        return f"attempt {job.attempts} of {job.max_attempts}, retried later"
    return f"attempt {job.attempts} of {job.max_attempts}, gave up"


_MACHINE_REASON = re.compile(r"^[a-z0-9][a-z0-9 _\-]{0,47}$")
"""A reason made to be shown: short, lower case, no punctuation ("private address", "http 503", "no text")."""
FAILED = "processing failed"


def shown_reason(reason: str) -> str:
    """What an owner sees of a reason a handler's `give_up` got: a machine reason as it is; anything else (an
    exception's own text, which may name files, SQL or addresses) as "processing failed". The whole text stays in the
    job's `error` and the log, for the operator."""
    return reason if _MACHINE_REASON.match(reason) else FAILED
