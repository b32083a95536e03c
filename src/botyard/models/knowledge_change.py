from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base


class KnowledgeChange(Base):
    """Which sources a knowledge version of a chatbot changed: the log the in-process search indexes catch up from.

    Written in the transaction that bumps `Chatbot.knowledge_version` (the row lock on the chatbot orders those
    transactions, so versions commit in order): a process holding version v reads the sources of the versions after
    v and reloads only their chunks. A source deleted since has no chunks left, which is how a deletion reads. Old
    entries are pruned as new ones come (`KEPT_VERSIONS`); a process further behind rebuilds its index whole.
    """

    __tablename__ = "knowledge_change"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    data_source_uuid: Mapped[str] = mapped_column(String(32), primary_key=True)
    """No foreign key: the change of a deleted source outlives it."""
