"""The first step of an answer, committed before any byte is streamed: authorise, choose the agent, count against
the rate limit and store the query as a message in state `streaming`, with the session documents it uses (or, when
they do not fit the agent's model, the reply that says so: `answering.turn.documents`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError

from botyard.agents.rules import HUMAN_ESCALATION
from botyard.answering.base import Turn
from botyard.answering.routing.supervisor import AgentRouter
from botyard.answering.turn.documents import admission
from botyard.answering.turn.hand_off import hand_off
from botyard.answering.turn.reading import read_turn
from botyard.answering.turn.records import Ask, Prepared
from botyard.answering.turn.storing import store_query
from botyard.db.session import Database
from botyard.errors import not_found
from botyard.retrieval.relevance import Strictness
from botyard.retrieval.retriever import Retriever


async def prepare(
    database: Database, router: AgentRouter, ask: Ask, now: datetime, *, tools: bool, retriever: Retriever | None = None
) -> Prepared:
    """Authorise, choose the agent, count against the rate limit and store the query in state `streaming`. Raises
    before anything is stored when the caller may not chat here or is over the limit. In this order:

    1. one read transaction, which takes no write lock (`reading`): the session, its chatbot, the rate limit's
       check, the history, the agents, the session documents;
    2. outside any transaction (it may embed the query or call the model): the variables the query gives and the
       agent that answers (`routing`), with the hand-off policy's decision when it asks for a person (`hand_off`,
       its own short read), and what the agent's model admits of the documents;
    3. one write transaction (`storing`): the rate-limit count, the message and what the decision does, atomic
       together. SQLite has one writer at a time, and several server processes meet at its lock, so the shorter the
       write, the more answers per second.
    """
    query = ask.query
    async with database.brief_read() as db:
        read = await read_turn(db, ask, tools=tools, now=now)
    cards, chatbot = read.roster.cards, read.chatbot
    filled = {} if read.live_chat else await router.variable_values(cards, query)
    values = {**read.variables, **filled}
    chosen = None if read.live_chat else await router.choose(cards, query, read.previous_agent, values)
    handing = await hand_off(database, router, retriever, read, query, values, chosen, now)
    agent = handing.agent
    admitted = admission(agent, query, chatbot.show_citations, read.new_documents, read.earlier_documents)
    linked = [document.uuid for document in admitted.documents]
    try:
        async with database.brief_write() as db:
            message = await store_query(db, read, query, handing.decision, filled, linked, now)
    except IntegrityError as error:  # the session (or its chatbot) was deleted between the two transactions
        raise not_found("Session") from error
    return Prepared(
        message_uuid=message.uuid,
        session_uuid=read.session.uuid,
        chatbot_uuid=chatbot.uuid,
        query=query,
        history=[Turn(m.query, m.response) for m in read.turns if m.query],  # not the operator's rows
        show_citations=chatbot.show_citations,
        strictness=Strictness(chatbot.answer_strictness),
        language=read.language,
        agent=agent,
        live_chat=read.live_chat,
        monitored=next((card.monitored for card in cards if card.monitored), []),
        offers_person=any(card.type == HUMAN_ESCALATION and card.uuid for card in cards),  # an agent's
        background=read.roster.background,
        documents=admitted.documents,
        refusal=admitted.refusal,
        knowledge_version=chatbot.knowledge_version,
    )
