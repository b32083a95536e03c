"""Uploading a session document: the name and type first, the bytes under the size cap, the text extracted once
with the ingestion's sandboxed parsers and their limits, or an image kept as it is."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.db.base import iso
from botyard.errors import AppError, ErrorCode, validation_error
from botyard.ingestion.parse import ParseError, ParseLimits, parse_file
from botyard.ingestion.tokens import count_tokens
from botyard.models import SessionDocument
from botyard.session_documents.budget import IMAGE_TOKENS, AttachedDocument
from botyard.session_documents.repository import SessionDocumentRepository
from botyard.session_documents.schemas import SessionDocumentOut
from botyard.sources import uploads

IMAGE_EXTENSIONS = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "gif": "image/gif",
}
ALLOWED = (*uploads.ALLOWED_EXTENSIONS, *IMAGE_EXTENSIONS)
_UUID = re.compile(r"^[0-9a-f]{32}$")


def _extension(name: str) -> str:
    stem, _, extension = name.rpartition(".")
    return extension.lower() if stem else ""


def _check_type(name: str) -> None:
    extension = _extension(name)
    if extension not in ALLOWED:
        shown = f".{extension}" if extension else "no extension"
        raise AppError(
            ErrorCode.FILE_TYPE_NOT_ALLOWED,
            f"Upload refused, file type not allowed ({shown}); allowed: {', '.join(ALLOWED)}",
        )


def image_type(data: bytes) -> str | None:
    """The image's content type by its magic bytes, for the four formats vision models take; else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _parse_refusal(error: ParseError) -> AppError:
    if error.reason == "unsupported type":
        return AppError(ErrorCode.FILE_TYPE_NOT_ALLOWED, f"Upload refused, not a readable document ({error})")
    if error.reason == "too large":
        return AppError(ErrorCode.PAYLOAD_TOO_LARGE, f"The document is too large to read ({error.detail})")
    return validation_error(
        f"The document cannot be read: {error.reason}", [{"field": "file", "message": str(error), "type": "parse"}]
    )


async def upload(
    db: AsyncSession,
    account_uuid: str,
    file: uploads.IncomingFile,
    filename: str | None,
    max_bytes: int,
    limits: ParseLimits,
) -> SessionDocument:
    """Store the file for the account: its text, or its bytes when it is an image. Refuses with 415 (a type we do
    not read), 413 (over the size cap, or text longer than the parser's limit: a document is used whole or not at
    all) or 422 (empty, unreadable). Nothing touches the database before the file is accepted."""
    name = uploads.clean_name(filename or file.filename)
    _check_type(name)
    content, _ = await uploads.read_capped(file, max_bytes)
    declared = (file.content_type or "").strip()[: uploads.MAX_CONTENT_TYPE_LENGTH] or None
    document = SessionDocument(account_uuid=account_uuid, name=name, size=len(content))
    if _extension(name) in IMAGE_EXTENSIONS:
        found = image_type(content)
        if found is None:
            raise AppError(ErrorCode.FILE_TYPE_NOT_ALLOWED, "Upload refused: not a png, jpeg, webp or gif image")
        document.content_type, document.image, document.tokens, document.text = found, content, IMAGE_TOKENS, ""
    else:
        try:
            parsed = await parse_file(content, name, limits, content_type=declared)
        except ParseError as error:
            raise _parse_refusal(error) from error
        if parsed.truncated:
            raise AppError(ErrorCode.PAYLOAD_TOO_LARGE, "The document is longer than can be read whole")
        document.content_type = declared or "application/octet-stream"
        document.text = parsed.markdown
        # Counting megabytes of text takes a while: not on the event loop.
        document.tokens = await asyncio.to_thread(count_tokens, parsed.markdown)
    return await SessionDocumentRepository(db).add(document)


def to_wire(document: SessionDocument) -> SessionDocumentOut:
    return {
        "uuid": document.uuid,
        "name": document.name,
        "content_type": document.content_type,
        "size": document.size,
        "tokens": document.tokens,
        "created_at": iso(document.created_at),
    }


def attached(document: SessionDocument) -> AttachedDocument:
    return AttachedDocument(
        uuid=document.uuid,
        name=document.name,
        text=document.text,
        tokens=document.tokens,
        content_type=document.content_type,
        image=document.image,
    )


async def for_message(
    db: AsyncSession, owner_uuid: str | None, session_uuid: str, uuids: Sequence[str]
) -> tuple[list[AttachedDocument], list[AttachedDocument]]:
    """The documents a message names (in its order) and the session's earlier ones; raises 422 for any uuid that
    is not a document of `owner_uuid` (the chatbot owner's account, when the owner asks; None for a visitor).

    A message can only attach documents of the chatbot's owner, sent with the owner's key: to a visitor (no key, or
    another account's key on an open chatbot: `chat.access`) every uuid is unknown, so nobody plants a file in an
    owner's conversation or spends the owner's model budget on it. Unknown, foreign or malformed uuids refuse the
    message (422 `unknown_uuids`, one entry each) before anything is stored."""
    repository = SessionDocumentRepository(db)
    wanted = list(dict.fromkeys(uuids))
    wellformed = [uuid for uuid in wanted if _UUID.match(uuid)]
    owned = await repository.owned_among(owner_uuid, wellformed) if owner_uuid is not None else {}
    missing = [uuid for uuid in wanted if uuid not in owned]
    if missing:
        details = [{"uuid": uuid, "error": "unknown session document"} for uuid in missing]
        message = (
            f"{len(missing)} of the session_document_uuids are not session documents of the chatbot's owner: "
            "upload them with the owner's key (/session-document/upload) and send the message with that key"
        )
        raise AppError(ErrorCode.UNKNOWN_UUIDS, message, details)
    earlier = await repository.of_session(session_uuid)
    return [attached(owned[uuid]) for uuid in wanted], [attached(document) for document in earlier]


async def link(db: AsyncSession, message_uuid: str, document_uuids: Sequence[str]) -> None:
    """Record that the message's answer uses these documents (in the message's transaction)."""
    await SessionDocumentRepository(db).link(message_uuid, document_uuids)


async def used_by(db: AsyncSession, message_uuids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """The documents (uuid, name) each of these messages used, in the order they joined the session."""
    return await SessionDocumentRepository(db).used_by(message_uuids)
