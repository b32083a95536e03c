"""Sending a message: the streamed and the non-streamed answer (the widget's endpoint is in `widget/router.py`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request

from botyard.answering.pipeline import Pipeline
from botyard.answering.turn.records import Ask
from botyard.answering.wire import AnswerResponse, collect, wants_events
from botyard.chat.ratelimit import CallingVisitor, Visitor
from botyard.chat.schemas import MessageCreate, MessageReply
from botyard.errors import ErrorCode, Responses, error_responses
from botyard.identity.access import NotAudited, requires
from botyard.identity.caller import OptionalAccount
from botyard.models import Permission

router = APIRouter(tags=["sessions and messages"])


async def _pipeline(request: Request) -> Pipeline:
    # async: FastAPI would run a plain `def` in a worker thread (see `botyard.deps`)
    pipeline: Pipeline = request.app.state.answers
    return pipeline


Answers = Annotated[Pipeline, Depends(_pipeline)]
"""The process's answer pipeline."""

_REFUSALS = error_responses(
    {
        ErrorCode.UNAUTHORIZED: "no valid key, and the chatbot is private.",
        ErrorCode.RATE_LIMITED: "over the chatbot's rate limit (per session with the owner's key; without it, another "
        "account's key included, per client address and under the service's anonymous ceiling): `Retry-After` and "
        "its `rate_limit_message`; nothing stored.",
        ErrorCode.UNKNOWN_UUIDS: "`session_document_uuids` names a document that is not the chatbot owner's, or is "
        "sent without the owner's key (one entry per uuid); nothing stored.",
    }
)
STREAM_RESPONSES: Responses = {
    200: {
        "description": "The answer as `text/plain; charset=utf-8`, sent as it is produced, no framing: the end of the "
        "body is the end of the answer; the message is stored before the body ends. With `Accept: text/event-stream`: "
        "SSE events `start`, `delta` ({text}), `citation` ({marker, ...}), `ping` (every 15 s of silence), `error`, "
        "and last `end` ({message_uuid, finish_reason, citations, usage}).",
        "content": {"text/plain": {"schema": {"type": "string"}}, "text/event-stream": {"schema": {"type": "string"}}},
    },
    **_REFUSALS,
}


def _ask(session_uuid: str, body: MessageCreate, account: str | None, visitor: Visitor) -> Ask:
    documents = tuple(body.session_document_uuids or ())
    return Ask(
        session_uuid=session_uuid,
        query=body.query,
        account_uuid=account,
        visitor=visitor,
        document_uuids=documents,
    )


@router.post(
    "/session/{uuid}/message/stream",
    status_code=200,
    response_class=AnswerResponse,
    responses=STREAM_RESPONSES,
    dependencies=[
        requires(
            Permission.CHAT,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def stream_message(
    uuid: str,
    body: MessageCreate,
    account: OptionalAccount,
    visitor: CallingVisitor,
    answers: Answers,
    accept: Annotated[str | None, Header()] = None,
) -> AnswerResponse:
    """Send a message and stream the answer. The key is optional for `public` and `hybrid` chatbots;
    `session_document_uuids` attaches the key's session documents (`/session-document/upload`)."""
    events = wants_events(accept)
    run = await answers.begin(_ask(uuid, body, account, visitor), events=events)
    return AnswerResponse(run, events=events)


@router.post(
    "/session/{uuid}/message/non-stream",
    response_model=MessageReply,
    responses={code: STREAM_RESPONSES[code] for code in (422, 429)},
    dependencies=[
        requires(
            Permission.CHAT,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def message_non_stream(
    uuid: str, body: MessageCreate, account: OptionalAccount, visitor: CallingVisitor, answers: Answers
) -> MessageReply:
    """Send a message and get the whole answer at once as `{"response": "..."}`."""
    run = await answers.begin(_ask(uuid, body, account, visitor), events=False)
    return {"response": await collect(run)}
