"""Data source rules: creation of each type, de-duplication, ownership, bulk operations, re-processing."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.chatbots.service import get_owned as get_owned_chatbot
from botyard.db.base import iso
from botyard.egress import EgressClient, EgressNetworkError, EgressRefused, EgressTimeout
from botyard.errors import AppError, ErrorCode, not_found, unknown_uuids
from botyard.jobs.kinds import JobKind, ProcessSource
from botyard.jobs.service import drop_queued, enqueue
from botyard.models import DataSource, SourceFile, SourceStatus, SourceType
from botyard.sources import uploads
from botyard.sources.links import url_dedupe_key
from botyard.sources.repository import DataSourceRepository
from botyard.sources.schemas import DataSource as DataSourceOut
from botyard.sources.schemas import ItemResult, QaCreate, SourceUpdate, UrlCreate

QA_TITLE_LENGTH = 200
INVALID_SOURCE = "invalid data source"
_UUID = re.compile(r"^[0-9a-f]{32}$")


class DuplicateSource(AppError):
    """A second source for the same URL or the same bytes in one chatbot: 409 whose body is the existing source
    (what the hosted service answers, and what its clients read)."""

    def __init__(self, existing: DataSource) -> None:
        super().__init__(ErrorCode.CONFLICT, "Data source already exists")
        self.existing = to_wire(existing)

    def body(self) -> dict[str, Any]:
        return dict(self.existing)


async def schedule_processing(db: AsyncSession, source: DataSource, *, new: bool = False) -> None:
    """The one place where a source's processing (fetch or parse, chunk, embed) starts: called when a source is
    created (`new`), re-scraped or restarted, with the source already `queued`. The job is written in the caller's
    transaction, so it exists exactly when the source row does; a job still waiting for the same source is
    replaced rather than doubled."""
    if not new:
        await drop_queued(db, JobKind.PROCESS_SOURCE, data_source_uuid=source.uuid)
    await enqueue(db, ProcessSource(source.uuid), chatbot_uuid=source.chatbot_uuid, data_source_uuid=source.uuid)


async def require_in_chatbot(db: AsyncSession, chatbot_uuid: str, uuids: Sequence[str]) -> list[str]:
    """`uuids` de-duplicated in order, once each is known to be a source of this chatbot; otherwise the 404 a
    missing source gets (a source of another chatbot or account is indistinguishable from a missing one)."""
    wanted = list(dict.fromkeys(uuids))
    found = {source.uuid for source in await DataSourceRepository(db).in_chatbot(chatbot_uuid, wanted)}
    if len(found) != len(wanted):
        raise not_found("Data source")
    return wanted


def _meta(reference_source_link: str | None, **values: str | None) -> dict[str, str]:
    meta = {key: value for key, value in values.items() if value is not None}
    if reference_source_link is not None:
        meta["reference_source_link"] = reference_source_link
    return meta


async def _add_deduplicated(
    db: AsyncSession, source: DataSource, dedupe_key: str, file: SourceFile | None = None
) -> DataSource:
    repository = DataSourceRepository(db)
    source.dedupe_key = dedupe_key
    if await repository.add_unique(source, file):  # the unique key decides, also between concurrent requests
        await schedule_processing(db, source, new=True)
        return source
    existing = await repository.by_dedupe_key(source.chatbot_uuid, dedupe_key)
    if existing is None:  # taken, then deleted meanwhile
        raise AppError(ErrorCode.CONFLICT, "The data source could not be added; retry")
    raise DuplicateSource(existing)


async def create_qa(db: AsyncSession, account_uuid: str, chatbot_uuid: str, body: QaCreate) -> DataSource:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    source = DataSource(
        chatbot_uuid=chatbot.uuid,
        type=SourceType.QA,
        title=body.question.strip()[:QA_TITLE_LENGTH],
        file_name="",
        file_size=len((body.question + body.answer).encode()),
        meta=_meta(body.reference_source_link, question=body.question, answer=body.answer),
    )
    await DataSourceRepository(db).add(source)
    await schedule_processing(db, source, new=True)
    return source


async def check_link(egress: EgressClient, url: str, field: str = "url") -> None:
    """Refuse at creation a URL the egress policy would refuse (private address, scheme, port...): a clear 422
    instead of a source (or a tool function, its `field` named so) that can only fail. A host that does not resolve
    now is accepted; its fetch will tell."""
    try:
        await egress.check_url(url)
    except EgressRefused as error:
        detail = {"field": field, "message": error.reason, "type": ErrorCode.URL_REFUSED.value}
        raise AppError(ErrorCode.URL_REFUSED, f"URL refused: {error.message}", [detail]) from error
    except (EgressNetworkError, EgressTimeout):
        pass


async def create_url(
    db: AsyncSession, egress: EgressClient, account_uuid: str, chatbot_uuid: str, body: UrlCreate
) -> DataSource:
    await check_link(egress, body.url)  # before any database work: no lock is held while DNS answers
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    source = DataSource(
        chatbot_uuid=chatbot.uuid,
        type=SourceType.LINK,
        title=body.url,
        file_name=body.url,
        file_size=0,
        meta=_meta(body.reference_source_link, url=body.url),
    )
    return await _add_deduplicated(db, source, url_dedupe_key(body.url))


async def add_crawled_page(
    db: AsyncSession, chatbot_uuid: str, url: str, body: bytes, content_type: str, meta: dict[str, str]
) -> tuple[DataSource, bool]:
    """A page a crawl fetched, as an ordinary URL source (the chatbot's source for that URL if it has one already:
    `(source, False)`). The fetched body goes with it, so ingestion parses it without fetching the page again."""
    source = DataSource(
        chatbot_uuid=chatbot_uuid,
        type=SourceType.LINK,
        title=url,
        file_name=url,
        file_size=len(body),
        meta={"url": url, **meta},
    )
    file = SourceFile(content_type=content_type, sha256=hashlib.sha256(body).hexdigest(), content=body)
    try:
        return await _add_deduplicated(db, source, url_dedupe_key(url), file), True
    except DuplicateSource:
        existing = await link_source_at(db, chatbot_uuid, url)
        assert existing is not None  # _add_deduplicated found it
        return existing, False


async def link_source_at(db: AsyncSession, chatbot_uuid: str, url: str) -> DataSource | None:
    """The chatbot's URL source for the page at `url` (compared in normal form), if it holds one."""
    return await DataSourceRepository(db).by_dedupe_key(chatbot_uuid, url_dedupe_key(url))


async def create_upload(
    db: AsyncSession,
    account_uuid: str,
    chatbot_uuid: str,
    file: uploads.IncomingFile,
    reference_source_link: str | None,
    max_bytes: int,
) -> DataSource:
    """Store an uploaded file as a source; the chatbot is checked before the file is looked at."""
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    accepted = await uploads.accept(file, max_bytes)
    source = DataSource(
        chatbot_uuid=chatbot.uuid,
        type=SourceType.UPLOAD,
        title=accepted.name,
        file_name=accepted.name,
        file_size=len(accepted.content),
        meta=_meta(reference_source_link, content_type=accepted.content_type),
    )
    stored = SourceFile(sha256=accepted.sha256, content=accepted.content)
    if accepted.content_type is not None:
        stored.content_type = accepted.content_type
    return await _add_deduplicated(db, source, "sha256:" + accepted.sha256, stored)


async def get_owned(db: AsyncSession, account_uuid: str, source_uuid: str) -> DataSource:
    """The account's source, or the 404 a missing source gets (another account's source answers the same)."""
    return await DataSourceRepository(db).get_owned(account_uuid, source_uuid)


async def list_of_chatbot(db: AsyncSession, account_uuid: str, chatbot_uuid: str) -> Sequence[DataSource]:
    chatbot = await get_owned_chatbot(db, account_uuid, chatbot_uuid)
    return await DataSourceRepository(db).of_chatbot(chatbot.uuid)


async def in_chatbot(db: AsyncSession, chatbot_uuid: str, uuids: Sequence[str]) -> Sequence[DataSource]:
    """The sources among `uuids` that belong to the chatbot (the caller has decided who may see them)."""
    return await DataSourceRepository(db).in_chatbot(chatbot_uuid, uuids)


async def update(db: AsyncSession, account_uuid: str, source_uuid: str, body: SourceUpdate) -> DataSource:
    source = await get_owned(db, account_uuid, source_uuid)
    return await DataSourceRepository(db).retitle(source, body.title)


async def delete(db: AsyncSession, account_uuid: str, source_uuid: str) -> None:
    source = await get_owned(db, account_uuid, source_uuid)
    await DataSourceRepository(db).remove([source])


async def _owned_by_uuid(db: AsyncSession, account_uuid: str, uuids: Sequence[str]) -> dict[str, DataSource]:
    wellformed = [uuid for uuid in dict.fromkeys(uuids) if _UUID.match(uuid)]
    return {source.uuid: source for source in await DataSourceRepository(db).owned_among(account_uuid, wellformed)}


async def delete_many(db: AsyncSession, account_uuid: str, uuids: Sequence[str]) -> None:
    """All or nothing: when any uuid is not one of the account's sources, nothing is deleted and each bad uuid is
    reported (a foreign uuid exactly like an unknown one)."""
    owned = await _owned_by_uuid(db, account_uuid, uuids)
    bad = [uuid for uuid in dict.fromkeys(uuids) if uuid not in owned]
    if bad:
        raise unknown_uuids(bad, noun="data sources", reason=INVALID_SOURCE)
    await DataSourceRepository(db).remove(owned.values())


async def _restart(
    db: AsyncSession,
    account_uuid: str,
    uuids: Sequence[str],
    status: str,
    only_type: SourceType | None,
) -> list[ItemResult]:
    owned = await _owned_by_uuid(db, account_uuid, uuids)
    restartable = {uuid: s for uuid, s in owned.items() if only_type is None or s.type == only_type}
    repository = DataSourceRepository(db)
    for source in restartable.values():
        await repository.update(source, {"status": SourceStatus.QUEUED})
        await schedule_processing(db, source)
    return [
        {"uuid": uuid, "status": status} if uuid in restartable else {"uuid": uuid, "error": INVALID_SOURCE}
        for uuid in uuids
    ]


async def rescrape(db: AsyncSession, account_uuid: str, uuids: Sequence[str]) -> list[ItemResult]:
    """Fetch the account's URL sources again; one result per requested uuid, in request order."""
    return await _restart(db, account_uuid, uuids, "restarted scraping", only_type=SourceType.LINK)


async def restart(db: AsyncSession, account_uuid: str, uuids: Sequence[str]) -> list[ItemResult]:
    """Process the account's sources (any type) again; one result per requested uuid, in request order."""
    return await _restart(db, account_uuid, uuids, "restarted", only_type=None)


def to_wire(source: DataSource) -> DataSourceOut:
    return {
        "uuid": source.uuid,
        "title": source.title,
        "type": SourceType(source.type),
        "status": source.status,
        "file_name": source.file_name,
        "file_size": source.file_size,
        "tokens": source.tokens,
        "meta_json": json.dumps(source.meta or {}),
        "created_at": iso(source.created_at),
        "modified_at": iso(source.modified_at),
    }
