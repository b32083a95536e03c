"""The audit log of an account, for its owners and admins (`access`): a page at a time, or a download."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import StreamingResponse

from botyard.audit import service
from botyard.audit.export import CSV_COLUMNS, ExportFormat
from botyard.audit.repository import AuditFilter
from botyard.audit.schemas import AuditPage
from botyard.deps import AppDatabase, ReadDbSession
from botyard.errors import ErrorCode, Responses, error_responses
from botyard.identity.access import requires
from botyard.identity.caller import CurrentPrincipal
from botyard.models import AuditObject, Permission
from botyard.schemas import MAX_SQL_INTEGER

router = APIRouter(tags=["audit"])

_FORBIDDEN = error_responses({ErrorCode.FORBIDDEN_ROLE: "only owners and admins read the audit log."})
_EXPORT: Responses = _FORBIDDEN | {
    200: {
        "description": f"CSV (`text/csv`): a header, then one row per event, newest first: `{', '.join(CSV_COLUMNS)}` "
        "(a cell starting with `=`, `+`, `-` or `@` gets a leading `'`). JSON: an array of the events as listed.",
        "content": {"text/csv": {}, "application/json": {}},
    }
}
_MEDIA = {ExportFormat.CSV: "text/csv; charset=utf-8", ExportFormat.JSON: "application/json"}


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _after_second(moment: datetime | None) -> datetime | None:
    """The end of `moment`'s whole second: `until` takes in the second it names, as the listing shows times."""
    return None if moment is None else moment.replace(microsecond=0) + timedelta(seconds=1)


def audit_filter(
    since: Annotated[datetime | None, Query(description="Events at or after (ISO 8601; no zone = UTC).")] = None,
    until: Annotated[
        datetime | None, Query(description="Events at or before (the whole second; ISO 8601; no zone = UTC).")
    ] = None,
    actor: Annotated[
        str | None, Query(max_length=320, description="Only this actor: an email, a person's uuid or a key's prefix.")
    ] = None,
    object_type: Annotated[AuditObject | None, Query(description="Only events about this kind of object.")] = None,
) -> AuditFilter:
    return AuditFilter(
        since=_utc(since), before=_after_second(_utc(until)), actor=actor or None, object_type=object_type
    )


AuditQuery = Annotated[AuditFilter, Depends(audit_filter)]


@router.get(
    "/account/audit", response_model=AuditPage, responses=_FORBIDDEN, dependencies=[requires(Permission.ACCESS)]
)
async def list_audit_events(
    only: AuditQuery,
    db: ReadDbSession,
    principal: CurrentPrincipal,
    offset: Annotated[int, Query(ge=0, le=MAX_SQL_INTEGER, description="Events to skip.")] = 0,
    limit: Annotated[int, Query(ge=1, le=200, description="Events to return, at most 200.")] = 50,
) -> AuditPage:
    """The account's audit log, newest first: who changed what (chatbots, agents, sources, tags, tools, keys,
    members, settings) and who signed in, when, from which address. Filters: a period, an actor, a kind of object."""
    return await service.page(db, principal.account_uuid, only, offset, limit)


@router.get(
    "/account/audit/export",
    response_class=StreamingResponse,
    responses=_EXPORT,
    dependencies=[requires(Permission.ACCESS)],
)
async def export_audit_events(
    only: AuditQuery,
    database: AppDatabase,
    principal: CurrentPrincipal,
    form: Annotated[ExportFormat, Query(alias="format", description="`csv` (default) or `json`.")] = ExportFormat.CSV,
) -> StreamingResponse:
    """Download the account's audit log (the filters of `GET /account/audit`) as CSV or JSON, streamed."""
    name = f"audit-{date.today().isoformat()}.{form.value}"
    headers = {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}
    body = service.export(database, principal.account_uuid, only, form)
    return StreamingResponse(body, media_type=_MEDIA[form], headers=headers)
