"""Test sets and their runs (the owner's key). Not in the hosted interface; designed in its style."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, UploadFile
from fastapi.responses import Response

from botyard.deps import AppClock, DbSession
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success
from botyard.testsets import service
from botyard.testsets.csvfile import MAX_BYTES
from botyard.testsets.schemas import (
    CaseIn,
    CaseOut,
    Name,
    TestRunOut,
    TestSetCreate,
    TestSetDetail,
    TestSetOut,
    TestSetUpdate,
)

router = APIRouter(tags=["test sets"])

_CSV: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {"schema": {"type": "string"}}}, "description": "The set as CSV."}
}


@router.post(
    "/chatbot/{uuid}/test-sets",
    response_model=TestSetDetail,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.TEST_SET))],
)
async def create_test_set(uuid: str, body: TestSetCreate, db: DbSession, account: CurrentAccount) -> TestSetDetail:
    """A test set from JSON: `cases` each `{question, expect_any: [texts a right answer holds one of]}` or
    `{question, expect_refuse: true}` (the bot must say it does not know)."""
    return await service.create(db, account, uuid, body)


@router.post(
    "/chatbot/{uuid}/test-sets/import",
    response_model=TestSetDetail,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.TEST_SET, "imported"))],
)
async def import_test_set(
    uuid: str,
    file: Annotated[
        UploadFile, File(description="CSV, UTF-8: `question`, `expect_any` (`|` between texts), `expect`.")
    ],
    name: Annotated[Name, Form()],
    db: DbSession,
    account: CurrentAccount,
    run_after_changes: Annotated[bool, Form()] = False,
) -> TestSetDetail:
    """A test set from a CSV file: a header row, then one question a row, with `expect_any` (texts separated by `|`)
    or `expect` = `refuse`. Every row or none: a bad row answers 422 with each bad row's number and what is wrong."""
    data = await file.read(MAX_BYTES + 1)
    return await service.import_csv(db, account, uuid, name, data, run_after_changes)


@router.get("/chatbot/{uuid}/test-sets", response_model=list[TestSetOut], dependencies=[requires(Permission.READ)])
async def list_test_sets(uuid: str, db: DbSession, account: CurrentAccount) -> list[TestSetOut]:
    """The chatbot's test sets, oldest first."""
    return await service.list_sets(db, account, uuid)


@router.get("/test-set/{uuid}", response_model=TestSetDetail, dependencies=[requires(Permission.READ)])
async def get_test_set(uuid: str, db: DbSession, account: CurrentAccount) -> TestSetDetail:
    """A test set with its questions and what each expects."""
    return await service.get(db, account, uuid)


@router.get(
    "/test-set/{uuid}/export", response_class=Response, responses=_CSV, dependencies=[requires(Permission.READ)]
)
async def export_test_set(uuid: str, db: DbSession, account: CurrentAccount) -> Response:
    """The set as CSV (`question,expect_any,expect`), ready to import again."""
    name, text = await service.export(db, account, uuid)
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()  # "Édition" -> "Edition"
    file_name = (re.sub(r"[^A-Za-z0-9._-]+", "-", plain).strip("-") or "test-set") + ".csv"
    headers = {"Content-Disposition": f'attachment; filename="{file_name}"', "Cache-Control": "no-store"}
    return Response(text, media_type="text/csv; charset=utf-8", headers=headers)


@router.post(
    "/test-set/{uuid}/update",
    response_model=TestSetDetail,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.TEST_SET, AuditAction.UPDATED))],
)
async def update_test_set(uuid: str, body: TestSetUpdate, db: DbSession, account: CurrentAccount) -> TestSetDetail:
    """Rename the set, or have it run each time the knowledge changes (`run_after_changes`)."""
    return await service.update(db, account, uuid, body)


@router.post(
    "/test-set/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.TEST_SET, AuditAction.DELETED))],
)
async def delete_test_set(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete the set with its runs."""
    await service.delete(db, account, uuid)
    return Success()


@router.post(
    "/test-set/{uuid}/cases",
    response_model=CaseOut,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.TEST_SET, AuditAction.UPDATED, "case added"))],
)
async def add_test_case(uuid: str, body: CaseIn, db: DbSession, account: CurrentAccount) -> CaseOut:
    """Add a question to the set ("save as test" from a conversation)."""
    return await service.add_case(db, account, uuid, body)


@router.post(
    "/test-set/{uuid}/run",
    response_model=TestRunOut,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.TEST_SET, AuditAction.STARTED, "run"))],
)
async def run_test_set(uuid: str, db: DbSession, account: CurrentAccount, clock: AppClock) -> TestRunOut:
    """Start a run: every question is asked against the chatbot's current knowledge and agents, as a new visitor
    would ask it, outside the conversations, analytics and rate limits, one at a time between live answers. The run
    is `queued`, then `running`, then `done` (or `failed`); `GET /test-run/{uuid}` has its results."""
    return await service.start_run(db, account, uuid, clock())


@router.get("/test-set/{uuid}/runs", response_model=list[TestRunOut], dependencies=[requires(Permission.READ)])
async def list_test_runs(uuid: str, db: DbSession, account: CurrentAccount) -> list[TestRunOut]:
    """The set's last 50 runs, newest first, with their figures (their results: `GET /test-run/{uuid}`)."""
    return await service.list_runs(db, account, uuid)


@router.get("/test-run/{uuid}", response_model=TestRunOut, dependencies=[requires(Permission.READ)])
async def get_test_run(uuid: str, db: DbSession, account: CurrentAccount) -> TestRunOut:
    """A run with each question's verdict, the reply it was judged on, and its change since the set's previous
    finished run (`fixed`, `broken`, `new`)."""
    return await service.get_run(db, account, uuid)
