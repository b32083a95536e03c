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
from botyard.chatbots.handoff.service import handoff, hands_off_requests
from botyard.db.session import Database
from botyard.errors import not_found
from botyard.i18n import Language
from botyard.live import contact
from botyard.live import service as live
from botyard.models import (
    Chatbot,
    ChatbotEventKind,
    ChatSession,
    Message,
    MessageMeta,
    MessageState,
    SessionMeta,
    WebhookEvent,
)
from botyard.outbox import events as webhooks
from botyard.people.availability import people_there, someone_there
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
    between them (it may embed the query); the write transaction holds only the rate-limit count, the insert and,
    for a human hand-off, the session's flag, which must be atomic together. SQLite has one writer at a time, and
    several server processes meet at its lock, so the shorter the write, the more answers per second.
    """
    read = await database.read_briefly(lambda db: _read(db, ask, tools, now))
    live_chat = live.is_live(read.session)
    declared = [variable for card in read.roster.cards for variable in card.variables if isinstance(variable, dict)]
    filled = {} if live_chat or not declared else await _fill(router, declared, ask.query)
    values = {**SessionMeta.of(read.session).variables, **filled}
    agent = None if live_chat else await router.choose(read.roster.cards, ask.query, _last_agent(read.turns), values)
    if agent is not None and is_built_in(agent):
        agent = await _built_in_or_instead(database, router, retriever, read, ask.query, values, agent)
    agent, after_hours = await _office_hours(database, read.chatbot, agent, now)
    admitted = admission(agent, ask.query, read.chatbot.show_citations, read.new_documents, read.earlier_documents)
    linked = [document.uuid for document in admitted.documents]
    try:
        message = await database.write_briefly(
            lambda db: _store(db, ask, read, agent, filled, now, linked, after_hours=after_hours)
        )
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


async def _built_in_or_instead(
    database: Database,
    router: AgentRouter,
    retriever: Retriever | None,
    read: _Read,
    query: str,
    values: dict[str, Any],
    built_in: ChosenAgent,
) -> ChosenAgent:
    """The built-in hand-off while it is on and the knowledge does not answer the query (`built_in`), else the agent
    the owner's agents choose. Read only when it is chosen: an ordinary answer pays no statement for it."""
    on = await database.read_briefly(lambda db: hands_off_requests(db, read.chatbot.uuid))
    owners = [card for card in read.roster.cards if card.uuid]
    instead = await router.choose(owners, query, _last_agent(read.turns), values)
    if on and not await answered_by_knowledge(retriever, database, read.chatbot, instead, query):
        return built_in
    return instead


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
    agent: ChosenAgent | None,
    filled: dict[str, str],
    now: datetime,
    documents: list[str],
    *,
    after_hours: bool = False,
) -> Message:
    """The write transaction: the rate-limit count, the query's message and its documents, the variables it gave,
    the hand-off (after hours: the contact form's offer instead)."""
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
    asking = agent is not None and agent.human_requested
    if asking and after_hours:
        await contact.offer(db, session, now, message.uuid)
        asking = False
    flagged = asking and await live.flag_for_operators(db, session.uuid, now, "asked for a person", message.uuid)
    if not flagged and (live.is_live(session) or live.is_flagged(session)):  # else the `human_requested` event
        await live.record(db, session, ChatbotEventKind.USER_MESSAGE, now, message_uuid=message.uuid, query=ask.query)
    return message


async def _office_hours(
    database: Database, chatbot: Chatbot, agent: ChosenAgent | None, now: datetime
) -> tuple[ChosenAgent | None, bool]:
    """A hand-off outside the chatbot's office hours, or while everyone who takes conversations said they are away,
    promises no person: its reply is the after-hours message (the form follows, `live.contact`). Read only for a
    hand-off; True when nobody is promised."""
    if agent is None or not agent.human_requested:
        return agent, False

    # The built-in hand-off (no agent row) promises only a person of the account, never a program's inbox.
    there = someone_there if agent.uuid else people_there

    async def promised(db: AsyncSession) -> tuple[bool, str]:
        rules = await handoff(db, chatbot.uuid, now)
        return rules.open and await there(db, chatbot.account_uuid), rules.after_hours_message

    person, message = await database.read_briefly(promised)
    return (agent, False) if person else (replace(agent, reply=message), True)


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
