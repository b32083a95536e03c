"""The search stage of an answer: retrieve from the knowledge the agent may use and, offline, let the session
documents' passages compete for the quote; made once into `Retrieved`, which the decision reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from botyard.answering.search_depth import MODEL_TOP_K, TOP_K
from botyard.answering.turn.citations import CitedSource
from botyard.answering.turn.documents import document_hits, merged_hits
from botyard.answering.turn.parts import AnswerParts
from botyard.answering.turn.records import Prepared, Searched
from botyard.retrieval.base import Hit, Retrieval
from botyard.retrieval.relevance import Assessment


@dataclass(frozen=True, kw_only=True)
class Retrieved:
    """What the search found: the retrieval, what it searched with (None: nothing was searched), the sources its
    hits may cite, and the hits to answer from with the session documents' (`hits`, `relevant`, `term_weights`)."""

    retrieval: Retrieval
    searched: Searched | None
    sources: Mapping[str, CitedSource]
    hits: list[Hit]
    relevant: bool
    term_weights: dict[str, float]

    @property
    def assessment(self) -> Assessment | None:
        """The relevance decision on what was retrieved."""
        return self.retrieval.assessment


async def search(parts: AnswerParts, prepared: Prepared) -> Retrieved:
    """Search the knowledge for the prepared question (nothing without an agent), then add the documents' hits."""
    sources: dict[str, CitedSource] = {}
    searched, retrieval = None, Retrieval(hits=[], relevant=False)
    if prepared.agent is not None and parts.retriever is not None and prepared.agent.source_uuids != []:
        searched, retrieval = await _retrieve(parts, prepared)
        if retrieval.hits and (retrieval.relevant or parts.answerer.model_decides):
            # The index holds each hit's source as of its knowledge version, at least the one this request read:
            # the same rows a second query would return, without the round trip.
            for hit in retrieval.hits:
                cited = CitedSource(hit.source_title, hit.source_file_name, hit.source_type, dict(hit.source_meta))
                sources.setdefault(hit.data_source_uuid, cited)
    hits, relevant, term_weights = _with_documents(parts, prepared, retrieval, sources)
    return Retrieved(
        retrieval=retrieval,
        searched=searched,
        sources=sources,
        hits=hits,
        relevant=relevant,
        term_weights=term_weights,
    )


async def _retrieve(parts: AnswerParts, prepared: Prepared) -> tuple[Searched, Retrieval]:
    retriever, agent = parts.retriever, prepared.agent
    assert retriever is not None and agent is not None
    query = await parts.answerer.search_query(prepared.query, prepared.history, agent.model)
    vector = await retriever.embed_query(query)  # before the transaction: no connection held meanwhile
    searched = Searched(query, vector, retriever.embedder.name if retriever.embedder is not None else None)
    async with parts.database.transaction(write=False) as db:
        retrieval = await retriever.retrieve(
            db,
            prepared.chatbot_uuid,
            query,
            source_uuids=agent.source_uuids,
            top_k=MODEL_TOP_K if parts.answerer.model_decides else TOP_K,
            vector=vector,
            strictness=prepared.strictness,
            version=prepared.knowledge_version,
        )
    if retrieval.relevant and not parts.answerer.model_decides:  # the offline answerer quotes by meaning
        async with parts.database.brief_read() as db:
            retrieval = await retriever.with_passages(db, retrieval, vector)
    return searched, retrieval


def _with_documents(
    parts: AnswerParts, prepared: Prepared, retrieval: Retrieval, sources: dict[str, CitedSource]
) -> tuple[list[Hit], bool, dict[str, float]]:
    """The hits to answer from, whether they answer, and the question's term weights. A model reads the session
    documents whole in its prompt; offline, their passages that hold the question compete with the knowledge's
    relevant hits for the quote (`answering.turn.documents`)."""
    if parts.answerer.model_decides or not prepared.documents:
        return retrieval.hits, retrieval.relevant, retrieval.term_weights
    found, weights = document_hits(prepared.documents, prepared.query)
    for hit in found:
        sources.setdefault(
            hit.data_source_uuid, CitedSource(hit.source_title, hit.source_file_name, hit.source_type, {})
        )
    hits = merged_hits(found, retrieval.hits if retrieval.relevant else [], TOP_K)
    return hits, bool(hits), retrieval.term_weights or weights
