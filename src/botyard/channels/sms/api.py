"""Twilio's REST API as a channel calls it (through the egress client, the account SID and auth token as basic auth,
every failure read as Twilio's error), and an SMS channel's setup: where its messages come from (a number in E.164
or a Messaging Service), its credentials checked with Twilio before anything is written."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from botyard.channels.calls import LIMITS, ProviderFailed
from botyard.channels.schemas import Credentials
from botyard.channels.sms import twilio
from botyard.config import Settings
from botyard.contacts import phones
from botyard.egress import EgressClient, EgressError, EgressHTTPError, EgressRefused
from botyard.errors import AppError, ErrorCode


class TwilioFailed(ProviderFailed):
    """A call Twilio refused, with its error (`refusal.unsubscribed`: the recipient sent STOP to this sender)."""

    def __init__(self, refusal: twilio.Refusal, retry_after: float | None) -> None:
        code = f" {refusal.code}" if refusal.code is not None else ""
        super().__init__(f"Twilio{code}: {refusal.message}", passing=refusal.passing, retry_after=retry_after)
        self.twilio = refusal


@dataclass
class TwilioApi:
    """Twilio's REST API at `base_url` (a setting, so that tests point it at a server on loopback), with the
    account's SID and auth token as basic auth."""

    egress: EgressClient
    base_url: str

    def __post_init__(self) -> None:
        self.egress = self.egress.with_limits(LIMITS)

    async def account(self, sid: str, token: str) -> dict[str, Any]:
        """The account (`GET Accounts/{sid}.json`): what checks the credentials."""
        return await self._call("GET", f"Accounts/{sid}.json", sid, token)

    async def send(self, sid: str, token: str, form: Mapping[str, str]) -> dict[str, Any]:
        """A message created (`POST Accounts/{sid}/Messages.json`): Twilio's resource of it, its `sid` first."""
        return await self._call("POST", f"Accounts/{sid}/Messages.json", sid, token, form)

    async def _call(
        self, method: str, path: str, sid: str, token: str, form: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        url = f"{self.base_url.rstrip('/')}/{twilio.API_VERSION}/{path}"
        headers = {"Authorization": "Basic " + base64.b64encode(f"{sid}:{token}".encode()).decode()}
        content = None
        if form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            content = urlencode(form).encode()
        try:
            result = await self.egress.fetch(url, method=method, headers=headers, content=content)
        except EgressHTTPError as error:
            after = error.result.headers.get("retry-after")
            seconds = float(after) if after is not None and after.strip().isdigit() else None
            raise TwilioFailed(twilio.refusal(error.result.status, _json(error.result.body)), seconds) from None
        except EgressRefused as error:
            raise ProviderFailed(f"refused by the egress policy: {error.reason}", passing=False) from None
        except EgressError as error:
            raise ProviderFailed(f"Twilio unreachable: {error.reason}", passing=True) from None
        answer = _json(result.body)
        if not isinstance(answer, dict):
            raise ProviderFailed("Twilio answered without JSON", passing=True)
        return answer


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def sender(credentials: Credentials) -> dict[str, str]:
    """Where the channel's messages come from, as its credential: its `phone_number` in E.164, else its
    `messaging_service_sid`; a `validation_error` when neither is given or the one given is not one."""
    if credentials.phone_number:
        try:
            return {"phone_number": phones.canonical(credentials.phone_number)}
        except phones.NotAPhoneNumber:
            raise _invalid("phone_number", "a number in international form, such as +14155550100") from None
    if credentials.messaging_service_sid:
        if not twilio.SERVICE_SID.fullmatch(credentials.messaging_service_sid):
            raise _invalid("messaging_service_sid", "a Messaging Service SID: MG and 32 hexadecimal digits")
        return {"messaging_service_sid": credentials.messaging_service_sid}
    raise _invalid("phone_number", "required: the Twilio number to send from (or messaging_service_sid)")


def changed(plain: dict[str, str], credentials: Credentials) -> dict[str, str]:
    """The channel's credentials with those of an update: a new sender replaces the old one."""
    if not credentials.phone_number and not credentials.messaging_service_sid:
        return plain
    kept = {name: value for name, value in plain.items() if name not in ("phone_number", "messaging_service_sid")}
    return kept | sender(credentials)


def _invalid(field: str, what: str) -> AppError:
    details = [{"field": f"credentials.{field}", "message": what, "type": "value_error"}]
    return AppError(ErrorCode.VALIDATION_ERROR, f"An sms channel needs credentials.{field}: {what}.", details)


async def connect(settings: Settings, egress: EgressClient, plain: dict[str, str]) -> None:
    """Check the account SID and auth token with Twilio (the account read with them): 422 `channel_refused` with
    Twilio's message when it refuses them."""
    if not twilio.ACCOUNT_SID.fullmatch(plain["account_sid"]):
        raise _invalid("account_sid", "the Account SID of the Twilio Console: AC and 32 hexadecimal digits")
    try:
        await TwilioApi(egress, settings.twilio_api_url).account(plain["account_sid"], plain["auth_token"])
    except ProviderFailed as error:
        raise AppError(ErrorCode.CHANNEL_REFUSED, f"Twilio refused the credentials: {error.reason}") from None
