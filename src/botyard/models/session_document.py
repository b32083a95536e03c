from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, Timestamps, UuidPk


class SessionDocument(UuidPk, Timestamps, Base):
    """A file an account uploaded to talk about in its chat sessions (`POST /session-document/upload`).

    A document's text is extracted once, at upload, and kept whole: it goes to the model whole or not at all. An
    image keeps its bytes instead (`image`), for models that see images; its `text` is empty."""

    __tablename__ = "session_document"

    account_uuid: Mapped[str] = mapped_column(ForeignKey("account.uuid", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(Text)
    content_type: Mapped[str] = mapped_column(String(255))
    size: Mapped[int] = mapped_column(BigInteger)
    """Bytes uploaded."""
    tokens: Mapped[int] = mapped_column(default=0)
    """What the document costs in a prompt (o200k count of `text`; a fixed estimate for an image)."""
    text: Mapped[str] = mapped_column(Text, default="")
    image: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)


class MessageDocument(Base):
    """A session document a message used, in the order the documents were given to the model.

    A session's documents are those its messages used: a message that attaches documents (and was answered) links
    them, and every later message of the session links them again, so deleting the first message does not take the
    documents out of the conversation, and a message refused as too long links nothing."""

    __tablename__ = "message_document"

    message_uuid: Mapped[str] = mapped_column(ForeignKey("message.uuid", ondelete="CASCADE"), primary_key=True)
    document_uuid: Mapped[str] = mapped_column(
        ForeignKey("session_document.uuid", ondelete="CASCADE"), primary_key=True, index=True
    )
    position: Mapped[int] = mapped_column(default=0)
