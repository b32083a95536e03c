"""The owners' retrieve endpoint ("hit testing"): what it takes and what it answers."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from botyard.retrieval.fusion import Method
from botyard.retrieval.relevance import Reason, Strictness
from botyard.schemas import RequestModel, Uuid

Query = Annotated[str, StringConstraints(min_length=1, max_length=4000, strip_whitespace=True)]


class RetrieveRequest(RequestModel):
    query: Query = Field(description="The text to search for, as an end user would ask it.")
    top_k: int = Field(default=8, ge=1, le=50, description="How many chunks to return.")
    agent_uuid: Uuid | None = Field(
        default=None, description="Search only the sources this agent of the chatbot answers from."
    )
    method: Method = Field(
        default=Method.HYBRID, description="hybrid (what answering uses), or bm25 / dense alone to compare them."
    )
    strictness: Strictness | None = Field(
        default=None, description="The relevance decision's strictness to try (default: the chatbot's own)."
    )


class RetrievedChunk(BaseModel):
    uuid: str
    data_source_uuid: str
    title: str = Field(description="The source's title.")
    heading: str = Field(description="The heading path of the chunk in its source (`A > B`).")
    text: str
    score: float = Field(description="The score the ranking uses.")
    scores: dict[str, float] = Field(
        description="Per method: `bm25` (BM25 over the query's largest possible BM25, 0..1), `dense` (cosine)."
    )
    coverage: float = Field(
        description="The share of the question's words, weighted by how specific each is here, that the chunk has."
    )


class Decision(BaseModel):
    """The relevance decision exactly as answering makes it (offline, it decides whether the bot answers)."""

    relevant: bool
    reason: Reason = Field(description="`matched`; `weak_match` (less evidence than required); `nothing_found`.")
    score: float = Field(description="The best chunk's evidence: its similarity (cosine) plus its coverage.")
    required: float = Field(description="What the strictness asks the score to reach.")
    similarity: float | None = Field(description="The best chunk's cosine with the question (0: not read).")
    coverage: float | None = Field(description="The share of the question's weighted words the best chunk has.")

    best_chunk: str | None = Field(description="The uuid of the chunk the decision rests on.")
    explanation: str


class RetrieveResponse(BaseModel):
    relevant: bool = Field(description="The relevance decision (offline, the bot declines without it): `decision`.")
    decision: Decision
    method: Method = Field(description="The method that ranked: bm25 when there are no embeddings to search.")
    chunks: list[RetrievedChunk]
