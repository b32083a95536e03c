from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class IndexSnapshot(UuidPk, Base):
    """A chatbot's saved search index, shared through the database (`botyard.retrieval.embedded.shared`), so that a
    process on another machine loads what one machine built instead of building it again. Only on PostgreSQL: SQLite's
    processes share one data directory, and its snapshots with it.

    Its bytes are a tar of the snapshot's folder in `IndexSnapshotPiece`s. `signature` (HMAC-SHA256, with a key
    derived from the instance's secret key, of the chatbot, version, code key and size together with the bytes'
    SHA-256: `retrieval.embedded.shared.signature`) is set once every piece is written: a row without one is an upload
    under way or abandoned, and a reader loads nothing it cannot verify (the folder holds a pickle), nor a row moved to
    another chatbot."""

    __tablename__ = "index_snapshot"
    __table_args__ = (Index("ix_index_snapshot_chatbot_key_version", "chatbot_uuid", "code_key", "version"),)

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    """The knowledge version the index was built at."""
    code_key: Mapped[str] = mapped_column(String(16))
    """`retrieval.embedded.snapshot.code_key`: the code, libraries and embedder that made it; others cannot read it."""
    size: Mapped[int] = mapped_column(BigInteger, default=0)
    signature: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class IndexSnapshotPiece(Base):
    """A piece of a shared snapshot's bytes, in order (`seq`)."""

    __tablename__ = "index_snapshot_piece"

    snapshot_uuid: Mapped[str] = mapped_column(ForeignKey("index_snapshot.uuid", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
