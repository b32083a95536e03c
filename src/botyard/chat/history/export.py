"""A conversation's messages as export rows, and those rows as CSV or JSON text, piece by piece (an export of a long
period is streamed, never built whole).

CSV: one row per turn, with a header: `session_uuid, time, role, text, agent, refused, rating`. A text that a
spreadsheet would read as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) is written with a
leading `'`, the usual defence against formula injection. JSON: an array of conversations, each
`{uuid, created_at, modified_at, tags, messages: [{time, role, text, agent, refused, rating}]}`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence

from botyard.chat.history.schemas import ExportRow
from botyard.db.base import iso
from botyard.models import ChatSession, Message, MessageKind, MessageMeta, SessionMeta, WidgetRole

CSV_COLUMNS = ("session_uuid", "time", "role", "text", "agent", "refused", "rating")
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_ROLES = {
    MessageKind.OPERATOR: WidgetRole.OPERATOR,
    MessageKind.LIVE_CHAT_START: WidgetRole.ANNOUNCEMENT,
    MessageKind.LIVE_CHAT_END: WidgetRole.ANNOUNCEMENT,
}
"""Who speaks in a live-chat row's response (a user's message during a live chat has none)."""


def export_rows(message: Message, rating: str | None) -> list[ExportRow]:
    """The turns of one message: the user's question (if any) at its time, then the reply (if any) at the time it
    was finished, with who gave it."""
    meta = MessageMeta.of(message)
    rows: list[ExportRow] = []
    if message.query:
        rows.append(_row(message, iso(message.created_at), WidgetRole.USER, message.query))
    if message.response:
        role = _ROLES.get(meta.kind, WidgetRole.ASSISTANT) if meta.kind is not None else WidgetRole.ASSISTANT
        row = _row(message, iso(message.modified_at), role, message.response)
        if role == WidgetRole.ASSISTANT:
            row["agent"], row["refused"], row["rating"] = meta.agent_name or "", message.refused, rating or ""
        rows.append(row)
    return rows


def _row(message: Message, time: str, role: WidgetRole, text: str) -> ExportRow:
    return {
        "session_uuid": message.session_uuid,
        "time": time,
        "role": role.value,
        "text": text,
        "agent": "",
        "refused": False,
        "rating": "",
    }


def _safe_cell(text: str) -> str:
    return f"'{text}" if text.startswith(_FORMULA_STARTS) else text


def csv_header() -> str:
    return _csv_lines([list(CSV_COLUMNS)])


def csv_rows(rows: Iterable[ExportRow]) -> str:
    return _csv_lines(
        [
            [
                row["session_uuid"],
                row["time"],
                row["role"],
                _safe_cell(row["text"]),
                _safe_cell(row["agent"]),
                "true" if row["refused"] else "false",
                row["rating"],
            ]
            for row in rows
        ]
    )


def _csv_lines(lines: Sequence[Sequence[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(lines)
    return out.getvalue()


def json_conversation(session: ChatSession, rows: Sequence[ExportRow]) -> str:
    """One conversation as a JSON object (an element of the export's array)."""
    messages = [{key: value for key, value in row.items() if key != "session_uuid"} for row in rows]
    return json.dumps(
        {
            "uuid": session.uuid,
            "created_at": iso(session.created_at),
            "modified_at": iso(session.modified_at),
            "tags": SessionMeta.of(session).tags,
            "outcome": session.outcome,
            "outcome_reason": session.outcome_reason,
            "messages": messages,
        },
        ensure_ascii=False,
    )
