from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk, utcnow
from botyard.models.kinds import JobStatus


class Job(UuidPk, Timestamps, Base):
    """The job queue. A runner holds a job through a lease (`lease_owner`, `lease_until`) that it renews while it
    works; an expired lease puts the job back in the queue. Jobs of a deleted source or chatbot disappear with it
    (ON DELETE CASCADE), which is how deleting cancels pending work."""

    __tablename__ = "job"
    __table_args__ = (Index("ix_job_status_run_after", "status", "run_after"),)

    kind: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.QUEUED.value)
    """A `JobStatus`."""
    attempts: Mapped[int] = mapped_column(default=0)
    max_attempts: Mapped[int] = mapped_column(default=5)
    run_after: Mapped[datetime] = mapped_column(default=utcnow)
    lease_owner: Mapped[str | None] = mapped_column(String(64), default=None)
    lease_until: Mapped[datetime | None] = mapped_column(default=None)
    last_error: Mapped[str | None] = mapped_column(Text, default=None)
    chatbot_uuid: Mapped[str | None] = mapped_column(
        ForeignKey("chatbot.uuid", ondelete="CASCADE"), default=None, index=True
    )
    data_source_uuid: Mapped[str | None] = mapped_column(
        ForeignKey("data_source.uuid", ondelete="CASCADE"), default=None, index=True
    )
