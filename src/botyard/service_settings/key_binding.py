"""The model's API key belongs to the base URL it was given with: whoever may change the settings must not be able
to send the saved key (or the environment's `BOTYARD_LLM_API_KEY`) to a server of their choice, by testing or saving
a new base URL alone. So a request (a save or a connection test) that points the model at a base URL other than the
key's must give the key in the same request, or it is refused (422 `llm_api_key_required`):

1. No key in use (none saved, none in the environment), or the request gives the key: allowed. A key set by the
   environment is given by sending the same value (it proves the sender knows it; it is not saved).
2. The request gives no base URL, or an empty one (the offline answerer sends the key nowhere): allowed.
3. The base URL given is the key's: allowed. Any other: refused.

The key's base URL is stored beside the settings' values under `KEY_URL`, written with every save while a key is in
use: the base URL in use after a save that gave the key, else the one before. A key saved before it was recorded
(by an earlier release) belongs to the base URL in use with it.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

from botyard.config import Settings
from botyard.errors import AppError, ErrorCode
from botyard.service_settings.fields import effective

KEY_URL = "llm_api_key_url"
"""The name, among the stored values, of the key's base URL (never a setting: `SettingsChange` cannot write it)."""


def key_url(base: Settings, values: Mapping[str, Any]) -> str | None:
    """The base URL the key in use was given with (see the module)."""
    if KEY_URL in values:
        recorded = values[KEY_URL]
        return recorded if isinstance(recorded, str) else None
    return effective(base, values, {}).llm_base_url


def proves_environment_key(base: Settings, given: object) -> bool:
    """Whether `given` is the key the environment sets (a locked key may be sent only as itself, to prove it)."""
    held = base.llm_api_key.get_secret_value() if base.llm_api_key is not None else None
    return held is not None and isinstance(given, str) and hmac.compare_digest(given.strip(), held)


def require_key(new_url: str | None, bound: str | None, *, key_in_use: bool, key_given: bool) -> None:
    """Refuse `new_url` (the base URL the request points the model at; None: it does not) when the key in use would
    go to it without being given (see the module's list)."""
    if not key_in_use or key_given or new_url is None or new_url == bound:
        return
    message = (
        "llm_api_key: the base URL is not the one the API key was saved with, and the key would be sent to it: "
        "give llm_api_key (the key for that server) in the same request (on the Settings page: type the key again); "
        "a key set by BOTYARD_LLM_API_KEY is given as its own value"
    )
    details = [{"loc": ["body", "llm_api_key"], "msg": "required with a new llm_base_url"}]
    raise AppError(ErrorCode.LLM_API_KEY_REQUIRED, message, details=details)
