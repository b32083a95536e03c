"""Audit events as CSV rows or JSON array items.

CSV: a header, then one row per event: `at, actor_email, actor_key_prefix, actor_name, role, action, object_type,
object_uuid, summary, address, user_agent`. A cell that a spreadsheet would read as a formula (it starts with `=`,
`+`, `-`, `@`, a tab or a carriage return) is written with a leading `'`, the usual defence against formula
injection. JSON: an array of the events as `GET /account/audit` lists them.
"""

from __future__ import annotations

import csv
import io
import json
from enum import StrEnum

from botyard.audit.schemas import AuditEventOut

CSV_COLUMNS = (
    "at",
    "actor_email",
    "actor_key_prefix",
    "actor_name",
    "role",
    "action",
    "object_type",
    "object_uuid",
    "summary",
    "address",
    "user_agent",
)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class ExportFormat(StrEnum):
    CSV = "csv"
    JSON = "json"


def safe_cell(text: str) -> str:
    return f"'{text}" if text.startswith(_FORMULA_STARTS) else text


def _line(cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(cells)
    return out.getvalue()


CSV_HEADER = _line(list(CSV_COLUMNS))


def csv_row(event: AuditEventOut) -> str:
    actor = event["actor"]
    cells = [
        event["at"],
        actor["email"],
        actor["key_prefix"],
        actor["name"],
        actor["role"],
        event["action"],
        event["object_type"],
        event["object_uuid"],
        event["summary"],
        event["address"],
        event["user_agent"],
    ]
    return _line([safe_cell(cell) for cell in cells])


def json_item(event: AuditEventOut) -> str:
    return json.dumps(event, ensure_ascii=False)
