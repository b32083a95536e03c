"""The hand-off every chatbot has without a human-escalation agent: a visitor who asks for a person ("Can I speak to
a real person?", in any language of `intents`) is handed to the account's people who take conversations, as such an
agent would hand them, while the chatbot keeps the one default agent it was made with. The owner turns it off with
the chatbot's `hand_off_requests` setting (`chatbots.handoff`); a human-escalation agent of the owner's replaces it.

It hands off only what the knowledge does not answer: a question about the business's ways that mentions a call
("Legt ihr bei teuren Zusatzarbeiten einfach los, ohne mich vorher anzurufen?" is 0.76 from a request for a call
back) reads like a request to the vectors, and an owner who made no hand-off agent expects it answered when the
knowledge can (`answered_by_knowledge`: the relevance decision the answer itself would take). It promises a person
only when one of the account's people who take conversations (the `live` permission) is there:
with nobody (an account of API keys alone) or everyone away, the visitor gets the after-hours message and the
contact form (`live.handoff_policy`, which decides all this), never "my reference documents"."""

from __future__ import annotations

from botyard.agents.rules import HUMAN_ESCALATION
from botyard.answering.routing.supervisor import AgentCard, ChosenAgent
from botyard.answering.search_depth import TOP_K
from botyard.db.session import Database
from botyard.models import AgentMeta, Chatbot, EscalationSettings
from botyard.retrieval.relevance import Strictness
from botyard.retrieval.retriever import Retriever

HAND_OFF = AgentCard(
    uuid="",  # no agent row: the message's meta names no agent, and the supervisor tells it from the owner's
    name="Hand-off to a person",
    type=HUMAN_ESCALATION,
    description="Talk to a real person from our team",
    prompt="",
    meta=AgentMeta(),
    variables=[],
    escalation=EscalationSettings.of(None),
    source_uuids=[],
)
"""The built-in hand-off's card: routed as a human-escalation agent with the default settings."""


def with_hand_off(cards: list[AgentCard]) -> list[AgentCard]:
    """The routed cards, with the built-in hand-off when no agent of the owner's hands off (whether the owner turned
    it off is read only once it is chosen, `prepare`)."""
    if not cards or any(card.type == HUMAN_ESCALATION for card in cards):
        return cards
    return [*cards, HAND_OFF]


def is_built_in(agent: ChosenAgent | None) -> bool:
    """Whether the supervisor chose the built-in hand-off (it has no agent row)."""
    return agent is not None and agent.type == HUMAN_ESCALATION and not agent.uuid


async def answered_by_knowledge(
    retriever: Retriever | None, database: Database, chatbot: Chatbot, agent: ChosenAgent, query: str
) -> bool:
    """Whether the knowledge `agent` answers from holds an answer to `query`, by the relevance decision of the
    chatbot's strictness over the offline answer's search (the embedding is the retriever's, cached for the answer)."""
    if retriever is None or agent.source_uuids == []:
        return False
    vector = await retriever.embed_query(query)
    async with database.transaction(write=False) as db:
        found = await retriever.retrieve(
            db,
            chatbot.uuid,
            query,
            source_uuids=agent.source_uuids,
            top_k=TOP_K,
            vector=vector,
            strictness=Strictness(chatbot.answer_strictness),
            version=chatbot.knowledge_version,
        )
    return found.relevant
