"""Private notes in a conversation (the owner's key or a signed-in person): the team's, never the customer's. Not in
the hosted interface; designed in its style."""

from __future__ import annotations

from fastapi import APIRouter

from botyard.db.base import utcnow
from botyard.deps import DbSession, ReadDbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import NotAudited, requires
from botyard.identity.caller import CurrentAccount, CurrentPrincipal
from botyard.live.notes import service
from botyard.live.notes.schemas import Note, NoteCreate, NoteDeleted
from botyard.models import Permission

router = APIRouter(tags=["live chat"])

_SESSION = error_responses({ErrorCode.NOT_FOUND: "no such session, or another account's."})
_DELETE = error_responses(
    {
        ErrorCode.NOT_FOUND: "no such note, or another account's.",
        ErrorCode.FORBIDDEN_ROLE: "the note is another person's, and the caller is not an admin.",
    }
)
_NOTES = requires(Permission.LIVE, NotAudited("conversations themselves are not management changes: a team's note"))


@router.get(
    "/session/{uuid}/notes", response_model=list[Note], responses=_SESSION, dependencies=[requires(Permission.READ)]
)
async def list_notes(uuid: str, db: ReadDbSession, account: CurrentAccount) -> list[Note]:
    """The conversation's private notes, oldest first (never in its messages, the widget or a channel)."""
    return await service.notes(db, account, uuid)


@router.post("/session/{uuid}/note", response_model=Note, responses=_SESSION, dependencies=[_NOTES])
async def add_note(uuid: str, body: NoteCreate, db: DbSession, principal: CurrentPrincipal) -> Note:
    """Write a private note in the conversation, signed by the caller: the team sees it (event `note_added`), the
    customer never does."""
    return await service.add(db, principal, uuid, body.text, utcnow())


@router.post("/note/{uuid}/delete", response_model=NoteDeleted, responses=_DELETE, dependencies=[_NOTES])
async def delete_note(uuid: str, db: DbSession, principal: CurrentPrincipal) -> NoteDeleted:
    """Delete a private note: its author, or an admin (event `note_deleted`)."""
    return await service.delete(db, principal, uuid, utcnow())
