"""The instance's settings (owner and admins of the instance's first account). Not in the hosted interface."""

from __future__ import annotations

import logging

from fastapi import APIRouter
from pydantic import SecretStr

from botyard.deps import AppClock, AppDatabase
from botyard.errors import AppError, ErrorCode, error_responses
from botyard.identity.access import Audited, NotAudited, requires
from botyard.identity.caller import CurrentPrincipal
from botyard.models import AuditAction, AuditObject, Permission
from botyard.service_settings import service
from botyard.service_settings.connection import check_connection
from botyard.service_settings.fields import BY_NAME, check, locked
from botyard.service_settings.key_binding import key_url, proves_environment_key, require_key
from botyard.service_settings.live import Live
from botyard.service_settings.schemas import ConnectionResult, ConnectionTest, SettingsChange, SettingsView

log = logging.getLogger(__name__)
router = APIRouter(tags=["operations"])

_NOT_YOURS_REASON = {ErrorCode.NOT_FOUND: "the signer's account is not the instance's own (its first account)."}
_NOT_YOURS = error_responses(_NOT_YOURS_REASON)
_LOCKED = error_responses(
    {
        **_NOT_YOURS_REASON,
        ErrorCode.SETTING_LOCKED: "an environment variable sets this setting; change it there.",
        ErrorCode.VALIDATION_ERROR: "a value is invalid (`details` names it)",
        ErrorCode.LLM_API_KEY_REQUIRED: "a new `llm_base_url` needs `llm_api_key` in the same request, the saved key "
        "is never sent to another server.",
    }
)


@router.get(
    "/service/settings", response_model=SettingsView, responses=_NOT_YOURS, dependencies=[requires(Permission.SETTINGS)]
)
async def read_settings(principal: CurrentPrincipal, database: AppDatabase, live: Live) -> SettingsView:
    """The instance's settings that the dashboard changes: each one's value in use and where it comes from
    (`environment` wins and is `locked`, else `dashboard`, else `default`). A secret shows only whether it is set
    and its last four characters."""
    async with database.transaction(write=False) as db:
        await service.check_instance_owner(db, principal)
        saved = await service.stored(db)
    return service.view(live.base, saved, live.cipher)


@router.post(
    "/service/settings",
    response_model=SettingsView,
    responses=_LOCKED,
    dependencies=[requires(Permission.SETTINGS, Audited(AuditObject.SETTING, AuditAction.UPDATED, "service settings"))],
)
async def change_settings(
    change: SettingsChange, principal: CurrentPrincipal, database: AppDatabase, clock: AppClock, live: Live
) -> SettingsView:
    """Change some of the instance's settings; they take effect at once, without a restart (other processes follow
    within `BOTYARD_SETTINGS_POLL_SECONDS`). All or nothing: a bad or environment-set field changes none (422 naming
    it, or 409 `setting_locked`). A base URL other than the one the API key was saved with needs the key in the same
    change (422 `llm_api_key_required`)."""
    async with database.transaction() as db:
        await service.check_instance_owner(db, principal)
        saved = await service.change(db, live.base, live.cipher, change, principal, clock())
    log.info("settings changed (%s), version %d", ", ".join(sorted(change.model_fields_set)), saved.version)
    await live.refresh()
    return service.view(live.base, saved, live.cipher)


@router.post(
    "/service/settings/llm/test",
    response_model=ConnectionResult,
    responses=_LOCKED,
    dependencies=[requires(Permission.SETTINGS, NotAudited("sends the model one prompt; changes nothing"))],
)
async def try_llm(
    principal: CurrentPrincipal, database: AppDatabase, live: Live, body: ConnectionTest | None = None
) -> ConnectionResult:
    """Send one short prompt to the language model and show its reply, or what went wrong and which setting to
    check (unreachable, key refused, model missing). Uses the settings in use, with any of the `llm_*` values given
    laid over them first (nothing is saved). A base URL other than the one the API key was saved with needs the key
    in the same request (422 `llm_api_key_required`): the saved key goes only where it was saved for."""
    async with database.transaction(write=False) as db:
        await service.check_instance_owner(db, principal)
        saved = await service.stored(db)
    body = body or ConnectionTest()
    given = body.model_dump(exclude_unset=True, exclude={"model"})
    held = locked(live.base)
    proof = "llm_api_key" in held and proves_environment_key(live.base, given.get("llm_api_key"))
    for name in given:
        if name in held and not (name == "llm_api_key" and proof):
            raise AppError(ErrorCode.SETTING_LOCKED, f"{name} is set by the environment ({BY_NAME[name].env})")
    update = {name: check(name, value) for name, value in given.items() if value not in (None, "")}
    if "llm_api_key" in update:
        update["llm_api_key"] = SecretStr(update["llm_api_key"])
    in_use = live.current.llm_api_key is not None
    bound = key_url(live.base, saved.values)
    require_key(update.get("llm_base_url"), bound, key_in_use=in_use, key_given="llm_api_key" in update)
    return await check_connection(live.current.model_copy(update=update), body.model)
