"""Device cookies (OWASP's defence against lockout by strangers): a browser that signed in with the right password
gets `botyard_device`, signed by this service and naming the address it signed in as. An attempt for that address
from that browser is counted against the device's own budget, so a guesser who keeps the address waiting does not
keep its person out of their own browser; a guesser has no such cookie (it cannot be made without the key, and is
only handed out for the right password).

The cookie is HttpOnly, SameSite=Strict, sent only to the sign-in route, and lasts `LIFETIME` from the last sign-in.
It proves nothing by itself: a password is still needed, and it grants no session.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from starlette.requests import Request
from starlette.responses import Response

from botyard.identity.browser_sessions.cookies import is_secure
from botyard.identity.tokens import new_token

COOKIE = "botyard_device"
LIFETIME = timedelta(days=180)
PURPOSE = "sign-in device cookies"
"""What the key is derived for, from the instance's key (`Cipher.derived_key`)."""


@dataclass(frozen=True)
class Device:
    id: str
    email: str
    """The normalised address it signed in as."""

    @classmethod
    def new(cls, email: str) -> Device:
        return cls(new_token(), email)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class DeviceCookies:
    """Seals and opens device cookies with a key asked for on first use (making the instance's key file then)."""

    def __init__(self, key: Callable[[], bytes]) -> None:
        self._source = key
        self._key: bytes | None = None

    def _signature(self, body: str) -> str:
        if self._key is None:
            self._key = self._source()
        return _b64(hmac.new(self._key, body.encode(), hashlib.sha256).digest())

    def seal(self, device: Device, now: datetime) -> str:
        body = f"{device.id}.{int(now.timestamp())}.{_b64(device.email.encode())}"
        return f"{body}.{self._signature(body)}"

    def opened(self, cookie: str | None, now: datetime) -> Device | None:
        """The device of a cookie this service signed less than `LIFETIME` ago, or None."""
        body, _, signature = (cookie or "").rpartition(".")
        if not body or not hmac.compare_digest(signature.encode(), self._signature(body).encode()):
            return None
        device_id, issued, email = [*body.split("."), "", ""][:3]
        try:
            fresh = now.timestamp() - int(issued) < LIFETIME.total_seconds()
            address = base64.urlsafe_b64decode(email + "=" * (-len(email) % 4)).decode()
        except ValueError:
            return None
        return Device(device_id, address) if fresh and device_id else None

    def set(self, response: Response, request: Request, device: Device, now: datetime) -> None:
        response.set_cookie(
            COOKIE,
            self.seal(device, now),
            max_age=int(LIFETIME.total_seconds()),
            path=request.url.path,
            secure=is_secure(request),
            httponly=True,
            samesite="strict",
        )
