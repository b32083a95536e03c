"""The hand-off policy, in one place: what happens to a message whose chosen agent asks for a person (an owner's
human-escalation agent, or the built-in hand-off of a chatbot without one, `answering.turn.built_in`). The turn calls
it once, between choosing the agent and its one write transaction; channels enter the same path.

The decision (`decide`), in this order:

1. The built-in hand-off only: when the owner turned it off (`hand_off_requests`, `chatbots.handoff`) or the
   knowledge answers the message, the agent the owner's agents choose answers instead (`AGENT`). The owner's agents
   hold no hand-off of their own, else the built-in one would not have been routed.
2. Outside the chatbot's office hours, or when nobody who takes conversations is there (`people.availability`), no
   person is promised: the reply is the after-hours message and the contact form is offered (`CONTACT_FORM`,
   `live.contact`). An owner's agent counts an account of API keys alone as there (a program answers its inbox);
   the built-in hand-off promises only a person of the account.
3. Otherwise a person (`PERSON`): the session is flagged for operators.

What it does (`carry_out`), in the turn's write transaction with the message that asked, so that the rate-limit count,
the message and the session's flag stay atomic: the contact form's offer, or the flag for operators (once per session,
`live.service.flag_for_operators`); and, for any message of a session operators follow (live or flagged) that did
not just flag it, the `user_message` event.

What only the answering side knows comes in as callables (the agent instead, whether the knowledge answers), so that
`live/` stays below `answering`. The settings and the people are read only for a message that asks for a person: an
ordinary answer pays no statement for the policy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.handoff.service import handoff
from botyard.db.session import Database
from botyard.identity.users.availability import people_there, someone_there
from botyard.live import contact
from botyard.live.service import flag_for_operators, is_flagged, is_live, record
from botyard.models import Chatbot, ChatbotEventKind, ChatSession

A = TypeVar("A")
"""The answering side's agent: the policy only hands it back."""

FLAG_REASON = "asked for a person"
"""The `human_requested` event's reason for a message that asked."""


class HandOffTo(StrEnum):
    """Where a message that asks for a person goes."""

    PERSON = "person"
    """The session is flagged for operators; the agent's reply promises a person."""
    CONTACT_FORM = "contact_form"
    """Nobody is promised: the after-hours message, and the contact form."""
    AGENT = "agent"
    """The built-in hand-off only: the agent the owner's agents choose answers instead."""


@dataclass(frozen=True)
class Decision(Generic[A]):
    """What `decide` found: where the message goes and the agent that answers it."""

    to: HandOffTo
    agent: A
    """The agent that asked (`PERSON`, `CONTACT_FORM`) or the one that answers instead (`AGENT`)."""
    after_hours_message: str | None = None
    """`CONTACT_FORM`: the reply instead of the agent's."""


async def decide(
    database: Database,
    chatbot: Chatbot,
    now: datetime,
    asking: A,
    *,
    built_in: bool,
    instead: Callable[[], Awaitable[A]],
    answers_from_knowledge: Callable[[A], Awaitable[bool]],
) -> Decision[A]:
    """Where the message that `asking` (the chosen agent, which asks for a person) answers goes, in the order of the
    module's docstring. `built_in`: it is the built-in hand-off; `instead` chooses among the owner's agents and
    `answers_from_knowledge` tells whether that agent's knowledge answers the message (asked only for the built-in
    hand-off, and the knowledge only while it is on). What the policy reads (the rules, and inside office hours
    whether someone is there) it reads first, in one short read transaction: none is held across `instead`."""
    async with database.brief_read() as db:
        rules = await handoff(db, chatbot.uuid, now)
        there = False
        if rules.open and (rules.hand_off_requests or not built_in):  # a person may be promised: who is there
            # An owner's agent counts an account of API keys alone as there; the built-in only a person of it.
            there = await (people_there if built_in else someone_there)(db, chatbot.account_uuid)
    if built_in:
        other = await instead()
        if not rules.hand_off_requests or await answers_from_knowledge(other):
            return Decision(HandOffTo.AGENT, other)
    if rules.open and there:
        return Decision(HandOffTo.PERSON, asking)
    return Decision(HandOffTo.CONTACT_FORM, asking, rules.after_hours_message)


async def carry_out(
    db: AsyncSession,
    decision: Decision[A] | None,
    session: ChatSession,
    now: datetime,
    message_uuid: str,
    query: str,
) -> None:
    """What the decision does, in the caller's write transaction, for the stored message `message_uuid` (`query`);
    `decision` None: the message asked for nobody (operators still hear of it in a session they follow)."""
    to = decision.to if decision is not None else None
    if to is HandOffTo.CONTACT_FORM:
        await contact.offer(db, session, now, message_uuid)
    flagged = to is HandOffTo.PERSON and await flag_for_operators(db, session.uuid, now, FLAG_REASON, message_uuid)
    if not flagged and (is_live(session) or is_flagged(session)):  # else its `human_requested` event tells them
        await record(db, session, ChatbotEventKind.USER_MESSAGE, now, message_uuid=message_uuid, query=query)
