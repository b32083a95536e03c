"""Session documents in an answer: the ones a message names and the session's earlier ones, whether they fit the
agent's model (`session_documents.budget`), and, offline, their passages as hits that compete with the knowledge's
for the quote.

Which documents a message may attach is `session_documents.service.for_message`'s to say.
"""

from __future__ import annotations

from collections.abc import Sequence

from botyard.answering.base import AnswerRequest
from botyard.answering.model.prompt import document_room
from botyard.answering.routing.supervisor import ChosenAgent
from botyard.ingestion.chunk import chunk_markdown
from botyard.llm.registry import ModelRegistry, UnknownModel
from botyard.retrieval.base import Hit
from botyard.retrieval.embedded.lexical import Document, LexicalIndex
from botyard.retrieval.relevance import coverage
from botyard.session_documents.budget import Admission, AttachedDocument, admit

SESSION_DOCUMENT = "session_document"
"""The `source_type` of a session document's passage (a hit, a citation)."""
RELEVANT_COVERAGE = 0.4
"""Offline, a document passage answers when it holds this share of the question's weighted words (the relevance
decision's bar for coverage alone)."""
MAX_DOCUMENT_HITS = 4
FALLBACK_BUDGET = 4000
"""The budget of an agent model without a `-Nk` suffix (agents are validated against the catalogue: never, today)."""
MIN_DOCUMENT_CONTEXT = 16_000
"""Session documents need an agent model of at least 16k context. The hosted service ignores them for a smaller one
(`gpt-4o-mini-4k`, the default agent's): the reply comes from the knowledge as if none were sent, with no error
(the official SDK's `test_chat_session_file_upload_ignored`); clients written for it rely on that."""


def admission(
    agent: ChosenAgent | None,
    query: str,
    show_citations: bool,
    new: Sequence[AttachedDocument],
    earlier: Sequence[AttachedDocument],
) -> Admission:
    """What the message uses of the documents, or the too-long reply. Without an agent (live chat, no agent) no
    model reads them now: they join the session unchecked and are weighed when an agent answers. An agent whose
    model has less than `MIN_DOCUMENT_CONTEXT` reads none: the message's documents do not join the session, and the
    earlier ones sit this answer out."""
    if not new and not earlier:
        return Admission([])
    if agent is None:
        known = {document.uuid for document in earlier}
        return Admission([*earlier, *(document for document in new if document.uuid not in known)])
    try:
        budget = ModelRegistry().resolve(agent.model).context_tokens  # the suffix alone gives the budget
    except UnknownModel:
        budget = FALLBACK_BUDGET
    if budget < MIN_DOCUMENT_CONTEXT:
        return Admission([])
    request = AnswerRequest(
        query=query, hits=[], show_citations=show_citations, agent_prompt=agent.prompt, variables=agent.variables
    )
    return admit(new, earlier, document_room(request, budget))


def document_hits(documents: Sequence[AttachedDocument], query: str) -> tuple[list[Hit], dict[str, float]]:
    """Offline: the documents' chunks that answer `query`, best first by how much of the question they hold, and
    the question's term weights among them (an image has no text to quote)."""
    rows: list[tuple[AttachedDocument, int, str, str]] = []
    for document in documents:
        for position, chunk in enumerate(chunk_markdown(document.text) if document.text.strip() else []):
            rows.append((document, position, chunk.heading(), chunk.text))
    if not rows:
        return [], {}
    index = LexicalIndex([Document(row, rows[row][0].uuid, _lexical(rows[row])) for row in range(len(rows))])
    weights = index.weights(query)
    hits = []
    for row, (document, position, heading, text) in enumerate(rows):
        share = coverage(weights, index.terms_in(_lexical(rows[row]), row))
        if share >= RELEVANT_COVERAGE:
            hits.append(
                Hit(
                    chunk_uuid=f"{document.uuid}:{position}",
                    data_source_uuid=document.uuid,
                    source_title=document.name,
                    source_type=SESSION_DOCUMENT,
                    heading=heading,
                    text=text,
                    score=share,
                    coverage=share,
                    source_file_name=document.name,
                )
            )
    hits.sort(key=lambda hit: -hit.coverage)  # stable: equal shares keep the document's order
    return hits[:MAX_DOCUMENT_HITS], weights


def _lexical(row: tuple[AttachedDocument, int, str, str]) -> str:
    document, _, heading, text = row
    return "\n".join(part for part in (document.name, heading, text) if part)


def merged_hits(documents: Sequence[Hit], knowledge: Sequence[Hit], limit: int) -> list[Hit]:
    """Offline: the documents' passages merged into the knowledge's relevant hits, each list keeping its own order:
    a passage goes before the next knowledge hit unless that hit holds more of the question (a tie goes to the
    document: the user brought it to this conversation)."""
    merged: list[Hit] = []
    pending, rest = list(documents), list(knowledge)
    while (pending or rest) and len(merged) < limit:
        if pending and (not rest or pending[0].coverage >= rest[0].coverage):
            merged.append(pending.pop(0))
        else:
            merged.append(rest.pop(0))
    return merged
