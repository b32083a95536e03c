"""Uploaded files: which types are taken, the stored file name, and reading the bytes under the size cap."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

from botyard.errors import AppError, ErrorCode, validation_error

ALLOWED_EXTENSIONS = ("pdf", "doc", "docx", "pptx", "xlsx", "xls", "csv", "md", "txt", "html", "htm", "json", "tex")
MAX_FILE_NAME_LENGTH = 255
MAX_CONTENT_TYPE_LENGTH = 255
CHUNK = 1024 * 1024


class IncomingFile(Protocol):
    """What the service needs of an uploaded file (FastAPI's `UploadFile` is one)."""

    filename: str | None
    content_type: str | None

    async def read(self, size: int = -1) -> bytes: ...


@dataclass(frozen=True)
class StoredFile:
    name: str
    content_type: str | None
    content: bytes
    sha256: str


def _file_error(message: str) -> AppError:
    return validation_error(message, [{"field": "file", "message": message, "type": "value_error"}])


def clean_name(raw: str | None) -> str:
    """The file name without any directory part (clients send Windows and POSIX paths alike) and without control
    characters (a NUL would cut the name short in C libraries and PostgreSQL refuses it in text)."""
    printable = "".join(char for char in (raw or "") if char.isprintable())
    name = PurePosixPath(printable.replace("\\", "/")).name.strip()
    if not name:
        raise _file_error("The uploaded file has no name")
    if len(name) > MAX_FILE_NAME_LENGTH:
        raise _file_error(f"The file name is longer than {MAX_FILE_NAME_LENGTH} characters")
    return name


def check_type(name: str) -> None:
    """Only document types the ingestion can read are taken, judged by the extension (case-insensitive)."""
    stem, _, extension = name.rpartition(".")
    extension = extension.lower() if stem else ""  # ".txt" is a hidden file without an extension
    if extension not in ALLOWED_EXTENSIONS:
        shown = f".{extension}" if extension else "no extension"
        raise AppError(
            ErrorCode.FILE_TYPE_NOT_ALLOWED,
            f"Upload refused, file type not allowed ({shown}); allowed: {', '.join(ALLOWED_EXTENSIONS)}",
        )


async def read_capped(file: IncomingFile, max_bytes: int) -> tuple[bytes, str]:
    """The whole file and its SHA-256, read in chunks; stops with 413 as soon as it grows past `max_bytes`."""
    parts: list[bytes] = []
    digest = hashlib.sha256()
    size = 0
    while chunk := await file.read(CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise AppError(ErrorCode.PAYLOAD_TOO_LARGE, f"File too large (limit {max_bytes // (1024 * 1024)} MB)")
        parts.append(chunk)
        digest.update(chunk)
    if size == 0:
        raise _file_error("The uploaded file is empty")
    return b"".join(parts), digest.hexdigest()


async def accept(file: IncomingFile, max_bytes: int) -> StoredFile:
    """Check the name and type first (cheap), then read the bytes under the cap."""
    name = clean_name(file.filename)
    check_type(name)
    content, sha256 = await read_capped(file, max_bytes)
    content_type = (file.content_type or "").strip() or None
    if content_type is not None and len(content_type) > MAX_CONTENT_TYPE_LENGTH:
        content_type = None
    return StoredFile(name, content_type, content, sha256)
