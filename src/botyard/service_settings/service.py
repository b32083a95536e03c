"""Read and change the stored settings: who may, what a change writes, and what the page shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from botyard.config import Settings
from botyard.db.base import iso
from botyard.errors import AppError, ErrorCode
from botyard.identity.accounts.service import instance_account_uuid
from botyard.identity.principal import Principal
from botyard.service_settings.cipher import Cipher
from botyard.service_settings.fields import BY_NAME, FIELDS, Source, check, effective, locked
from botyard.service_settings.key_binding import KEY_URL, key_url, proves_environment_key, require_key
from botyard.service_settings.repository import InstanceSettingsRepository
from botyard.service_settings.schemas import SettingsChange, SettingsView, SettingView


@dataclass(frozen=True)
class Stored:
    """The saved row, its secrets still sealed."""

    values: Mapping[str, Any] = field(default_factory=dict)
    secrets: Mapping[str, str] = field(default_factory=dict)
    version: int = 0
    updated_at: datetime | None = None

    def opened(self, cipher: Cipher) -> dict[str, str]:
        """The secrets in plain text, leaving out any this key cannot open."""
        plain = {name: cipher.open(token) for name, token in self.secrets.items()}
        return {name: value for name, value in plain.items() if value is not None}

    def effective(self, base: Settings, cipher: Cipher) -> Settings:
        return effective(base, self.values, self.opened(cipher))


async def stored(db: AsyncSession) -> Stored:
    row = await InstanceSettingsRepository(db).current()
    if row is None or row.version == 0:
        return Stored()
    return Stored(dict(row.values), dict(row.secrets), row.version, row.updated_at)


async def version(db: AsyncSession) -> int:
    return await InstanceSettingsRepository(db).version()


async def check_instance_owner(db: AsyncSession, principal: Principal) -> None:
    """404 unless the signer belongs to the instance's own account: another account's owner must not change how
    the whole instance behaves, and to it they are another account's object, answered like a missing one (the
    route itself already needs the `settings` permission: owner or admin)."""
    if principal.account_uuid != await instance_account_uuid(db):
        raise AppError(
            ErrorCode.NOT_FOUND,
            "Service settings not found: they belong to the instance's first account, whose owner and admins "
            "change them",
        )


async def change(
    db: AsyncSession, base: Settings, cipher: Cipher, change: SettingsChange, principal: Principal, now: datetime
) -> Stored:
    """Write `change` over the stored settings, all or nothing: every field is checked before anything is written,
    a new base URL with the key it needs (`key_binding`)."""
    held = locked(base)
    asked = change.model_dump(exclude_unset=True)
    proof = "llm_api_key" in held and proves_environment_key(base, asked.get("llm_api_key"))
    if proof:
        del asked["llm_api_key"]  # the environment's own key, sent to prove it: nothing to save
    for name in asked:
        if name in held:
            message = f"{name} is set by the environment ({BY_NAME[name].env}): change it there, or unset it to "
            raise AppError(ErrorCode.SETTING_LOCKED, message + "change it here")
    if not asked and not proof:
        return await stored(db)
    checked = {name: None if value == "" else check(name, value) for name, value in asked.items()}
    repo = InstanceSettingsRepository(db)
    row = await repo.for_update()
    values = dict(row.values) if row is not None else {}
    secrets = dict(row.secrets) if row is not None else {}
    _bind_key(base, checked, values, secrets, proof)
    for name, value in checked.items():
        target = secrets if BY_NAME[name].secret else values
        if value is None:
            target.pop(name, None)
        else:
            target[name] = cipher.seal(value) if BY_NAME[name].secret else value
    saved = await repo.save(row, values, secrets, updated_at=now, updated_by=principal.user_uuid)
    return Stored(dict(saved.values), dict(saved.secrets), saved.version, saved.updated_at)


def _bind_key(
    base: Settings, checked: dict[str, Any], values: dict[str, Any], secrets: dict[str, Any], proof: bool
) -> None:
    """Refuse a new base URL that would take the key in use without it; record the key's base URL (`key_binding`)."""
    given = proof or checked.get("llm_api_key") is not None
    in_use = given or base.llm_api_key is not None or ("llm_api_key" in secrets and "llm_api_key" not in checked)
    bound = key_url(base, values)
    if "llm_base_url" in checked:
        require_key(checked["llm_base_url"], bound, key_in_use=in_use, key_given=given)
    if not in_use:
        values.pop(KEY_URL, None)
        return
    url = checked["llm_base_url"] if "llm_base_url" in checked else effective(base, values, {}).llm_base_url
    values[KEY_URL] = url if given else bound


def view(base: Settings, saved: Stored, cipher: Cipher) -> SettingsView:
    """What the page shows: each setting's value in use and where it comes from; a secret only as set or not."""
    held = locked(base)
    opened = saved.opened(cipher)
    now = saved.effective(base, cipher)
    shown = []
    for editable in FIELDS:
        name = editable.name
        source = Source.ENVIRONMENT if name in held else Source.DASHBOARD if _stored(saved, name) else Source.DEFAULT
        value = getattr(now, name)
        entry: dict[str, Any] = {"value": None if editable.secret else value, "is_set": bool(value)}
        if editable.secret:
            plain = value.get_secret_value() if value is not None else ""
            entry |= {"last4": plain[-4:] if len(plain) >= 8 else None}
            entry["unreadable"] = source is Source.DASHBOARD and name not in opened
        shown.append(
            SettingView(
                name=name,
                env=editable.env,
                section=editable.section,
                label=editable.label,
                source=source,
                locked=name in held,
                secret=editable.secret,
                **entry,
            )
        )
    return SettingsView(
        version=saved.version,
        updated_at=iso(saved.updated_at) if saved.updated_at else None,
        settings=shown,
    )


def _stored(saved: Stored, name: str) -> bool:
    return name in saved.values or name in saved.secrets
