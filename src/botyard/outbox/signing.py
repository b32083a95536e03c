"""Signatures as Standard Webhooks define them (https://www.standardwebhooks.com/).

Every delivery carries three headers: `webhook-id` (the event's id, the same on every attempt: deduplicate on it),
`webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature` (`v1,` then the base64 HMAC-SHA256 of
`{id}.{timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`). A receiver recomputes
it over the raw body, compares in constant time, and refuses a timestamp more than a few minutes away from its clock.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

PREFIX = "whsec_"
KEY_BYTES = 32


def new_secret() -> str:
    """A fresh signing secret: `whsec_` and 32 random bytes in base64."""
    return PREFIX + base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()


def signature(secret: str, event_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` value of `body` sent as event `event_id` at `timestamp`."""
    key = base64.b64decode(secret.removeprefix(PREFIX))
    signed = f"{event_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def headers(secret: str, event_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The headers of one attempt."""
    return {
        "Content-Type": "application/json",
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, event_id, timestamp, body),
    }
