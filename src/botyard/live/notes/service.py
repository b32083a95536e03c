"""Private notes: written by the team in a conversation, read by the team, deleted by their author or an admin.
A note is a row of its own (`conversation_note`), never a transcript row; its event (`note_added`) is not one the
widget, a channel or a webhook hears (`live.service.WIDGET_EVENTS`, `RELAYED`, `WEBHOOK_EVENTS`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chat.service import get_owned_session
from botyard.db.base import iso
from botyard.errors import AppError, ErrorCode
from botyard.identity.principal import Principal
from botyard.identity.roles import Permission
from botyard.live import service as live
from botyard.live.notes.repository import NoteRepository
from botyard.live.notes.schemas import Note, NoteDeleted
from botyard.models import ChatbotEventKind, ConversationNote


async def notes(db: AsyncSession, account_uuid: str, session_uuid: str) -> list[Note]:
    session = await get_owned_session(db, account_uuid, session_uuid)
    return [note_to_wire(note) for note in await NoteRepository(db).of_session(session.uuid)]


async def add(db: AsyncSession, principal: Principal, session_uuid: str, text: str, now: datetime) -> Note:
    """A note by the caller (a person, else the API key by its name); operators' streams get `note_added`."""
    session = await get_owned_session(db, principal.account_uuid, session_uuid)
    note = ConversationNote(
        session_uuid=session.uuid,
        author_uuid=principal.user_uuid,
        author_name=principal.name or principal.email,
        text=text,
        created_at=now,
    )
    await NoteRepository(db).add(note)
    shown = note_to_wire(note)
    await live.record(
        db,
        session,
        ChatbotEventKind.NOTE_ADDED,
        now,
        note_uuid=note.uuid,
        author_uuid=note.author_uuid,
        author_name=note.author_name,
        text=note.text,
    )
    return shown


async def delete(db: AsyncSession, principal: Principal, note_uuid: str, now: datetime) -> NoteDeleted:
    """Delete a note: its author, or whoever manages the account (an admin, an owner, an API key); 403
    `forbidden_role` for another operator."""
    repository = NoteRepository(db)
    note = await repository.get_owned(principal.account_uuid, note_uuid)
    if note.author_uuid != principal.user_uuid and not principal.can(Permission.MANAGE):
        raise AppError(ErrorCode.FORBIDDEN_ROLE, "Only the note's author or an admin can delete it")
    session = await get_owned_session(db, principal.account_uuid, note.session_uuid)
    await repository.delete(note)
    await live.record(db, session, ChatbotEventKind.NOTE_DELETED, now, note_uuid=note_uuid)
    return {"uuid": note_uuid, "deleted": True}


def note_to_wire(note: ConversationNote) -> Note:
    return {
        "uuid": note.uuid,
        "session_uuid": note.session_uuid,
        "text": note.text,
        "author_uuid": note.author_uuid,
        "author_name": note.author_name,
        "created_at": iso(note.created_at),
    }
