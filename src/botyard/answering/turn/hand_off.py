"""The turn's side of the hand-off policy (`live.handoff_policy`): when the chosen agent asks for a person, the
policy decides, and what only answering knows goes in as callables: the agent the owner's agents choose instead of
the built-in hand-off, and whether that agent's knowledge answers the query (`built_in`). The agent that answers
after the decision comes back with it (with the after-hours message when nobody is promised)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from botyard.answering.routing.supervisor import AgentRouter, ChosenAgent
from botyard.answering.turn.built_in import answered_by_knowledge, is_built_in
from botyard.answering.turn.reading import TurnRead
from botyard.db.session import Database
from botyard.live import handoff_policy
from botyard.live.handoff_policy import Decision, HandOffTo
from botyard.retrieval.retriever import Retriever


@dataclass(frozen=True)
class Handing:
    """The policy's decision (None: the agent asked for nobody) and the agent that answers after it."""

    decision: Decision[ChosenAgent] | None
    agent: ChosenAgent | None


async def hand_off(
    database: Database,
    router: AgentRouter,
    retriever: Retriever | None,
    read: TurnRead,
    query: str,
    values: dict[str, object],
    agent: ChosenAgent | None,
    now: datetime,
) -> Handing:
    """The hand-off policy's decision when `agent` (chosen for `query` with the session's variables `values`) asks
    for a person, and the agent that answers then."""
    if agent is None or not agent.human_requested:
        return Handing(None, agent)

    async def instead() -> ChosenAgent:
        owners = [card for card in read.roster.cards if card.uuid]
        return await router.choose(owners, query, read.previous_agent, values)

    async def answers_from_knowledge(other: ChosenAgent) -> bool:
        return await answered_by_knowledge(retriever, database, read.chatbot, other, query)

    decision = await handoff_policy.decide(
        database,
        read.chatbot,
        now,
        agent,
        built_in=is_built_in(agent),
        instead=instead,
        answers_from_knowledge=answers_from_knowledge,
    )
    if decision.to is HandOffTo.CONTACT_FORM:
        return Handing(decision, replace(decision.agent, reply=decision.after_hours_message))
    return Handing(decision, decision.agent)
