"""What replies once the search is done, and the events it streams: the no-answer reply (or small talk greeted
back), or the answerer with the numbered hits (`decision` chooses; this carries the choice out), then the events of
the answerer, of a fixed text streamed like them, or, in live chat, only the end."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace

from botyard.answering.base import AnswerEvent, Finished
from botyard.answering.turn import decision
from botyard.answering.turn.canned import canned
from botyard.answering.turn.citations import number_hits
from botyard.answering.turn.decision import Reply
from botyard.answering.turn.parts import AnswerParts
from botyard.answering.turn.records import Prepared
from botyard.answering.turn.search import Retrieved
from botyard.answering.turn.stages import Decided
from botyard.ingestion.tokens import count_tokens
from botyard.llm.provider import Usage
from botyard.models import MessageKind


async def after_search(parts: AnswerParts, prepared: Prepared, retrieved: Retrieved) -> Decided:
    """What replies after the search, with the numbered hits. A model is always asked, with the best passages
    whatever the relevance decision said: its prompt decides (COMPAT.md)."""
    agent, answerer = prepared.agent, parts.answerer
    with_tools = agent is not None and bool(agent.tools) and answerer.uses_tools
    answerable = retrieved.relevant and bool(retrieved.hits)
    cited = number_hits(retrieved.hits) if retrieved.relevant or answerer.model_decides else []
    reply = decision.after_search(agent, answerable, answerer.model_decides, with_tools)
    if agent is None or reply is Reply.NO_ANSWER:
        greeting = None
        if agent is not None and agent.greets and parts.greeting is not None:
            greeting = await parts.greeting(agent, prepared.query)
        text = greeting or decision.no_answer_reply(prepared)
        return Decided(reply=Reply.CANNED if greeting else Reply.NO_ANSWER, cited=[], canned=text)
    request = decision.answer_request(
        prepared,
        agent,
        cited,
        term_weights=retrieved.term_weights,
        unseen_terms=retrieved.retrieval.unseen_terms,
        weak_evidence=not retrieved.relevant,
        tools=with_tools,
    )
    return Decided(reply=reply, cited=cited, request=replace(request, call_tool=parts.call_tool))


async def events(parts: AnswerParts, decided: Decided, query: str) -> AsyncGenerator[AnswerEvent, None]:
    """The events of what replies: the answerer's, a fixed text streamed like them, or, in live chat (an operator
    answers, through the live-chat endpoints), only the end."""
    if decided.reply is Reply.LIVE_CHAT:
        yield Finished("stop", Usage(max(1, count_tokens(query)), 0), meta={"kind": MessageKind.LIVE_CHAT_USER})
    elif decided.request is None:
        async for event in canned(decided.canned, query, decided.choices):
            yield event
    else:
        async with aclosing(parts.answerer.answer(decided.request)) as answered:  # type: ignore[type-var]
            async for event in answered:
                yield event
