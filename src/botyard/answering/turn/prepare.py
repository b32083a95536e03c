"""The first step of an answer, committed before any byte is streamed: authorise, choose the agent, count against
the rate limit and store the query as a message in state `streaming`, with the session documents it uses (or, when
they do not fit the agent's model, the reply that says so: `answering.turn.documents`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.roster import enabled_agents
from botyard.agents.rules import HUMAN_ESCALATION
from botyard.answering.base import Turn
from botyard.answering.routing import variables
from botyard.answering.routing.supervisor import AgentRouter, ChosenAgent, Roster, roster
from botyard.answering.turn.built_in import answered_by_knowledge, is_built_in, with_hand_off
from botyard.answering.turn.documents import admission
from botyard.answering.turn.records import Ask, Prepared
from botyard.answering.turn.sweep import stream_owner
from botyard.chat import access, conversation, ratelimit
from botyard.chatbots import service as chatbots
from botyard.db.session import Database
from botyard.errors import not_found
from botyard.i18n import Language
from botyard.live import handoff_policy
from botyard.live import service as live
from botyard.live.handoff_policy import Decision, HandOffTo
from botyard.models import (
    Chatbot,
    ChatSession,
    Message,
    MessageMeta,
    MessageState,
    SessionMeta,
    WebhookEvent,
)
from botyard.outbox import events as webhooks
from botyard.retrieval.relevance import Strictness
from botyard.retrieval.retriever import Retriever
from botyard.session_documents import service as session_documents
from botyard.session_documents.budget import AttachedDocument

HISTORY_TURNS = 6


@dataclass(frozen=True)
class _Read:
    """What the read transaction found."""

    session: ChatSession
    chatbot: Chatbot
    owner_uuid: str | None
    """The caller's account when its key is the chatbot owner's, else None (a visitor)."""
    turns: list[Message]
    roster: Roster
    language: Language
    new_documents: list[AttachedDocument]
    earlier_documents: list[AttachedDocument]


async def prepare(
    database: Database, router: AgentRouter, ask: Ask, now: datetime, *, tools: bool, retriever: Retriever | None = None
) -> Prepared:
    """Authorise, choose the agent, count against the rate limit and store the query in state `streaming`. Raises
    before anything is stored when the caller may not chat here or is over the limit.

    Two transactions: the reads (session, chatbot, history, agents) take no write lock, and the agent is chosen
    between them (it may embed the query), with the hand-off policy's decision when it asks for a person
    (`live.handoff_policy`, its own short reads); the write transaction holds only the rate-limit count, the insert
    and what the decision does (for a human hand-off, the session's flag), which must be atomic together. SQLite has
    one writer at a time, and several server processes meet at its lock, so the shorter the write, the more answers
    per second.
    """
    read = await database.read_briefly(lambda db: _read(db, ask, tools, now))
    live_chat = live.is_live(read.session)
    declared = [variable for card in read.roster.cards for variable in card.variables if isinstance(variable, dict)]
    filled = {} if live_chat or not declared else await _fill(router, declared, ask.query)
    values = {**SessionMeta.of(read.session).variables, **filled}
    agent = None if live_chat else await router.choose(read.roster.cards, ask.query, _last_agent(read.turns), values)
    handing = await _hand_off(database, router, retriever, read, ask.query, values, agent, now)
    agent = _answering(agent, handing)
    admitted = admission(agent, ask.query, read.chatbot.show_citations, read.new_documents, read.earlier_documents)
    linked = [document.uuid for document in admitted.documents]
    try:
        message = await database.write_briefly(lambda db: _store(db, ask, read, handing, filled, now, linked))
    except IntegrityError as error:  # the session (or its chatbot) was deleted between the two transactions
        raise not_found("Session") from error
    return Prepared(
        message_uuid=message.uuid,
        session_uuid=read.session.uuid,
        chatbot_uuid=read.chatbot.uuid,
        query=ask.query,
        history=[Turn(m.query, m.response) for m in read.turns if m.query],  # not the operator's rows
        show_citations=read.chatbot.show_citations,
        strictness=Strictness(read.chatbot.answer_strictness),
        language=read.language,
        agent=agent,
        live_chat=live_chat,
        monitored=next((card.monitored for card in read.roster.cards if card.monitored), []),
        offers_person=any(card.type == HUMAN_ESCALATION and card.uuid for card in read.roster.cards),  # an agent's
        background=read.roster.background,
        documents=admitted.documents,
        refusal=admitted.refusal,
        knowledge_version=read.chatbot.knowledge_version,
    )


async def _hand_off(
    database: Database,
    router: AgentRouter,
    retriever: Retriever | None,
    read: _Read,
    query: str,
    values: dict[str, Any],
    agent: ChosenAgent | None,
    now: datetime,
) -> Decision[ChosenAgent] | None:
    """The hand-off policy's decision (`live.handoff_policy`) when the chosen agent asks for a person, else None.
    What only answering knows goes in as callables: the agent the owner's agents choose instead of the built-in
    hand-off, and whether its knowledge answers the query (`built_in`)."""
    if agent is None or not agent.human_requested:
        return None

    async def instead() -> ChosenAgent:
        owners = [card for card in read.roster.cards if card.uuid]
        return await router.choose(owners, query, _last_agent(read.turns), values)

    async def answers_from_knowledge(other: ChosenAgent) -> bool:
        return await answered_by_knowledge(retriever, database, read.chatbot, other, query)

    return await handoff_policy.decide(
        database,
        read.chatbot,
        now,
        agent,
        built_in=is_built_in(agent),
        instead=instead,
        answers_from_knowledge=answers_from_knowledge,
    )


def _answering(agent: ChosenAgent | None, handing: Decision[ChosenAgent] | None) -> ChosenAgent | None:
    """The agent that answers after the hand-off policy: with the after-hours message when nobody is promised."""
    if handing is None:
        return agent
    if handing.to is HandOffTo.CONTACT_FORM:
        return replace(handing.agent, reply=handing.after_hours_message)
    return handing.agent


async def _read(db: AsyncSession, ask: Ask, tools: bool, now: datetime) -> _Read:
    allowed = await access.chat_session(db, ask.account_uuid, ask.session_uuid)
    session, chatbot, owner = allowed.session, allowed.chatbot, allowed.owner_uuid
    await ratelimit.check(db, chatbot, _windows(ask, session, chatbot, owner), now)
    turns = await conversation.recent_exchanges(db, session.uuid, HISTORY_TURNS)
    enabled = await enabled_agents(db, chatbot.uuid, functions=tools)
    spoken = await chatbots.language(db, chatbot)  # remembered per knowledge version: a query once per change
    new, earlier = await session_documents.for_message(db, owner, session.uuid, ask.document_uuids)
    routed = roster(enabled, tools=tools)
    routed = replace(routed, cards=with_hand_off(routed.cards))  # whether it is on is read once it is chosen
    return _Read(session, chatbot, owner, list(turns), routed, spoken.language, new, earlier)


async def _store(
    db: AsyncSession,
    ask: Ask,
    read: _Read,
    handing: Decision[ChosenAgent] | None,
    filled: dict[str, str],
    now: datetime,
    documents: list[str],
) -> Message:
    """The write transaction: the rate-limit count, the query's message and its documents, the variables it gave,
    what the hand-off policy decided (`handoff_policy.carry_out`: the flag for operators, or the contact form's
    offer; the event operators follow a session by)."""
    session = read.session
    await ratelimit.admit(db, read.chatbot, _windows(ask, session, read.chatbot, read.owner_uuid), now)
    meta = MessageMeta().with_values(streaming_owner=stream_owner())
    message = await conversation.add_message(
        db,
        Message(
            session_uuid=session.uuid,
            query=ask.query,
            response="",
            state=MessageState.STREAMING,
            meta=meta.dump(),
            created_at=now,
            modified_at=now,
        ),
    )
    await session_documents.link(db, message.uuid, documents)
    if filled:
        await conversation.set_variables(db, session.uuid, filled)
        data = {"session_uuid": session.uuid, "message_uuid": message.uuid, "variables": filled}
        await webhooks.emit(db, session.chatbot_uuid, WebhookEvent.VARIABLES_COLLECTED, data, now)
    await handoff_policy.carry_out(db, handing, session, now, message.uuid, ask.query)
    return message


def _windows(ask: Ask, session: ChatSession, chatbot: Chatbot, owner_uuid: str | None) -> list[ratelimit.Window]:
    """The owner's traffic counts per session; anyone else's, key or none, as the visitor's."""
    return ratelimit.for_messages(chatbot, session.uuid, None if owner_uuid else ask.visitor)


async def _fill(router: AgentRouter, declared: list[dict[str, Any]], query: str) -> dict[str, str]:
    """The variable values a message gives: the model's reading when a provider is configured, else the patterns."""
    if router.judge is not None and (read := await router.judge.variable_values(declared, query)) is not None:
        return read
    return variables.extract(declared, query)


def _last_agent(turns: list[Message]) -> str | None:
    """The agent that answered the session's previous query (for `stickness`)."""
    answered = [uuid for turn in turns if (uuid := MessageMeta.of(turn).agent_uuid)]
    return answered[-1] if answered else None
