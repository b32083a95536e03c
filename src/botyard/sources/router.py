from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Query, UploadFile

from botyard.deps import AppSettings, DbSession, Egress
from botyard.errors import ErrorCode, Responses, error_responses
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import MAX_SQL_INTEGER, Success
from botyard.sources import content, service
from botyard.sources.schemas import (
    DataSource,
    ItemResult,
    QaCreate,
    QaUpdate,
    ReferenceLink,
    SourceChunks,
    SourceUpdate,
    SourceUuids,
    UrlCreate,
)
from botyard.sources.tags.router import router as tags_router

router = APIRouter(tags=["data sources"])
restart_router = APIRouter(tags=["data sources"])
"""Mounted under `/api` without the version: the hosted service's SDK calls `/api/data-sources/restart`."""

_DUPLICATE: Responses = {
    409: {"description": "Already in this chatbot; the body is the existing data source.", "model": DataSource}
}
_UPLOAD_REFUSALS = _DUPLICATE | error_responses(
    {ErrorCode.FILE_TYPE_NOT_ALLOWED: "not a document type the ingestion reads (by its extension)."}
)
_NOT_QA = error_responses(
    {
        ErrorCode.NOT_A_QA_SOURCE: "the source is a web page or a file",
        ErrorCode.VALIDATION_ERROR: "the body is not valid.",
    }
)


@router.post(
    "/chatbot/{uuid}/data-source/qa",
    response_model=DataSource,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.SOURCE, "Q&A"))],
)
async def create_qa_source(uuid: str, body: QaCreate, db: DbSession, account: CurrentAccount) -> DataSource:
    """Add a question/answer pair to a chatbot's knowledge."""
    return service.to_wire(await service.create_qa(db, account, uuid, body))


@router.post(
    "/chatbot/{uuid}/data-source/url",
    response_model=DataSource,
    responses=_DUPLICATE,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.SOURCE, "link"))],
)
async def create_url_source(
    uuid: str, body: UrlCreate, db: DbSession, account: CurrentAccount, egress: Egress
) -> DataSource:
    """Add a web page to a chatbot's knowledge; the same URL twice answers 409, a refused URL 422."""
    return service.to_wire(await service.create_url(db, egress, account, uuid, body))


@router.post(
    "/chatbot/{uuid}/data-source/upload",
    response_model=DataSource,
    responses=_UPLOAD_REFUSALS,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.SOURCE, "upload"))],
)
async def upload_source(
    uuid: str,
    file: Annotated[UploadFile, File(description="The document, with its file name.")],
    db: DbSession,
    account: CurrentAccount,
    settings: AppSettings,
    reference_source_link: Annotated[ReferenceLink, Form()] = None,
) -> DataSource:
    """Upload a document (pdf, doc(x), pptx, xls(x), csv, md, txt, html, json, tex); the same file twice answers 409."""
    max_bytes = settings.max_upload_mb * 1024 * 1024
    source = await service.create_upload(db, account, uuid, file, reference_source_link, max_bytes)
    return service.to_wire(source)


@router.get("/chatbot/{uuid}/data-sources", response_model=list[DataSource], dependencies=[requires(Permission.READ)])
async def list_sources(uuid: str, db: DbSession, account: CurrentAccount) -> list[DataSource]:
    """List a chatbot's data sources, oldest first."""
    return [service.to_wire(source) for source in await service.list_of_chatbot(db, account, uuid)]


@router.get("/data-source/{uuid}", response_model=DataSource, dependencies=[requires(Permission.READ)])
async def get_source(uuid: str, db: DbSession, account: CurrentAccount) -> DataSource:
    """Fetch one data source."""
    return service.to_wire(await service.get_owned(db, account, uuid))


@router.post(
    "/data-source/{uuid}/update",
    response_model=DataSource,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SOURCE, AuditAction.UPDATED))],
)
async def update_source(uuid: str, body: SourceUpdate, db: DbSession, account: CurrentAccount) -> DataSource:
    """Rename a data source."""
    return service.to_wire(await service.update(db, account, uuid, body))


@router.get("/data-source/{uuid}/chunks", response_model=SourceChunks, dependencies=[requires(Permission.READ)])
async def list_source_chunks(
    uuid: str,
    db: DbSession,
    account: CurrentAccount,
    offset: Annotated[int, Query(ge=0, le=MAX_SQL_INTEGER, description="Chunks to skip.")] = 0,
    limit: Annotated[int, Query(ge=1, le=200, description="Chunks to return, at most 200.")] = 50,
) -> SourceChunks:
    """What a data source holds: its chunks in order (what search finds and cites), paged; the extracted text itself
    is not kept."""
    return await content.chunks_of(db, account, uuid, offset, limit)


@router.post(
    "/data-source/{uuid}/qa/update",
    response_model=DataSource,
    responses=_NOT_QA,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SOURCE, AuditAction.UPDATED, "Q&A"))],
)
async def update_qa_source(uuid: str, body: QaUpdate, db: DbSession, account: CurrentAccount) -> DataSource:
    """Edit a Q&A pair's question and/or answer: the old text is no longer found from this answer on; the new one is
    searchable by words at once and by meaning once embedded (`status` back to `success`)."""
    return service.to_wire(await content.update_qa(db, account, uuid, body))


@router.post(
    "/data-source/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SOURCE, AuditAction.DELETED))],
)
async def delete_source(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete a data source; it leaves every tag and agent that named it."""
    await service.delete(db, account, uuid)
    return Success()


@router.delete(
    "/data-source/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SOURCE, AuditAction.DELETED))],
)
async def delete_source_by_delete(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete a data source (the same as the POST form)."""
    await service.delete(db, account, uuid)
    return Success()


@router.post(
    "/data-sources/delete",
    response_model=Success,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SOURCE, AuditAction.DELETED, "several"))],
)
async def delete_sources(body: SourceUuids, db: DbSession, account: CurrentAccount) -> Success:
    """Delete several data sources: all of them, or none when any uuid is unknown (422 listing those uuids)."""
    await service.delete_many(db, account, body.uuids)
    return Success()


@router.post(
    "/data-sources/url/re-scrape",
    response_model=list[ItemResult],
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SOURCE, AuditAction.UPDATED, "re-scrape"))],
)
async def rescrape_sources(body: SourceUuids, db: DbSession, account: CurrentAccount) -> list[ItemResult]:
    """Fetch URL sources again; one result per requested uuid, in order, either a status or an error."""
    return await service.rescrape(db, account, body.uuids)


@restart_router.post(
    "/data-sources/restart",
    response_model=list[ItemResult],
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.SOURCE, AuditAction.UPDATED, "restarted"))],
)
async def restart_sources(body: SourceUuids, db: DbSession, account: CurrentAccount) -> list[ItemResult]:
    """Process data sources of any type again; one result per requested uuid, in order, a status or an error."""
    return await service.restart(db, account, body.uuids)


router.include_router(tags_router)
