"""The hand-off policy (`live.handoff_policy`) as a table: for a request for a person, where it goes and what the
policy asked of the answering side (the agent instead, whether its knowledge answers), and in which order. The
settings and the people are the app's real database's, both databases; the answering side is two recorded
callables."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.testclient import TestClient

from botyard.chatbots.handoff.service import DEFAULT_AFTER_HOURS_MESSAGE
from botyard.db.base import utcnow
from botyard.live import handoff_policy
from botyard.live.handoff_policy import Decision, HandOffTo
from botyard.models import Chatbot, Role
from tests.support.api import Api
from tests.support.database import Db
from tests.support.handoff import office_hours
from tests.support.people import person
from tests.support.widget import open_bot

CLOSED = {"enabled": True, "week": {}}
"""Office hours with no interval: closed all week."""
OFF = {"hand_off_requests": False}


@dataclass(frozen=True)
class Case:
    built_in: bool
    """The built-in hand-off asks, else an owner's human-escalation agent."""
    to: HandOffTo
    asked: tuple[str, ...] = ()
    """What the policy asked of the answering side, in order."""
    taker: str | None = None
    """A person who takes conversations: "there" or "away"; None: the account has only its API keys."""
    settings: dict[str, Any] = field(default_factory=dict)
    knowledge_answers: bool = False


CASES = {
    "an owner's agent, an account of keys alone": Case(False, HandOffTo.PERSON),
    "an owner's agent, someone there": Case(False, HandOffTo.PERSON, taker="there"),
    "an owner's agent, everyone away": Case(False, HandOffTo.CONTACT_FORM, taker="away"),
    "an owner's agent, after hours": Case(False, HandOffTo.CONTACT_FORM, taker="there", settings=CLOSED),
    "an owner's agent, the built-in's setting off": Case(False, HandOffTo.PERSON, taker="there", settings=OFF),
    "the built-in, turned off": Case(True, HandOffTo.AGENT, ("instead",), taker="there", settings=OFF),
    "the built-in, the knowledge answers": Case(
        True, HandOffTo.AGENT, ("instead", "knowledge"), taker="there", knowledge_answers=True
    ),
    "the built-in, someone there": Case(True, HandOffTo.PERSON, ("instead", "knowledge"), taker="there"),
    "the built-in, an account of keys alone": Case(True, HandOffTo.CONTACT_FORM, ("instead", "knowledge")),
    "the built-in, everyone away": Case(True, HandOffTo.CONTACT_FORM, ("instead", "knowledge"), taker="away"),
    "the built-in, after hours": Case(
        True, HandOffTo.CONTACT_FORM, ("instead", "knowledge"), taker="there", settings=CLOSED
    ),
}


async def _chatbot(session: AsyncSession, uuid: str) -> Chatbot:
    row = await session.get(Chatbot, uuid)
    assert row is not None
    return Chatbot(uuid=row.uuid, account_uuid=row.account_uuid)  # what the policy reads, out of the session


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_policy_decides_as_the_table_says(alice: Api, client: TestClient, db: Db, case: Case) -> None:
    bot = open_bot(alice)
    if case.settings:
        office_hours(alice, bot, **case.settings)
    if case.taker is not None:
        jo = person(client, db, "alice@example.com", "jo@example.com", Role.OPERATOR)
        jo.ok(jo.post("/auth/availability", {"away": case.taker == "away"}))
    chatbot = db.run(lambda session: _chatbot(session, bot))
    asked: list[str] = []

    async def instead() -> str:
        asked.append("instead")
        return "the owner's agent"

    async def answers_from_knowledge(agent: str) -> bool:
        assert agent == "the owner's agent"
        asked.append("knowledge")
        return case.knowledge_answers

    async def decide() -> Decision[str]:
        return await handoff_policy.decide(
            db.database,
            chatbot,
            utcnow(),
            "the asking agent",
            built_in=case.built_in,
            instead=instead,
            answers_from_knowledge=answers_from_knowledge,
        )

    assert client.portal is not None
    decision = client.portal.call(decide)
    assert (decision.to, tuple(asked)) == (case.to, case.asked)
    assert decision.agent == ("the owner's agent" if case.to is HandOffTo.AGENT else "the asking agent")
    expected = DEFAULT_AFTER_HOURS_MESSAGE if case.to is HandOffTo.CONTACT_FORM else None
    assert decision.after_hours_message == expected
