from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk, utcnow
from botyard.models.kinds import TestRunStatus


class TestSet(UuidPk, Timestamps, Base):
    """An owner's questions with what a right answer must hold, asked again on demand to guard every change
    (`botyard.testsets`)."""

    __test__ = False  # not a pytest class
    __tablename__ = "test_set"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    run_after_changes: Mapped[bool] = mapped_column(default=False, server_default=false())
    """Run the set when the chatbot's knowledge changes (`testsets.watch`)."""


class TestCase(UuidPk, Base):
    """One question of a set: a right answer holds one of `expect_any`, or says it does not know (`expect_refuse`)."""

    __test__ = False
    __tablename__ = "test_case"
    __table_args__ = (Index("ix_test_case_set", "test_set_uuid", "position"),)

    test_set_uuid: Mapped[str] = mapped_column(ForeignKey("test_set.uuid", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column()
    question: Mapped[str] = mapped_column(Text)
    expect_any: Mapped[list[str]] = mapped_column(default=list)
    expect_refuse: Mapped[bool] = mapped_column(default=False, server_default=false())


class TestRun(UuidPk, Base):
    """One asking of a set's questions against the chatbot's knowledge and agents as they were then."""

    __test__ = False
    __tablename__ = "test_run"
    __table_args__ = (Index("ix_test_run_set", "test_set_uuid", "created_at"),)

    test_set_uuid: Mapped[str] = mapped_column(ForeignKey("test_set.uuid", ondelete="CASCADE"))
    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(16), default=TestRunStatus.QUEUED.value)
    """A `TestRunStatus`."""
    """`queued`, `running`, `done` or `failed`."""
    trigger: Mapped[str] = mapped_column(String(16), default="api")
    """`api` (the owner asked) or `knowledge` (the knowledge changed)."""
    knowledge_version: Mapped[int | None] = mapped_column(default=None)
    """The chatbot's knowledge version when the run started."""
    total: Mapped[int] = mapped_column(default=0)
    passed: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class TestResult(UuidPk, Base):
    """A question's verdict in one run, with the reply it was judged on."""

    __test__ = False
    __tablename__ = "test_result"
    __table_args__ = (Index("ix_test_result_run", "test_run_uuid", "position"),)

    test_run_uuid: Mapped[str] = mapped_column(ForeignKey("test_run.uuid", ondelete="CASCADE"))
    test_case_uuid: Mapped[str | None] = mapped_column(ForeignKey("test_case.uuid", ondelete="SET NULL"))
    position: Mapped[int] = mapped_column()
    question: Mapped[str] = mapped_column(Text)
    passed: Mapped[bool] = mapped_column()
    reply: Mapped[str] = mapped_column(Text, default="")
    confidence: Mapped[str | None] = mapped_column(String(8), default=None)
