"""The sandbox's messages: length-prefixed frames on a socket or pipe. A request is a JSON header and the file's
bytes; an answer is one JSON frame. Answers are JSON, never pickle: they come from a process that just parsed a
hostile file, and unpickling them could run code in the parent."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import socket
import struct
from typing import Any

from botyard.ingestion.parse.model import REASONS, ParsedDocument, ParseError, ParseLimits

_LENGTH = struct.Struct(">Q")
HEADER_CAP = 64 * 1024


def frame(payload: bytes) -> bytes:
    return _LENGTH.pack(len(payload)) + payload


def request(data: bytes, file_name: str, content_type: str | None, limits: ParseLimits) -> list[bytes]:
    header = {"name": file_name, "content_type": content_type, "limits": dataclasses.asdict(limits)}
    return [frame(json.dumps(header).encode()), _LENGTH.pack(len(data)), data]


def answer_cap(limits: ParseLimits) -> int:
    """The largest answer a child may send: the Markdown at up to 4 UTF-8 bytes a character, plus some room."""
    return limits.max_chars * 4 + HEADER_CAP


def encode_document(document: ParsedDocument) -> bytes:
    return json.dumps({"ok": dataclasses.asdict(document)}, ensure_ascii=False).encode()


def encode_error(reason: str, detail: str) -> bytes:
    return json.dumps({"error": {"reason": reason, "detail": detail[:500]}}).encode()


def decode_answer(payload: bytes) -> ParsedDocument:
    """The child's answer as a document, or its `ParseError` raised. A malformed answer is a crash."""
    try:
        message: dict[str, Any] = json.loads(payload)
        if "ok" in message:
            fields = message["ok"]
            return ParsedDocument(
                markdown=str(fields["markdown"]),
                title=None if fields["title"] is None else str(fields["title"]),
                format=str(fields["format"]),
                pages=None if fields["pages"] is None else int(fields["pages"]),
                truncated=bool(fields["truncated"]),
            )
        error = message["error"]
        reason, detail = str(error["reason"]), str(error["detail"])
    except (ValueError, KeyError, TypeError) as error:
        raise ParseError("crashed", "the parser sent a malformed answer") from error
    if reason not in REASONS:
        raise ParseError("crashed", f"the parser sent an unknown reason {reason!r}")
    raise ParseError(reason, detail)  # type: ignore[arg-type]


def read_exactly(fd: int, size: int) -> bytes:
    """Blocking read of `size` bytes from a file descriptor (the child side); short only at end of file."""
    parts: list[bytes] = []
    while size > 0:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def read_frame(fd: int, cap: int) -> bytes | None:
    """One frame from a blocking descriptor; None at end of file or when it is larger than `cap`."""
    head = read_exactly(fd, _LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    if size > cap:
        return None
    payload = read_exactly(fd, size)
    return payload if len(payload) == size else None


async def read_frame_async(sock: socket.socket, cap: int) -> bytes | None:
    """One frame from a non-blocking socket, without blocking the event loop."""
    loop = asyncio.get_running_loop()
    head = await _receive(loop, sock, _LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    if size > cap:
        return None
    payload = await _receive(loop, sock, size)
    return payload if len(payload) == size else None


async def _receive(loop: asyncio.AbstractEventLoop, sock: socket.socket, size: int) -> bytes:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        count = await loop.sock_recv_into(sock, view[got:])
        if count == 0:
            break
        got += count
    return bytes(buffer[:got])
