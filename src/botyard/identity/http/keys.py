"""The account's API keys, one set of endpoints (extension: the hosted API leaves key management out): list them with
their names, last use and makers, create a named one (shown once), revoke one.

The older paths answer 308 to these, so that a client that follows redirects keeps working (docs/access.md):
`GET /account/keys`, `POST /account/key/create` (which now needs the `name` the kept one does) and
`POST /account/key/{prefix}/revoke`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from botyard.deps import DbSession
from botyard.identity.access import Audited, made, public, requires
from botyard.identity.accounts import service
from botyard.identity.caller import CurrentPrincipal
from botyard.identity.http.member_schemas import ApiKeyCreate, ApiKeyDetails, ApiKeyIssued, key_view
from botyard.identity.keys import service as api_keys
from botyard.identity.users import members
from botyard.identity.users import service as people_and_keys
from botyard.models import AuditAction, AuditObject, Permission

router = APIRouter(tags=["account"])


@router.get("/account/api-keys", response_model=list[ApiKeyDetails], dependencies=[requires(Permission.ACCESS)])
async def list_api_keys(db: DbSession, principal: CurrentPrincipal) -> list[ApiKeyDetails]:
    """List the account's API keys with their names, last use (to the minute) and who made them (the keys
    themselves are never shown again)."""
    records, makers = await people_and_keys.keys_with_makers(db, principal.account_uuid)
    return [key_view(record, makers) for record in records]


@router.post(
    "/account/api-key/create",
    response_model=ApiKeyIssued,
    dependencies=[requires(Permission.ACCESS, made(AuditObject.KEY))],
)
async def create_api_key(body: ApiKeyCreate, db: DbSession, principal: CurrentPrincipal) -> ApiKeyIssued:
    """Create a named API key for a program; the reply is the only time the key is shown."""
    key, record = await api_keys.add_key(db, principal.account_uuid, body.name, made_by=principal.user_uuid)
    makers = {principal.user_uuid: principal.email} if principal.user_uuid else {}
    return {**key_view(record, makers), "key": key}


@router.post(
    "/account/api-key/{prefix}/revoke",
    response_model=ApiKeyDetails,
    dependencies=[requires(Permission.ACCESS, Audited(AuditObject.KEY, AuditAction.REVOKED))],
)
async def revoke_api_key(prefix: str, db: DbSession, principal: CurrentPrincipal) -> ApiKeyDetails:
    """Revoke one of the account's keys by its prefix (a key may revoke itself): its next request answers 401."""
    record = await service.revoke_key(db, prefix, account_uuid=principal.account_uuid)
    maker = await members.by_uuid(db, record.made_by_user_uuid) if record.made_by_user_uuid else None
    mine = maker is not None and maker.account_uuid == principal.account_uuid
    return key_view(record, {maker.uuid: maker.email} if maker is not None and mine else {})


_MOVED: dict[int | str, dict[str, Any]] = {308: {"description": "Moved: send the same request to `Location`."}}


def _moved(request: Request, name: str, **params: str) -> RedirectResponse:
    return RedirectResponse(request.app.url_path_for(name, **params), status_code=308)


@router.get("/account/keys", status_code=308, responses=_MOVED, include_in_schema=False, dependencies=[public()])
async def list_keys_moved(request: Request) -> RedirectResponse:
    """Moved to `GET /account/api-keys`."""
    return _moved(request, "list_api_keys")


@router.post("/account/key/create", status_code=308, responses=_MOVED, include_in_schema=False, dependencies=[public()])
async def create_key_moved(request: Request) -> RedirectResponse:
    """Moved to `POST /account/api-key/create`."""
    return _moved(request, "create_api_key")


@router.post(
    "/account/key/{prefix}/revoke", status_code=308, responses=_MOVED, include_in_schema=False, dependencies=[public()]
)
async def revoke_key_moved(prefix: str, request: Request) -> RedirectResponse:
    """Moved to `POST /account/api-key/{prefix}/revoke`."""
    return _moved(request, "revoke_api_key", prefix=prefix)
