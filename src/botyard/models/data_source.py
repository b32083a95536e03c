from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, ForeignKey, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk
from botyard.models.kinds import SourceStatus


class DataSource(UuidPk, Timestamps, Base):
    """A piece of knowledge: a Q&A pair (`qa`), a web page (`link`) or an uploaded file (`upload`): `SourceType`.

    `dedupe_key` makes a second upload of the same bytes, or a second source for the same URL, in one chatbot a
    conflict the database itself refuses.
    """

    __tablename__ = "data_source"
    __table_args__ = (UniqueConstraint("chatbot_uuid", "dedupe_key"),)

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(Text, default="")
    type: Mapped[str] = mapped_column(String(16))
    """A `SourceType`."""
    status: Mapped[str] = mapped_column(String(64), default=SourceStatus.QUEUED.value)
    """A `SourceStatus`, or a failure's `error:<reason>` (`SourceError`)."""
    file_name: Mapped[str] = mapped_column(Text, default="")
    file_size: Mapped[int] = mapped_column(BigInteger, default=0)
    tokens: Mapped[int] = mapped_column(default=0)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    dedupe_key: Mapped[str | None] = mapped_column(String(128), default=None)
    # SHA-256 of the extracted text the current chunks were made from: unchanged content is not chunked again.
    content_hash: Mapped[str | None] = mapped_column(String(64), default=None)


class SourceFile(Base):
    """The bytes of an uploaded file, kept in the database so that any worker can parse them."""

    __tablename__ = "source_file"

    data_source_uuid: Mapped[str] = mapped_column(ForeignKey("data_source.uuid", ondelete="CASCADE"), primary_key=True)
    content_type: Mapped[str] = mapped_column(String(255), default="application/octet-stream")
    sha256: Mapped[str] = mapped_column(String(64))
    content: Mapped[bytes] = mapped_column(LargeBinary)
