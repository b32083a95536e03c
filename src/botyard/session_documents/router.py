"""Uploading session documents (the official SDK's `upload_session_document`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile

from botyard.deps import AppSettings, DbSession
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import NotAudited, requires
from botyard.identity.caller import CurrentAccount
from botyard.ingestion.parse import ParseLimits
from botyard.models import Permission
from botyard.session_documents import service
from botyard.session_documents.schemas import SessionDocumentOut

router = APIRouter(tags=["session documents"])

_REFUSALS = error_responses(
    {
        ErrorCode.PAYLOAD_TOO_LARGE: "over the upload size cap, or text too long to be read whole.",
        ErrorCode.FILE_TYPE_NOT_ALLOWED: "not a type Botyard reads (documents: pdf, doc(x), pptx, xls(x), csv, md, "
        "txt, html, json, tex; images: png, jpeg, webp, gif).",
        ErrorCode.VALIDATION_ERROR: "no file, an empty file, or a document without readable text.",
    }
)


@router.post(
    "/session-document/upload",
    response_model=SessionDocumentOut,
    responses=_REFUSALS,
    dependencies=[
        requires(
            Permission.CHAT,
            NotAudited("conversations themselves are not management changes: chatting, documents, live chat"),
        )
    ],
)
async def upload_session_document(
    file: Annotated[UploadFile, File(description="The document or image.")],
    db: DbSession,
    account: CurrentAccount,
    settings: AppSettings,
    filename: Annotated[str | None, Form(description="Its name (else the file part's own name).")] = None,
) -> SessionDocumentOut:
    """Upload a document (or an image) to talk about in a chat session: send its `uuid` in a message's
    `session_document_uuids`. The owner's key is required, also for public chatbots: documents belong to the
    account that uploaded them, and a message can only attach its own key's documents. The text is extracted now;
    the whole of it goes to the answering model, or the message is answered that the files are too long."""
    max_bytes = settings.max_upload_mb * 1024 * 1024
    document = await service.upload(db, account, file, filename, max_bytes, ParseLimits())
    return service.to_wire(document)
