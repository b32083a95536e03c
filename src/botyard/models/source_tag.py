from __future__ import annotations

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk


class SourceTag(UuidPk, Timestamps, Base):
    __tablename__ = "source_tag"

    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(Text)
    color: Mapped[str] = mapped_column(String(7))


class SourceTagMember(Base):
    __tablename__ = "source_tag_member"

    tag_uuid: Mapped[str] = mapped_column(ForeignKey("source_tag.uuid", ondelete="CASCADE"), primary_key=True)
    data_source_uuid: Mapped[str] = mapped_column(
        ForeignKey("data_source.uuid", ondelete="CASCADE"), primary_key=True, index=True
    )
    position: Mapped[int] = mapped_column(default=0)
