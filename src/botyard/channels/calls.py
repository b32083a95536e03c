"""The providers' APIs as the channels call them: every request through the egress client, the bot token never in
a log line or an error (`hide`), and every failure read as one of three outcomes: it went through, try again
(after the provider's `retry_after` when it says one), or give up."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from botyard.channels import meta, slack, telegram
from botyard.egress import EgressClient, EgressError, EgressHTTPError, EgressLimits, EgressRefused

LIMITS = EgressLimits(connect_timeout=5, read_timeout=15, total_timeout=20, max_bytes=1024 * 1024, max_redirects=0)


class ProviderFailed(Exception):
    """A call that did not go through: `passing` when trying again may help (after `retry_after` seconds when the
    provider said so); `refusal` is Telegram's own answer, when it gave one."""

    def __init__(
        self,
        reason: str,
        *,
        passing: bool,
        retry_after: float | None = None,
        refusal: telegram.Refusal | None = None,
        graph: meta.GraphRefusal | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.passing = passing
        self.retry_after = retry_after
        self.refusal = refusal
        self.graph = graph


@dataclass
class TelegramApi:
    """Telegram's Bot API at `base_url` (a setting, so that tests point it at a server on loopback)."""

    egress: EgressClient
    base_url: str

    def __post_init__(self) -> None:
        self.egress = self.egress.with_limits(LIMITS)

    async def call(self, token: str, call: telegram.Call) -> Any:
        """The call's `result`; `ProviderFailed` when Telegram refused it or could not be reached."""
        try:
            result = await self.egress.fetch(call.url(self.base_url, token), method="POST", json=call.body, hide=token)
        except EgressHTTPError as error:
            refused = telegram.refusal(error.result.status, _json(error.result.body))
            raise ProviderFailed(
                f"Telegram: {refused.description}",
                passing=refused.passing,
                retry_after=refused.retry_after,
                refusal=refused,
            ) from None
        except EgressRefused as error:
            raise ProviderFailed(f"refused by the egress policy: {error.reason}", passing=False) from None
        except EgressError as error:  # the network, a timeout: Telegram may answer next time
            raise ProviderFailed(f"Telegram unreachable: {error.reason}", passing=True) from None
        body = _json(result.body)
        if not isinstance(body, dict) or body.get("ok") is not True:
            raise ProviderFailed("Telegram answered without ok: true", passing=True)
        return body.get("result")


@dataclass
class SlackApi:
    """Slack's Web API at `base_url` (a setting, so that tests point it at a server on loopback)."""

    egress: EgressClient
    base_url: str

    def __post_init__(self) -> None:
        self.egress = self.egress.with_limits(LIMITS)

    async def call(self, token: str, call: slack.Call) -> dict[str, Any]:
        """The method's answer; `ProviderFailed` when Slack refused it (`ok: false`) or could not be reached."""
        url = f"{self.base_url.rstrip('/')}/{call.method}"
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json; charset=utf-8"}
        try:
            result = await self.egress.fetch(url, method="POST", headers=headers, json=call.body)
        except EgressHTTPError as error:
            status, after = error.result.status, _retry_after(error.result.headers.get("retry-after"))
            answer = _json(error.result.body)
            reason = answer.get("error") if isinstance(answer, dict) else None
            passing = status == 429 or status >= 500
            raise ProviderFailed(f"Slack: {reason or f'http {status}'}", passing=passing, retry_after=after) from None
        except EgressRefused as error:
            raise ProviderFailed(f"refused by the egress policy: {error.reason}", passing=False) from None
        except EgressError as error:
            raise ProviderFailed(f"Slack unreachable: {error.reason}", passing=True) from None
        answer = _json(result.body)
        if not isinstance(answer, dict):
            raise ProviderFailed("Slack answered without JSON", passing=True)
        if answer.get("ok") is not True:
            reason = str(answer.get("error", "unknown error"))
            raise ProviderFailed(f"Slack: {reason}", passing=reason not in slack.PERMANENT)
        return answer


@dataclass
class GraphApi:
    """Meta's Graph API at `base_url` (a setting, so that tests point it at a server on loopback), at the one
    version `meta.GRAPH_VERSION`; the access token goes in the `Authorization` header, never in the URL."""

    egress: EgressClient
    base_url: str

    def __post_init__(self) -> None:
        self.egress = self.egress.with_limits(LIMITS)

    async def call(self, token: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """GET `path` (without `body`) or POST `body` to it: Meta's answer; `ProviderFailed` when Meta refused the
        call (its `graph` refusal then) or could not be reached."""
        url = f"{self.base_url.rstrip('/')}{path}"
        headers = {"Authorization": f"Bearer {token}"}
        try:
            if body is None:
                result = await self.egress.fetch(url, headers=headers)
            else:
                result = await self.egress.fetch(url, method="POST", headers=headers, json=body)
        except EgressHTTPError as error:
            refused = meta.refusal(error.result.status, _json(error.result.body))
            after = _retry_after(error.result.headers.get("retry-after"))
            raise ProviderFailed(
                f"Meta: {refused}", passing=refused.passing, retry_after=after, graph=refused
            ) from None
        except EgressRefused as error:
            raise ProviderFailed(f"refused by the egress policy: {error.reason}", passing=False) from None
        except EgressError as error:
            raise ProviderFailed(f"Meta unreachable: {error.reason}", passing=True) from None
        answer = _json(result.body)
        if not isinstance(answer, dict):
            raise ProviderFailed("Meta answered without JSON", passing=True)
        return answer


@dataclass
class Callback:
    """The generic channel's callback URL: a signed JSON POST, any 2xx accepted."""

    egress: EgressClient

    def __post_init__(self) -> None:
        self.egress = self.egress.with_limits(LIMITS)

    async def post(self, url: str, headers: dict[str, str], body: bytes) -> None:
        try:
            await self.egress.fetch(url, method="POST", headers=headers, content=body)
        except EgressHTTPError as error:
            status = error.result.status
            after = _retry_after(error.result.headers.get("retry-after"))
            passing = status in (408, 429) or status >= 500
            raise ProviderFailed(f"callback answered http {status}", passing=passing, retry_after=after) from None
        except EgressRefused as error:
            raise ProviderFailed(f"refused by the egress policy: {error.reason}", passing=False) from None
        except EgressError as error:
            raise ProviderFailed(f"callback unreachable: {error.reason}", passing=True) from None


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _retry_after(value: str | None) -> float | None:
    return float(value) if value is not None and value.strip().isdigit() else None
