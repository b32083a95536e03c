"""A question asked as a new visitor would ask it, without a conversation: what a test run (`botyard.testsets`)
judges. The same routing, retrieval, relevance decision and answerer as a live answer, with the chatbot's current
knowledge and agents; nothing is stored (no session, no message, no unanswered question, no outcome), no rate limit
counts it, and analytics never see it. Each question takes an admission slot like a live answer, one at a time, so
a long run waits its turn between live answers instead of crowding them out."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.roster import enabled_agents
from botyard.agents.rules import HUMAN_ESCALATION
from botyard.answering.pipeline import Pipeline
from botyard.answering.routing.supervisor import Roster, roster
from botyard.answering.turn.admission import Slot
from botyard.answering.turn.decision import Reply
from botyard.answering.turn.events import Ended
from botyard.answering.turn.records import Outcome, Prepared
from botyard.answering.turn.run import AnswerRun
from botyard.answering.turn.stages import Decided
from botyard.chatbots import service as chatbots
from botyard.errors import not_found
from botyard.i18n import Language
from botyard.models import Chatbot
from botyard.retrieval.relevance import Strictness


@dataclass(frozen=True)
class Rehearsed:
    reply: str
    confidence: str | None
    """`high`, `low` or `none`, as a live answer would store it."""
    refused: bool
    """The no-answer reply (or a refusal decided before the search)."""


@dataclass(frozen=True)
class _Read:
    chatbot: Chatbot
    roster: Roster
    language: Language


class _Unstored(AnswerRun):
    """An answer run whose end writes nothing: there is no message to finish, and no live answer to count (a test
    run of 200 questions would otherwise fill `/metrics`' first-byte histogram and answer counts)."""

    def _first_text(self, replied: Reply) -> float:
        return time.perf_counter() - self.started

    async def _finalise(self, stored: Outcome, decided: Decided | None) -> dict[str, dict[str, Any]]:
        self.finalised = stored
        return {}


async def rehearse(answers: Pipeline, chatbot_uuid: str, query: str) -> Rehearsed:
    """Answer `query` in a new, unstored conversation of the chatbot (404 when it is gone)."""
    parts = answers.parts
    tools = parts.answerer.uses_tools
    async with parts.database.brief_read() as db:
        read = await _read(db, chatbot_uuid, tools)
    agent = await answers.router.choose(read.roster.cards, query, None, {})
    prepared = Prepared(
        message_uuid="",
        session_uuid="",
        chatbot_uuid=read.chatbot.uuid,
        query=query,
        history=[],
        show_citations=read.chatbot.show_citations,
        strictness=Strictness(read.chatbot.answer_strictness),
        language=read.language,
        agent=agent,
        offers_person=any(card.type == HUMAN_ESCALATION for card in read.roster.cards),
        knowledge_version=read.chatbot.knowledge_version,
    )
    run = _Unstored(prepared, parts, None, await Slot(parts.admission).take())
    confidence = None
    try:
        async for event in run.stream:
            if isinstance(event, Ended):
                confidence = event.confidence
    finally:
        await run.close()
    return Rehearsed(run.text, confidence, run.finalised is not None and run.finalised.refused)


async def _read(db: AsyncSession, chatbot_uuid: str, tools: bool) -> _Read:
    chatbot = await chatbots.by_uuid(db, chatbot_uuid)
    if chatbot is None:
        raise not_found("Chatbot")
    enabled = await enabled_agents(db, chatbot.uuid, functions=tools)
    spoken = await chatbots.language(db, chatbot)
    return _Read(chatbot, roster(enabled, tools=tools), spoken.language)
