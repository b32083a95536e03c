"""What `prepare` reads, in one brief read transaction that takes no write lock: who may chat here (`chat.access`),
whether the caller is already over the rate limit (no routing, which may call a model, is spent on a message that
would be refused), the session's last exchanges, the agents as routing sees them, the language the chatbot speaks
and the session documents the message names. Copied out as plain values (`TurnRead`): nothing after it holds the
database session."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.agents.roster import enabled_agents
from botyard.answering.routing.supervisor import Roster, roster
from botyard.answering.turn.built_in import with_hand_off
from botyard.answering.turn.records import Ask
from botyard.chat import access, conversation, ratelimit
from botyard.chatbots import service as chatbots
from botyard.i18n import Language
from botyard.live.service import is_live
from botyard.models import Chatbot, ChatSession, Message, MessageMeta, SessionMeta
from botyard.session_documents import service as session_documents
from botyard.session_documents.budget import AttachedDocument

HISTORY_TURNS = 6


@dataclass(frozen=True, kw_only=True)
class TurnRead:
    """What the read transaction found, as the rest of the preparation uses it."""

    session: ChatSession
    chatbot: Chatbot
    windows: list[ratelimit.Window]
    """The rate limit's windows the message counts in: checked here, counted in the write (`storing`)."""
    live_chat: bool
    """An operator has the session: nobody is routed, the query is stored for them."""
    variables: dict[str, object]
    """The session's variables so far."""
    turns: list[Message]
    """The session's last exchanges, oldest first."""
    previous_agent: str | None
    """The agent that answered the session's previous query (for `stickness`)."""
    roster: Roster
    language: Language
    new_documents: list[AttachedDocument]
    earlier_documents: list[AttachedDocument]


async def read_turn(db: AsyncSession, ask: Ask, *, tools: bool, now: datetime) -> TurnRead:
    """Raises before anything is stored when the caller may not chat here, is over the limit or names a session
    document that is not the owner's."""
    allowed = await access.chat_session(db, ask.account_uuid, ask.session_uuid)
    session, chatbot = allowed.session, allowed.chatbot
    # The owner's traffic counts per session; anyone else's, key or none, as the visitor's.
    windows = ratelimit.for_messages(chatbot, session.uuid, None if allowed.owner_uuid else ask.visitor)
    await ratelimit.check(db, chatbot, windows, now)
    turns = list(await conversation.recent_exchanges(db, session.uuid, HISTORY_TURNS))
    enabled = await enabled_agents(db, chatbot.uuid, functions=tools)
    spoken = await chatbots.language(db, chatbot)  # remembered per knowledge version: a query once per change
    new, earlier = await session_documents.for_message(db, allowed.owner_uuid, session.uuid, ask.document_uuids)
    routed = roster(enabled, tools=tools)
    answered = [uuid for turn in turns if (uuid := MessageMeta.of(turn).agent_uuid)]
    return TurnRead(
        session=session,
        chatbot=chatbot,
        windows=windows,
        live_chat=is_live(session),
        variables=SessionMeta.of(session).variables,
        turns=turns,
        previous_agent=answered[-1] if answered else None,
        roster=replace(routed, cards=with_hand_off(routed.cards)),  # whether it is on is read once it is chosen
        language=spoken.language,
        new_documents=new,
        earlier_documents=earlier,
    )
