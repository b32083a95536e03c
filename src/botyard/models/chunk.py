from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from botyard.db.base import Base, UuidPk, utcnow


class Chunk(UuidPk, Base):
    """A searchable piece of a data source. A source's chunks are replaced together, in one transaction."""

    __tablename__ = "chunk"
    __table_args__ = (
        Index("ix_chunk_source_position", "data_source_uuid", "position"),
        # A chatbot's chunks, and a sample of them in uuid order (`chunk_sample`, read at each knowledge change to
        # tell the knowledge's language) as a short range scan rather than a sort of all of them.
        Index("ix_chunk_chatbot_uuid_uuid", "chatbot_uuid", "uuid"),
    )

    data_source_uuid: Mapped[str] = mapped_column(ForeignKey("data_source.uuid", ondelete="CASCADE"))
    chatbot_uuid: Mapped[str] = mapped_column(ForeignKey("chatbot.uuid", ondelete="CASCADE"))
    position: Mapped[int]
    heading: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text)
    tokens: Mapped[int]
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    """Little-endian float32 vector (`botyard.embedding.encode_vector`), None until embedded or without an embedder."""
    passage_vectors: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    """The vectors of the chunk's passages (`botyard.passages.passages(text)`, in order), little-endian float16
    rows (`encode_matrix`): the offline answerer ranks passages by meaning with them. None until embedded."""
    embedder: Mapped[str | None] = mapped_column(String(200), default=None)
    """The `Embedder.name` that produced `embedding`: a chunk embedded by another model is embedded again."""
    terms: Mapped[str | None] = mapped_column(Text, default=None)
    """The index terms of the heading and text, analysed at ingestion and joined by spaces: a search index's build
    joins them instead of analysing the text again (`retrieval.stored_terms`). None: not kept (no language shows)."""
    terms_tag: Mapped[str | None] = mapped_column(String(80), default=None)
    """The language `terms` were analysed in, with the analysis code's key: a build uses them only when both match."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
